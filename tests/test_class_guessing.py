"""Guessing class codes brakes the guesser and never the hall (issue 35, finding 1): past the wrong-code budget of a
browser or of its address, every try carries a proof of work before its code is looked at; a right code with its
proof always gets in; instructor keys are counted apart; joining again a class one is in counts nothing."""
from __future__ import annotations

import time
from urllib.parse import urlencode

import pytest

from tests.conftest import browser_from, soup_of
from webnb.room import lecture as lectures
from webnb.room import proof
from webnb.room.joining import PROOF_ASKED, WRONG_CODE

INSTRUCTOR_KEY = "the operator's key for lecturers, long enough"
HALL = "203.0.113.9"
BITS = 6  # the tests' proofs: cheap to find, the rule the same


@pytest.fixture()
def hosted(make_hosted_app):
    app = make_hosted_app(WEBNB_JOIN_PROOF_BITS=BITS, WEBNB_INSTRUCTOR_KEY=INSTRUCTOR_KEY)
    return app, lectures.start_class(app.extensions["webnb"]["storage"], "spam-ham")


def challenge_of(response) -> proof.Challenge:
    form = soup_of(response, response.status_code).select_one("form.join-form[data-proof]")
    assert form is not None, "no proof of work asked"
    assert form.select_one('input[name="proof"]')["value"] == form["data-proof"]
    return proof.Challenge(form["data-proof"], int(form["data-proof-bits"]))


def proven_join(client, typed: str):
    """A try with the code ``typed`` as the browser makes it past the budget: asked for work, then sent with it."""
    asked = client.get(f"/join/{typed}")
    assert asked.status_code == 429
    challenge = challenge_of(asked)
    return client.get("/join?" + urlencode({"code": typed, "proof": challenge.text, "nonce": proof.solve(challenge)}))


def spend_the_address(app, address: str = HALL, wrong: int = 60):
    """A hostile student's wrong codes, 10 from one cookie and the rest from fresh ones."""
    guesser = browser_from(app, address)
    for tried in range(wrong):
        client = guesser if tried < 10 else browser_from(app, address)
        assert client.get("/join/3X9KQR").status_code in (404, 429)


def test_a_browser_past_ten_wrong_codes_proves_work_then_its_right_code_gets_in(hosted):
    app, lecture = hosted
    guesser = browser_from(app, "198.51.100.1")
    for _ in range(10):
        assert guesser.get("/join/3X9KQR").status_code == 404
    asked = guesser.get(f"/join/{lecture.code}")
    page = soup_of(asked, 429)
    alert = page.select_one("[role=alert]").get_text(" ", strip=True)
    assert alert == PROOF_ASKED and "heck the code" not in alert  # a right code is never told to check itself
    assert asked.headers["Cache-Control"] == "no-store" and "Retry-After" not in asked.headers
    assert page.select_one("#class-code")["value"] == lecture.code  # the code is kept
    assert page.select_one('script[src$="join.js"]') is not None
    challenge = challenge_of(asked)
    assert challenge.bits == BITS
    sent = {"code": lecture.code, "proof": challenge.text, "nonce": proof.solve(challenge)}
    joined = guesser.get("/join?" + urlencode(sent))
    assert joined.status_code == 303 and joined.location.startswith("/corpora/spam-ham")
    assert app.extensions["webnb"]["storage"].is_member(lecture.code, _workspace_of(app, guesser))
    # Another browser behind the same address is not held up by this one.
    assert browser_from(app, "198.51.100.1").get(f"/join/{lecture.code}").status_code == 303


def _workspace_of(app, client) -> str:
    with client.session_transaction() as session:
        return session["workspace"]


def test_a_proof_buys_one_try_and_a_wrong_code_with_one_says_so(hosted):
    app, lecture = hosted
    guesser = browser_from(app, "198.51.100.4")
    for _ in range(10):
        guesser.get("/join/3X9KQR")
    challenge = challenge_of(guesser.get("/join/3X9KQR"))
    sent = {"code": "3X9KQR", "proof": challenge.text, "nonce": proof.solve(challenge)}
    wrong = guesser.get("/join?" + urlencode(sent))
    page = soup_of(wrong, 404)
    assert page.select_one("[role=alert]").get_text(" ", strip=True) == WRONG_CODE
    # The next try's challenge comes with the answer, so that typing the right code costs no extra round.
    assert challenge_of(wrong).text != challenge.text
    # The same proof again is spent: work is asked once more, whatever the code.
    again = guesser.get("/join?" + urlencode({**sent, "code": lecture.code}))
    assert again.status_code == 429 and challenge_of(again)


@pytest.mark.parametrize("forged", ["unsolved", "other secret", "too easy", "expired", "not ours"])
def test_a_forged_or_stale_proof_is_no_proof(hosted, forged):
    app, lecture = hosted
    guesser = browser_from(app, "198.51.100.5")
    for _ in range(10):
        guesser.get("/join/3X9KQR")
    secret = app.config["SECRET_KEY"].encode()
    challenge = challenge_of(guesser.get(f"/join/{lecture.code}"))
    nonce = proof.solve(challenge)
    if forged == "unsolved":
        nonce = next(str(n) for n in range(10_000) if proof.verify(secret, challenge.text, str(n), min_bits=BITS)
                     is None)
    elif forged == "other secret":
        challenge = proof.make(b"not the server's secret", BITS)
        nonce = proof.solve(challenge)
    elif forged == "too easy":
        challenge = proof.make(secret, BITS - 3)
        nonce = proof.solve(challenge)
    elif forged == "expired":
        challenge = proof.make(secret, BITS, now=time.time() - proof.LIFETIME_SECONDS - 5)
        nonce = proof.solve(challenge)
    else:
        challenge = proof.Challenge("p1.1.abc.6.0123456789abcdef0123456789abcdef", BITS)
    sent = {"code": lecture.code, "proof": challenge.text, "nonce": nonce}
    assert guesser.get("/join?" + urlencode(sent)).status_code == 429


@pytest.fixture(params=["memory", "redis"])
def hall_on_each_store(request, hosted_app):
    """A hosted app on SQLite and on PostgreSQL (``hosted_app``), its counts in memory or in Redis (shared by every
    process, as gunicorn's workers share them), and a running class."""
    settings = {"WEBNB_JOIN_PROOF_BITS": BITS, "WEBNB_INSTRUCTOR_KEY": INSTRUCTOR_KEY}
    if request.param == "redis":
        settings["WEBNB_RATE_LIMIT_STORAGE"] = request.getfixturevalue("redis_test_url")
    app = hosted_app(**settings)
    return app, lectures.start_class(app.extensions["webnb"]["storage"], "spam-ham")


@pytest.mark.slow  # 300 students, on each database and each store
def test_wrong_codes_from_the_halls_address_never_lock_the_hall_out(hall_on_each_store):
    """Finding 1: 60 wrong codes (10 from one cookie, 50 from fresh ones) spent the hall's address; every honest
    student's right code still gets in, with a proof of work, and no one is answered "check the code"."""
    app, lecture = hall_on_each_store
    spend_the_address(app)
    assert browser_from(app, HALL).get(f"/join/{lecture.code}").status_code == 429  # work asked first
    statuses = [proven_join(browser_from(app, HALL), lecture.code).status_code for _ in range(300)]
    assert statuses == [303] * 300
    assert len(app.extensions["webnb"]["storage"].class_members(lecture.code)) == 300
    # Another network's students never see the work.
    assert browser_from(app, "198.51.100.3").get(f"/join/{lecture.code}").status_code == 303


def test_a_spent_address_still_lets_a_student_in(hosted):
    """The hall's case in brief, for the fast run: the address spent, a new student's right code gets in."""
    app, lecture = hosted
    spend_the_address(app)
    assert proven_join(browser_from(app, HALL), lecture.code).status_code == 303


def test_instructor_keys_are_counted_apart_from_codes(hosted):
    app, lecture = hosted
    key_guesser = browser_from(app, HALL)
    for tried in range(40):
        client = key_guesser if tried < 5 else browser_from(app, HALL)
        answer = client.post("/classes", data={"corpus": "spam-ham", "instructor_key": f"guess {tried}"})
        assert answer.status_code == (403 if tried < 30 else 429)
    refused = key_guesser.post("/classes", data={"corpus": "spam-ham", "instructor_key": "one more"})
    page = soup_of(refused, 429)
    assert page.h1.get_text() == "Too many instructor keys tried" and refused.headers["Retry-After"] == "60"
    # Joining is untouched: a student of the hall joins without any work.
    assert browser_from(app, HALL).get(f"/join/{lecture.code}").status_code == 303


@pytest.mark.slow  # 700 joins, on each database and each store
def test_joining_again_costs_nothing_and_spends_no_budget(hall_on_each_store):
    app, lecture = hall_on_each_store
    student = browser_from(app, HALL)
    assert student.get(f"/join/{lecture.code}").status_code == 303
    for _ in range(700):  # more than the old 600 joins an address had in two minutes
        assert student.get(f"/join/{lecture.code.lower()}").status_code == 303
    spend_the_address(app)
    # Scanning the QR code again after the address was spent: in at once, no work, still one membership.
    again = student.get(f"/join/{lecture.code}")
    assert again.status_code == 303 and again.location.startswith("/corpora/spam-ham")
    assert len(app.extensions["webnb"]["storage"].class_members(lecture.code)) == 1
    # New students of the hall still get in, as many as come.
    assert proven_join(browser_from(app, HALL), lecture.code).status_code == 303


def test_json_clients_are_given_the_challenge_too(hosted):
    app, lecture = hosted
    spend_the_address(app, "198.51.100.7")
    client = browser_from(app, "198.51.100.7")
    asked = client.get(f"/join/{lecture.code}", headers={"Accept": "application/json"})
    body = asked.get_json()
    assert asked.status_code == 429 and body["error"] == PROOF_ASKED and body["bits"] == BITS
    challenge = proof.Challenge(body["proof"], body["bits"])
    sent = {"code": lecture.code, "proof": challenge.text, "nonce": proof.solve(challenge)}
    assert client.get("/join?" + urlencode(sent)).status_code == 303


def test_a_proof_is_what_it_says():
    secret = b"s" * 32
    challenge = proof.make(secret, 10)
    nonce = proof.solve(challenge)
    assert proof.leading_zero_bits(__import__("hashlib").sha256(f"{challenge.text}:{nonce}".encode()).digest()) >= 10
    assert proof.verify(secret, challenge.text, nonce, min_bits=10) == challenge
    assert proof.verify(secret, challenge.text, nonce, min_bits=11) is None  # the server asks more than it asked
    assert proof.verify(secret, challenge.text + "0", nonce, min_bits=10) is None
    for nonce_text in ("", "-1", "1e3", "１", "9" * 21):
        assert proof.verify(secret, challenge.text, nonce_text, min_bits=0) is None
    assert proof.leading_zero_bits(bytes(32)) == 256 and proof.leading_zero_bits(b"\x01" + bytes(31)) == 7
