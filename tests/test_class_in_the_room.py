"""A class in the room, parts 1 and 2 of issue 25: starting a class (command line and browser), its join code and
links, the lecturer's secret, ending it (by the lecturer or its hours, by an injected clock), and joining by the code
or the QR code's address, with the guessing of codes limited per workspace and per address."""
from __future__ import annotations

import io
import json
import re
from datetime import datetime, timedelta, timezone
from urllib.parse import urlsplit

import pytest

from tests.conftest import browser_from, soup_of
from webnb.cli import build_parser, run_class
from webnb.room import lecture as lectures
from webnb.room.joining import WRONG_CODE, qr_code
from webnb.store.database import PublishedCorpus, Storage

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=timezone.utc)
INSTRUCTOR_KEY = "the operator's key for lecturers, long enough"


def start_on(app, *argv, now=T0):
    """``webnb class start|end ARGV`` on ``app``'s database at ``now``: (exit code, output)."""
    import webnb

    out = io.StringIO()
    original = webnb.create_app
    webnb.create_app = lambda: app
    try:
        code = run_class(build_parser().parse_args(["class", *argv]), out, now=now)
    finally:
        webnb.create_app = original
    return code, out.getvalue()


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def set_clock(app, moment):
    app.extensions["webnb_clock"] = lambda: moment


# --- codes ------------------------------------------------------------------------------------------------------------


def test_the_code_alphabet_has_no_look_alikes_and_typed_codes_are_normalised():
    assert lectures.CODE_ALPHABET == "34679ACDEFGHJKMNPQRTUVWXY"
    codes = {lectures.new_code() for _ in range(500)}
    assert all(len(code) == 6 and set(code) <= set(lectures.CODE_ALPHABET) for code in codes)
    assert len(codes) > 490  # 25⁶ codes: 500 draws almost never repeat
    assert lectures.normalise_code(" 3x9-kqr ") == "3X9KQR"
    assert lectures.normalise_code("3x9\u2013kq r") == "3X9KQR"
    for typed in ("3X9KQ", "3X9KQRR", "3X9KQ0", "BXXXXX", "3X9KQ!", "", "<script>"):
        assert lectures.normalise_code(typed) is None, typed


# --- storage, on SQLite and PostgreSQL --------------------------------------------------------------------------------


def test_a_class_is_stored_joined_and_ended(database_url):
    with Storage(database_url) as storage:
        storage.create_schema()
        started = lectures.start_class(storage, "spam-ham", (("model", "bernoulli"), ("alpha", "1/2")), hours=2,
                                       now=T0)
        record = storage.get_class(started.code)
        assert record.corpus_id == "spam-ham" and record.presets == (("model", "bernoulli"), ("alpha", "1/2"))
        assert record.state == "/corpora/spam-ham?model=bernoulli&alpha=1%2F2" and record.state_version == 0
        assert record.created_at == T0 and record.ends_at == T0 + timedelta(hours=2) and record.ended_at is None
        # Only a hash of the secret is stored.
        assert record.secret_hash == lectures.secret_hash(started.secret) and started.secret not in record.secret_hash
        assert lectures.holds_secret(record, started.secret) and not lectures.holds_secret(record, started.secret[:-1])
        # A code already taken is refused, so that the caller draws another.
        assert not storage.add_class(code=started.code, secret_hash="x", corpus_id="iris", presets=(), state="/",
                                     ends_at=T0, now=T0)
        assert storage.join_class(started.code, "w1", now=T0) and storage.join_class(started.code, "w2", now=T0)
        assert not storage.join_class(started.code, "w1", now=T0 + timedelta(minutes=1))
        assert storage.class_members(started.code) == ["w1", "w2"]
        assert record.running(T0 + timedelta(hours=1, minutes=59)) and not record.running(T0 + timedelta(hours=2))
        assert storage.end_class(started.code, now=T0 + timedelta(hours=1))
        assert not storage.end_class(started.code, now=T0 + timedelta(hours=1, minutes=1))
        ended = storage.get_class(started.code)
        assert ended.ended_at == T0 + timedelta(hours=1) and not ended.running(T0 + timedelta(hours=1))
        assert storage.get_class("MISSIN") is None and not storage.end_class("MISSIN", now=T0)
        # Retention: a class goes (with who joined it) once it ended before the cut-off, not before.
        running = lectures.start_class(storage, "iris", hours=4, now=T0)
        assert storage.remove_old_classes(T0 + timedelta(hours=1)) == 0
        assert storage.remove_old_classes(T0 + timedelta(hours=1, seconds=1)) == 1
        assert storage.get_class(started.code) is None and storage.class_members(started.code) == []
        assert storage.get_class(running.code) is not None


# --- the command line -------------------------------------------------------------------------------------------------


def test_class_start_prints_the_code_and_links_and_stores_a_hash(app):
    code, out = start_on(app, "start", "--json", "--base-url", "https://webnb.example.org/")
    assert code == 0
    printed = json.loads(out)
    assert set(printed) == {"code", "join_url", "lecturer_url", "ends_at"}
    assert re.fullmatch(r"[34679ACDEFGHJKMNPQRTUVWXY]{6}", printed["code"])
    assert printed["join_url"] == f"https://webnb.example.org/join/{printed['code']}"
    prefix = f"https://webnb.example.org/classes/{printed['code']}/lead/"
    assert printed["lecturer_url"].startswith(prefix)
    secret = printed["lecturer_url"][len(prefix):]
    assert len(secret) == 43  # 256 bits
    assert printed["ends_at"] == "2026-12-03T13:00:00+00:00"  # 4 hours by default
    record = app.extensions["webnb"]["storage"].get_class(printed["code"])
    assert record.corpus_id == "match-reviews" and record.secret_hash == lectures.secret_hash(secret)
    assert record.state == "/corpora/match-reviews"


def test_class_start_in_words_with_presets_and_the_default_base(app):
    code, out = start_on(app, "start", "--corpus", "spam-ham", "--model", "bernoulli", "--alpha", "0.5", "--binary",
                         "--hours", "1.5")
    assert code == 0
    found = re.search(r"Join code: (\w{6})", out).group(1)
    assert f"Students join at: http://127.0.0.1:5000/join/{found}" in out
    assert f"http://127.0.0.1:5000/classes/{found}/lead/" in out
    assert "until 2026-12-03 10:30 UTC" in out
    record = app.extensions["webnb"]["storage"].get_class(found)
    assert record.presets == (("model", "bernoulli"), ("alpha", "0.5"), ("binary", "1"))
    assert record.state == "/corpora/spam-ham?model=bernoulli&alpha=0.5&binary=1"


@pytest.mark.parametrize(("argv", "message"), [
    (["--corpus", "no-such-corpus"], "there is no built-in or class corpus 'no-such-corpus'"),
    (["--alpha", "-1"], "--alpha:"),
    (["--corpus", "iris", "--alpha", "1"], "iris is a table of numbers"),
])
def test_class_start_refuses_what_it_cannot_use(app, webnb, argv, message):
    code, out, err = webnb(app, "class", "start", *argv)
    assert code == 2 and out == "" and message in err
    with app.extensions["webnb"]["storage"].engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM classes").scalar_one() == 0


@pytest.mark.parametrize("hours", ["0", "-1", "nan", "169", "four"])
def test_class_start_refuses_hours_out_of_range(hours, capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["class", "start", "--hours", hours])
    assert "give a number of hours above 0 and at most 168" in capsys.readouterr().err


def test_class_end_ends_it_and_the_hours_end_it_by_the_clock(app, webnb):
    _, out = start_on(app, "start", "--json", "--hours", "2")
    code = json.loads(out)["code"]
    storage = app.extensions["webnb"]["storage"]
    # Ending it after its hours changes nothing: it ended by itself.
    assert start_on(app, "end", code, now=T0 + timedelta(hours=2)) == (0, f"The class {code} had already ended. "
                                                                          "Nothing was changed.\n")
    assert storage.get_class(code).ended_at is None and not storage.get_class(code).running(T0 + timedelta(hours=2))
    _, out = start_on(app, "start", "--json")
    other = json.loads(out)["code"]
    assert start_on(app, "end", other.lower(), now=T0 + timedelta(minutes=5)) == (
        0, f"Ended the class {other}. Nobody can join it any more.\n")
    assert storage.get_class(other).ended_at == T0 + timedelta(minutes=5)
    assert webnb(app, "class", "end", "3X9KQR")[0:2] == (2, "")


def test_cleanup_removes_the_classes_that_ended_before_the_retention_time(app, webnb):
    storage = app.extensions["webnb"]["storage"]
    long_ago = lectures.start_class(storage, "spam-ham", now=datetime.now(timezone.utc) - timedelta(days=40))
    today = lectures.start_class(storage, "spam-ham")
    storage.join_class(long_ago.code, "w1")
    code, out, _ = webnb(app, "cleanup", "--days", "30")
    assert code == 0 and out.endswith("Also removed 1 class that ended before then, with who joined them.\n")
    assert storage.get_class(long_ago.code) is None and storage.class_members(long_ago.code) == []
    assert storage.get_class(today.code) is not None


# --- joining ----------------------------------------------------------------------------------------------------------


def started(app, corpus="spam-ham", presets=(), hours=4):
    """A class started at T0 on ``app``, whose clock reads T0 unless the test set it already."""
    app.extensions.setdefault("webnb_clock", lambda: T0)
    return lectures.start_class(app.extensions["webnb"]["storage"], corpus, presets, hours=hours, now=T0)


def test_join_by_the_code_and_by_the_qr_address_lands_on_the_lesson(app, client):
    set_clock(app, T0 + timedelta(minutes=1))
    lecture = started(app, presets=(("model", "bernoulli"), ("alpha", "0.5")))
    form = soup_of(client.get("/join")).select_one("form.join-form")
    assert form["method"] == "get" and form["action"] == "/join" and form.select_one("input[name=code]")
    typed = f"  {lecture.code[:3].lower()}-{lecture.code[3:]} "
    response = client.get("/join", query_string={"code": typed})
    assert response.status_code == 303 and response.location == "/corpora/spam-ham?model=bernoulli&alpha=0.5"
    lesson = soup_of(client.get(response.location))
    assert "Spam or ham" in lesson.get_text()
    qr = client.get(f"/join/{lecture.code}")
    assert qr.status_code == 303 and qr.location == "/corpora/spam-ham?model=bernoulli&alpha=0.5"
    with client.session_transaction() as session:
        assert session["class"] == lecture.code and lecture.code not in session.get("lecturer", [])


def test_joining_in_hosted_mode_ties_the_workspace_to_the_class(hosted_app):
    app = hosted_app()
    set_clock(app, T0)
    lecture = started(app)
    students = [browser_from(app) for _ in range(3)]
    for student in students:
        assert student.get(f"/join/{lecture.code}").status_code == 303
    students[0].get(f"/join/{lecture.code}")  # joining again is not a second member
    workspaces = []
    for student in students:
        with student.session_transaction() as session:
            workspaces.append(session["workspace"])
    assert sorted(app.extensions["webnb"]["storage"].class_members(lecture.code)) == sorted(workspaces)


@pytest.mark.parametrize("typed", ["3X9KQR", "0OOOOO", "abc", "x" * 300, "<b>ABCDEF</b>", "3X9KQR/../../etc"])
def test_a_wrong_code_says_so_in_the_same_words_for_unknown_and_malformed(app, client, typed):
    started(app)  # a class exists; nothing on the page may tell its code
    for response in (client.get("/join", query_string={"code": typed}), client.get(f"/join/{typed}")):
        page = soup_of(response, 404)
        assert page.select_one("[role=alert]").get_text(" ", strip=True) == WRONG_CODE
        assert page.select_one("input[name=code]")["value"] == typed[:100]
        assert "<b>" not in response.get_data(as_text=True)
    answer = client.get(f"/join/{typed}", headers={"Accept": "application/json"})
    assert answer.status_code == 404 and answer.get_json() == {"error": WRONG_CODE}


def test_joining_an_ended_class_says_so(app, client):
    set_clock(app, T0)
    ended_by_lecturer, ended_by_hours = started(app), started(app, hours=1)
    app.extensions["webnb"]["storage"].end_class(ended_by_lecturer.code, now=T0 + timedelta(minutes=30))
    set_clock(app, T0 + timedelta(hours=1))
    for lecture in (ended_by_lecturer, ended_by_hours):
        page = soup_of(client.get(f"/join/{lecture.code}"), 410)
        assert page.h1.get_text() == "This class has ended"
        assert f"The class {lecture.code} has ended" in page.select_one("[role=alert]").get_text()
    assert client.get(f"/join/{ended_by_lecturer.code}", headers={"Accept": "application/json"}).get_json() == {
        "error": f"The class {ended_by_lecturer.code} has ended, so nobody can join it any more. Ask your lecturer "
                 "for the code of today's class."}


# --- guessing, limited in hosted mode ---------------------------------------------------------------------------------


@pytest.mark.slow  # 300 students join: over a second
def test_a_lecture_hall_of_300_behind_one_address_all_get_in(make_hosted_app):
    app = make_hosted_app()
    lecture = started(app)
    statuses = [browser_from(app, "203.0.113.9").get(f"/join/{lecture.code}").status_code for _ in range(300)]
    assert statuses == [303] * 300
    assert len(app.extensions["webnb"]["storage"].class_members(lecture.code)) == 300


def test_local_mode_limits_nothing(app, client):
    for _ in range(70):
        assert client.get("/join/3X9KQR").status_code == 404
    assert client.get(f"/join/{started(app).code}").status_code == 303


# --- the lecturer -----------------------------------------------------------------------------------------------------


def test_only_the_holder_of_the_secret_leads_the_class(app):
    set_clock(app, T0)
    lecture = started(app)
    lecturer, student = app.test_client(), app.test_client()
    assert student.get(f"/join/{lecture.code}").status_code == 303
    assert soup_of(student.get(f"/classes/{lecture.code}"), 404).h1.get_text() == "No such class here"
    for page in (f"/classes/{lecture.code}/lead/{lecture.secret[:-1]}x",
                 f"/classes/{lecture.code}/lead/not-the-secret"):
        assert soup_of(student.get(page), 403)
    assert student.post(f"/classes/{lecture.code}/end").status_code == 403
    assert app.extensions["webnb"]["storage"].get_class(lecture.code).ended_at is None

    opened = lecturer.get(f"/classes/{lecture.code}/lead/{lecture.secret}")
    assert opened.status_code == 303 and opened.location == f"/classes/{lecture.code}"  # the secret leaves the bar
    slide = soup_of(lecturer.get(opened.location))
    assert slide.select_one("#class-code").get_text() == lecture.code
    svg = slide.select_one("#class-qr svg")
    assert svg.title.get_text() == f"QR code of http://localhost/join/{lecture.code}"
    assert svg.path["d"] == qr_code(f"http://localhost/join/{lecture.code}").path and "style" not in str(svg)
    assert slide.select_one("#class-lesson")["href"] == "/corpora/spam-ham?presenter=1"  # into the deck
    # The student's browser is still not the lecturer.
    assert student.get(f"/classes/{lecture.code}").status_code == 404
    assert lecturer.post(f"/classes/{lecture.code}/end").status_code == 303
    assert app.extensions["webnb"]["storage"].get_class(lecture.code).ended_at == T0
    ended = soup_of(lecturer.get(f"/classes/{lecture.code}"))
    assert ended.h1.get_text() == f"The class {lecture.code} has ended" and ended.select_one("#class-qr") is None


def test_the_qr_code_is_segnos_drawn_module_by_module():
    import segno

    url = "http://127.0.0.1:5000/join/3X9KQR"
    drawn = qr_code(url)
    expected = [list(row) for row in segno.make(url, error="m").matrix_iter(scale=1, border=4)]
    assert drawn.url == url and drawn.size == len(expected) == 29 + 8  # version 3, with the quiet zone
    # Fill the runs back into a grid: exactly segno's dark modules.
    grid = [[0] * drawn.size for _ in range(drawn.size)]
    for x, y, n in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\3z", drawn.path):
        for column in range(int(x), int(x) + int(n)):
            grid[int(y)][column] = 1
    assert re.fullmatch(r"(M\d+ \d+h\d+v1h-\d+z)+", drawn.path)
    assert grid == expected


# --- starting from the browser ----------------------------------------------------------------------------------------


def test_the_owner_starts_a_class_from_the_home_page_in_local_mode(app, client):
    set_clock(app, T0)
    home = soup_of(client.get("/"))
    form = home.select_one(".start-class form")
    assert form["method"] == "post" and form["action"] == "/classes" and form.select_one("#instructor-key") is None
    assert {option["value"] for option in form.select("option")} >= {"match-reviews", "spam-ham", "iris"}
    page = soup_of(client.post("/classes", data={"corpus": "china-japan"}))
    code = page.select_one("#class-code").get_text()
    assert page.select_one("#join-url")["href"] == f"http://localhost/join/{code}"
    lecturer_url = page.select_one("#lecturer-url").get_text()
    secret = lecturer_url.rsplit("/", 1)[1]
    record = app.extensions["webnb"]["storage"].get_class(code)
    assert record.corpus_id == "china-japan" and lectures.holds_secret(record, secret)
    assert client.get(f"/classes/{code}").status_code == 200  # this browser is the lecturer
    assert app.test_client().get(f"/classes/{code}").status_code == 404
    assert soup_of(client.post("/classes", data={"corpus": "nope"}), 400).h1.get_text() == "No such corpus"


def test_hosted_mode_offers_no_control_without_an_instructor_key(make_hosted_app):
    app = make_hosted_app()
    client = browser_from(app)
    assert soup_of(client.get("/")).select_one(".start-class form") is None
    assert client.post("/classes", data={"corpus": "spam-ham", "instructor_key": ""}).status_code == 404


def test_hosted_mode_starts_a_class_for_a_browser_that_gave_the_instructor_key(make_hosted_app):
    app = make_hosted_app(WEBNB_INSTRUCTOR_KEY=INSTRUCTOR_KEY)
    lecturer, student = browser_from(app), browser_from(app)
    assert soup_of(lecturer.get("/")).select_one(".start-class #instructor-key") is not None
    wrong = student.post("/classes", data={"corpus": "spam-ham", "instructor_key": INSTRUCTOR_KEY[:-1]})
    assert soup_of(wrong, 403).h1.get_text() == "Wrong instructor key"
    assert student.post("/classes", data={"corpus": "spam-ham"}).status_code == 403
    page = soup_of(lecturer.post("/classes", data={"corpus": "spam-ham", "instructor_key": INSTRUCTOR_KEY}))
    code = page.select_one("#class-code").get_text()
    assert lecturer.get(f"/classes/{code}").status_code == 200 and student.get(f"/classes/{code}").status_code == 404
    # Once given, the key is not asked for again in this browser.
    assert soup_of(lecturer.get("/")).select_one(".start-class #instructor-key") is None
    assert lecturer.post("/classes", data={"corpus": "spam-ham"}).status_code == 200
    with app.extensions["webnb"]["storage"].engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM classes").scalar_one() == 2


def test_the_start_form_is_csrf_protected(tmp_path):
    from webnb import create_app

    app = create_app({"TESTING": True}, instance_path=str(tmp_path / "instance"))
    client = app.test_client()
    assert soup_of(client.post("/classes", data={"corpus": "spam-ham"}), 400)
    with app.extensions["webnb"]["storage"].engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM classes").scalar_one() == 0
    token = soup_of(client.get("/")).select_one(".start-class input[name=csrf_token]")["value"]
    code = soup_of(client.post("/classes", data={"corpus": "spam-ham", "csrf_token": token})).select_one(
        "#class-code").get_text()
    # Ending it is a form too: refused without the token, done with it.
    assert client.post(f"/classes/{code}/end").status_code == 400
    assert app.extensions["webnb"]["storage"].get_class(code).ended_at is None
    token = soup_of(client.get(f"/classes/{code}")).select_one("form input[name=csrf_token]")["value"]
    assert client.post(f"/classes/{code}/end", data={"csrf_token": token}).status_code == 303
    assert app.extensions["webnb"]["storage"].get_class(code).ended_at is not None


def test_the_class_corpus_name_is_escaped(app, client):
    from webnb.engine.shared.corpus import Corpus

    name = "<script>alert(1)</script> & \"reviews\""
    corpus = Corpus(ids=("1", "2", "3", "4"), labels=("pos", "neg", "pos", "neg"),
                    texts=("good film", "bad film", "great plot", "dull plot"))
    app.extensions["webnb"]["storage"].add_class_corpora(
        [PublishedCorpus("film-reviews", name, "", "test", (), corpus)])
    page = client.post("/classes", data={"corpus": "film-reviews"})
    html = page.get_data(as_text=True)
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    code = soup_of(page).select_one("#class-code").get_text()
    assert soup_of(page).select_one(".class-corpus").get_text() == name
    slide = client.get(f"/classes/{code}")
    assert "<script>alert" not in slide.get_data(as_text=True)
    assert soup_of(slide).select_one(".class-corpus").get_text() == name
