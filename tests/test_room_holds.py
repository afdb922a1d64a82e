"""The room holds against one hostile student (issue 35): follow.json answers only a member, the same 404 in the same
way for a running code and an unknown one, within a budget per member; a followed slide's shared drawing is keyed by
everything that changes its bytes."""
from __future__ import annotations

import re

import pytest

from tests.conftest import browser_from, slow_but_the_first
from tests.test_class_in_the_room import T0, set_clock, started
from tests.test_class_questions import SLIDE, lecture_on, storage_of
from webnb.lesson.state import LESSON_PARAMETERS

# --- follow.json ------------------------------------------------------------------------------------------------------


def counting_reads(app) -> list:
    """Every class read of ``app``'s storage, from now on."""
    storage, reads = storage_of(app), []
    original = storage.get_class

    def get_class(code):
        reads.append(code)
        return original(code)

    storage.get_class = get_class
    return reads


def test_follow_json_tells_a_stranger_nothing_and_reads_nothing(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    reads = counting_reads(app)
    stranger = browser_from(app)
    stranger.get("/")  # a session of its own, as a browser that opened the site has
    answers = [stranger.get(f"/classes/{code}/follow.json", headers={"Accept": "application/json"})
               for code in (lecture.code, "3X9KQR", "not-a-code")]
    assert {(a.status_code, a.get_data()) for a in answers} == {
        (404, b'{"error":"This browser has not joined this class."}\n')}
    assert reads == []  # a running code and an unknown one cost the same: no read at all
    # A member of another class is a stranger to this one.
    other = started(app, "china-japan")
    reads.clear()  # starting it read it
    assert student.get(f"/classes/{other.code}/follow.json").status_code == 404
    assert other.code not in reads  # (the refusal's page reads the student's own class for its bar, whatever the code)
    # The member and the lecturer read the state.
    for browser in (student, lecturer):
        polled = browser.get(f"/classes/{lecture.code}/follow.json")
        assert polled.status_code == 200 and polled.get_json()["running"] is True


def test_a_member_polls_within_a_budget_of_their_own(make_hosted_app):
    app = make_hosted_app(WEBNB_FOLLOW_POLLS="5 per hour")
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    neighbour = browser_from(app)
    assert neighbour.get(f"/join/{lecture.code}").status_code == 303
    for _ in range(5):
        assert student.get(f"/classes/{lecture.code}/follow.json").status_code == 200
    flooded = student.get(f"/classes/{lecture.code}/follow.json", headers={"Accept": "application/json"})
    assert flooded.status_code == 429 and flooded.headers["Retry-After"] == "5"
    assert "asks again" in flooded.get_json()["error"]
    # The flood brakes only the one who polls: the neighbour and the lecturer poll on.
    assert neighbour.get(f"/classes/{lecture.code}/follow.json").status_code == 200
    assert lecturer.get(f"/classes/{lecture.code}/follow.json").status_code == 200


# --- the shared drawing of a followed slide ---------------------------------------------------------------------------

# Two values of every parameter of the lesson's state table, each valid on the Bayes' rule slide.
TWO_VALUES = {
    "model": ("multinomial", "bernoulli"), "prior": ("learned", "uniform"), "step": ("decision", "factors"),
    "slide": ("classes", "documents"), "notation": ("phi-psi", "pi-theta"), "theme": ("light", "dark"),
    "zoom": ("125", "150"), "tokens": ("default", "words"), "ngrams": ("1-1", "1-2"), "accents": ("", "ascii"),
    "stemmer": ("", "porter"), "stop_words": ("", "english"), "binary": ("0", "1"), "floor": ("0", "1"),
    "presenter": ("1", "0"), "lowercase": ("1", "0"), "alpha": ("1", "2"), "text": ("brilliant match", "dull match"),
    "repeats": ("1", "3"), "normalize": ("", "number"), "min_df": ("1", "2"), "max_df": ("1.0", "0.9"),
    "max_features": ("all", "5"), "test": ("training", "split"), "train": ("all", "split"),
    "test_size": ("0.25", "0.5"), "seed": ("0", "1"),
}
# The request's htmx headers: a fragment or the page, and which part.
HEADER_VARIANTS = {"hx-request": ({}, {"HX-Request": "true"}),
                   "hx-history-restore-request": ({"HX-Request": "true"},
                                                  {"HX-Request": "true", "HX-History-Restore-Request": "true"})}


def test_every_parameter_of_the_state_table_has_two_values_here():
    assert sorted(TWO_VALUES) == sorted(p.name for p in LESSON_PARAMETERS.parameters)


TOKEN = re.compile(r'("X-CSRFToken": "|name="csrf_token" value=")[^"]*')


def without_tokens(body: bytes) -> str:
    return TOKEN.sub(r"\1", body.decode())


def with_parameter(address: str, name: str, value: str) -> str:
    from urllib.parse import parse_qsl, urlencode, urlsplit

    parts = urlsplit(address)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != name] + [(name, value)]
    return f"{parts.path}?{urlencode(query)}"


CASES = [("theme", "parameter"), ("zoom", "parameter"), ("hx-request", "header"),
         ("hx-history-restore-request", "header")] + [
    (name, "parameter") for name in TWO_VALUES if name not in ("theme", "zoom")]


@pytest.mark.parametrize(("name", "kind"), slow_but_the_first(6, CASES))
def test_two_followers_who_differ_in_one_thing_each_get_their_own_bytes(app, name, kind):
    """Finding 3: the first follower to ask decided how every follower saw the slide. For every parameter of the state
    table and every htmx header, two followers who differ in it get the bytes that each gets alone."""
    set_clock(app, T0)
    lecture, lecturer, first = lecture_on(app)
    second = browser_from(app)
    assert second.get(f"/join/{lecture.code}").status_code == 303
    if kind == "parameter":
        one, other = TWO_VALUES[name]
        lecturer.get(with_parameter(SLIDE, name, one))
        requests = [(with_parameter(SLIDE, name, one), {}), (with_parameter(SLIDE, name, other), {})]
    else:
        lecturer.get(SLIDE)
        requests = [(SLIDE, headers) for headers in HEADER_VARIANTS[name]]
    kept = app.extensions["webnb"]["followed_pages"]
    alone = []
    for address, headers in requests:
        kept.clear()
        alone.append(without_tokens(first.get(address, headers=headers).get_data()))
    assert alone[0] != alone[1], "the two requests draw the same bytes: the case proves nothing"
    for order in ((0, 1), (1, 0)):
        kept.clear()
        for index, browser in zip(order, (first, second), strict=True):
            address, headers = requests[index]
            assert without_tokens(browser.get(address, headers=headers).get_data()) == alone[index], (name, order)
    if name in ("theme", "zoom"):
        assert len(kept) == 2  # both drawings were kept (each for its own key): the cache was at work
    if kind == "header":
        assert len(kept) >= 1  # the whole page is kept (a fragment has no token to swap, and is drawn each time)


# --- only the lecturer's own clicks move the class --------------------------------------------------------------------

ELSEWHERE = SLIDE.replace("brilliant+match", "a+text+the+lecturer+never+typed")


@pytest.mark.parametrize(("headers", "moves"), [
    ({"Sec-Fetch-Site": "cross-site"}, False),
    ({"Sec-Fetch-Site": "same-site"}, False),  # a neighbouring site under the same domain is another site
    ({"Referer": "https://evil.example/lure"}, False),  # a browser that sends no Sec-Fetch-Site
    ({"Referer": "http://localhost.evil.example/"}, False),
    ({"Sec-Fetch-Site": "none"}, True),  # typed, or a bookmark
    ({"Sec-Fetch-Site": "same-origin"}, True),  # webnb's own link or htmx
    ({"Referer": "http://localhost/corpora/match-reviews"}, True),
    ({}, True),
])
def test_a_link_from_another_site_opens_the_page_without_moving_the_class(app, headers, moves):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    lecturer.get(SLIDE)
    page = lecturer.get(ELSEWHERE, headers=headers)
    assert page.status_code == 200
    state = storage_of(app).get_class(lecture.code).state
    assert state == (ELSEWHERE if moves else SLIDE)
    offer = soup_of_page(page).select_one("form.show-to-class")
    assert (offer is None) == moves


def soup_of_page(response):
    from bs4 import BeautifulSoup

    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def test_show_this_to_the_class_moves_it_and_only_for_its_lecturer(app):
    set_clock(app, T0)
    lecture, lecturer, student = lecture_on(app)
    from tests.test_class_questions import ask

    number = ask(lecturer, lecture.code, "predict")  # an open question: a lure must not take the class off it
    question = storage_of(app).get_class(lecture.code).state
    lured = lecturer.get(ELSEWHERE + "&theme=dark", headers={"Sec-Fetch-Site": "cross-site"})
    offer = soup_of_page(lured).select_one("form.show-to-class")
    assert storage_of(app).get_class(lecture.code).state == question == f"/classes/{lecture.code}/questions/{number}"
    assert offer["action"] == f"/classes/{lecture.code}/show" and offer.select_one("#show-to-class")
    address = offer.select_one('input[name="address"]')["value"]
    assert address == ELSEWHERE + "&theme=dark"
    # A student cannot, nor can anyone send an address off the class's corpus.
    assert student.post(f"/classes/{lecture.code}/show", data={"address": address}).status_code == 403
    for wrong in ("//evil.example/corpora/match-reviews", "https://evil.example/x", "/corpora/spam-ham/inference",
                  "/corpora/match-reviews-other", "corpora/match-reviews"):
        assert lecturer.post(f"/classes/{lecture.code}/show", data={"address": wrong}).status_code == 400, wrong
    assert storage_of(app).get_class(lecture.code).state == question
    shown = lecturer.post(f"/classes/{lecture.code}/show", data={"address": address})
    assert shown.status_code == 303 and shown.location == address
    assert storage_of(app).get_class(lecture.code).state == ELSEWHERE  # without the projector's theme
    assert student.get(f"/classes/{lecture.code}/follow.json").get_json()["address"] == ELSEWHERE


# --- proxies trusted only where they are the only way in --------------------------------------------------------------


def test_the_binds_that_reach_beyond_loopback_are_named():
    from webnb.hosting.security import exposed_addresses, gunicorn_binds

    assert gunicorn_binds(["/usr/bin/gunicorn", "--bind", "0.0.0.0:8000", "-b127.0.0.1:9", "--bind=[::1]:7",
                           "app:create_app()"], "-b 10.0.0.5:8000") == ["0.0.0.0:8000", "127.0.0.1:9", "[::1]:7",
                                                                       "10.0.0.5:8000"]
    assert gunicorn_binds(["/usr/bin/python", "-b", "0.0.0.0:1"]) == []  # not gunicorn
    assert exposed_addresses(["0.0.0.0:8000", "127.0.0.1:9", "[::1]:7", "localhost:8", "unix:/run/webnb.sock",
                              "example.org:80", "::", "192.0.2.1"]) == ["0.0.0.0:8000", "example.org:80", "::",
                                                                         "192.0.2.1"]


def test_gunicorn_bound_beyond_loopback_with_proxies_trusted_warns(monkeypatch, tmp_path, caplog):
    from webnb import create_app

    for argv, warned in ((["gunicorn", "--bind", "0.0.0.0:8000", "webnb:create_app()"], True),
                         (["gunicorn", "--bind", "127.0.0.1:8000", "webnb:create_app()"], False)):
        monkeypatch.setattr("sys.argv", argv)
        caplog.clear()
        create_app({"TESTING": True, "WEBNB_PROXIES": 1}, instance_path=str(tmp_path / "instance"))
        said = [r.getMessage() for r in caplog.records if "WEBNB_PROXIES is set" in r.getMessage()]
        assert bool(said) == warned, argv
        if warned:
            assert "0.0.0.0:8000" in said[0] and "forge" in said[0]


def test_webnb_serve_beyond_loopback_with_proxies_trusted_warns(app, capsys):
    from webnb.cli import warn_when_exposed_with_proxies

    warn_when_exposed_with_proxies(app, "0.0.0.0")
    assert capsys.readouterr().err == ""  # proxies not trusted: nothing to say
    app.config["WEBNB_PROXIES"] = 1
    warn_when_exposed_with_proxies(app, "127.0.0.1")
    assert capsys.readouterr().err == ""
    warn_when_exposed_with_proxies(app, "0.0.0.0")
    assert "webnb: warning: WEBNB_PROXIES is set" in capsys.readouterr().err


# --- the live layer's one seam ----------------------------------------------------------------------------------------


def test_the_room_hooks_into_the_lesson_at_one_seam(app):
    """No request hook of the room runs on every request: it wraps exactly the lesson pages' views (and its own
    question page), and a lesson page's view is the room's wrapper around the page's own."""
    import ast
    from pathlib import Path

    import webnb.room
    from webnb.lesson import pages

    room = Path(webnb.room.__file__).parent
    hooks = [(path.name, node.attr) for path in room.glob("*.py")
             for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Attribute)
             and node.attr in ("before_app_request", "after_app_request", "before_request", "after_request",
                               "teardown_app_request")]
    assert hooks == []
    lesson_endpoints = {page.endpoint for kind in ("text", "table") for page in pages.PAGES[kind]}
    wrapped = {endpoint for endpoint, view in app.view_functions.items() if getattr(view, "followed_by_the_room", 0)}
    assert wrapped == lesson_endpoints | {"questions.show"}
    # The room's caches are the app's, made with it: a new app starts with empty ones.
    for name in ("broker", "followed_pages", "polled_classes", "answer_counts"):
        assert name in app.extensions["webnb"]
