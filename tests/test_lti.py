"""LTI 1.3 launches (webnb/lti): the login the platform begins, the launch it posts, each check a launch must pass,
the workspace a launched student keeps, the way out of the LMS's iframe, and webnb's key set. A fake platform
(tests/lti_platform.py) signs with keys of its own and serves its key set in-process."""
from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup
from conftest import HOSTED_SECRET
from lti_platform import DEEP_LINKING_SETTINGS, DROP, INSTRUCTOR, TOOL, FakePlatform, rsa_key

pytest.importorskip("pylti1p3", reason="the LTI extra is not installed (pip install -e '.[lti]')")

SPAM_LESSON = "/corpora/spam-ham/inference?text=free+prize&alpha=1"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
LEARNER_ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


@pytest.fixture()
def hosted(tmp_path):
    """A hosted-mode app (every browser a workspace of its own) with the fake platform registered."""
    from webnb import create_app

    made = create_app({"TESTING": True, "WEBNB_MODE": "hosted", "SECRET_KEY": HOSTED_SECRET,
                       "RATELIMIT_ENABLED": False, "WTF_CSRF_ENABLED": False,
                       "WEBNB_LTI_GRADES_IN_BACKGROUND": False}, instance_path=str(tmp_path / "instance"))
    yield made
    made.extensions["webnb"]["storage"].dispose()
    made.extensions["webnb"]["broker"].close()


@pytest.fixture()
def platform(hosted) -> FakePlatform:
    return FakePlatform().install(hosted)


def browser(app):
    return app.test_client()


def rows(app, table: str) -> list:
    with app.extensions["webnb"]["storage"].engine.connect() as connection:
        return [tuple(row) for row in connection.execute(sa.text(f"SELECT * FROM {table} ORDER BY 1"))]


def land(client, response, **headers):
    """Follow a launch to its lesson: the window step, then the lesson's address (path and query)."""
    assert response.status_code == 303, response.get_data(as_text=True)[:800]
    enter = urlsplit(response.headers["Location"])
    assert enter.path.startswith("/lti/enter/")
    lesson = client.get(enter.path, base_url=TOOL, headers={"Sec-Fetch-Dest": "document", **headers})
    assert lesson.status_code == 303
    return lesson.headers["Location"]


def session_of(app, client) -> dict:
    """The signed session this browser holds."""
    cookie = client.get_cookie(app.config["SESSION_COOKIE_NAME"], domain="webnb.test")
    if cookie is None:
        return {}
    return app.session_interface.get_signing_serializer(app).loads(cookie.value)


# --- the login initiation -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["POST", "GET"])
def test_the_login_sends_the_browser_to_the_platform_with_a_fresh_state_and_nonce(hosted, platform, method):
    client = browser(hosted)
    first, second = platform.begin_login(client, method), platform.begin_login(client, method)
    assert first.status_code == second.status_code == 302
    address = urlsplit(first.headers["Location"])
    assert f"{address.scheme}://{address.netloc}{address.path}" == platform.login_url
    sent = {name: values[0] for name, values in parse_qs(address.query).items()}
    assert {name: sent[name] for name in ("response_type", "response_mode", "scope", "prompt", "client_id",
                                          "redirect_uri", "login_hint", "lti_message_hint")} == {
        "response_type": "id_token", "response_mode": "form_post", "scope": "openid", "prompt": "none",
        "client_id": "webnb-client", "redirect_uri": TOOL + "/lti/launch", "login_hint": "hint-42",
        "lti_message_hint": "message+hint/ünï=1&x"}  # byte for byte
    again = {name: values[0] for name, values in parse_qs(urlsplit(second.headers["Location"]).query).items()}
    assert sent["state"] != again["state"] and sent["nonce"] != again["nonce"]
    # Signed by webnb, the nonce bound to the state: nothing is stored, and no cookie is needed for the launch.
    assert rows(hosted, "lti_logins") == []
    assert sent["state"] not in str(session_of(hosted, client))  # nothing of the login in the browser
    logins = hosted.extensions["webnb_lti"].logins
    assert (logins.read(sent["state"]).nonce, logins.read(again["state"]).nonce) == (sent["nonce"], again["nonce"])


@pytest.mark.parametrize("forged", ["state-", "state-[1, \"/\", 9999999999, \"x\"]", "no-prefix", "state-" + "A" * 80])
def test_a_state_webnb_did_not_sign_is_refused_as_state(hosted, platform, forged):
    client = browser(hosted)
    redirect = platform.begin_login(client)
    sent = parse_qs(urlsplit(redirect.headers["Location"]).query)
    response = platform.post_launch(client, forged, platform.sign(platform.claims(sent["nonce"][0])))
    assert response.status_code == 403
    assert BeautifulSoup(response.data, "html.parser").h1.get_text() == "The launch was refused: state"
    assert rows(hosted, "lti_logins") == [] and rows(hosted, "lti_users") == []


def test_a_state_signed_with_another_secret_is_refused_as_state(hosted, platform):
    from webnb.lti.adapter import LoginStates

    state, nonce = LoginStates("another secret").issue(1)
    response = platform.post_launch(browser(hosted), state, platform.sign(platform.claims(nonce)))
    assert response.status_code == 403
    assert BeautifulSoup(response.data, "html.parser").h1.get_text() == "The launch was refused: state"


def test_logins_by_the_hundred_with_ever_new_login_hints_store_nothing(hosted, platform):
    client = browser(hosted)
    assert {platform.begin_login(client, login_hint=f"hint-{n}").status_code for n in range(100)} == {302}
    assert rows(hosted, "lti_logins") == []


def test_a_login_to_a_long_address_sends_a_short_state_and_its_launch_lands_there(hosted, platform):
    lesson = "/corpora/spam-ham/inference?alpha=1&text=" + "free+prize+" * 400  # a long review in the address
    client = browser(hosted)
    redirect = platform.begin_login(client, target_link_uri=TOOL + lesson)
    sent = parse_qs(urlsplit(redirect.headers["Location"]).query)
    assert len(sent["state"][0]) < 200  # where the login leads is the token's claim, not the state's
    assert land(client, platform.launch(client, target_link_uri=TOOL + lesson)) == lesson
    (used,) = rows(hosted, "lti_logins")
    assert used[3] == TOOL + lesson  # the row kept for the launch says where it went


def test_a_login_without_a_client_id_finds_the_issuers_only_registration(hosted, platform):
    response = platform.begin_login(browser(hosted), client_id=DROP)
    assert response.status_code == 302
    assert parse_qs(urlsplit(response.headers["Location"]).query)["client_id"] == ["webnb-client"]


def test_logins_of_one_user_are_braked_past_their_limit_and_never_the_others_behind_the_same_address(tmp_path):
    from webnb import create_app

    app = create_app({"TESTING": True, "WEBNB_MODE": "hosted", "SECRET_KEY": HOSTED_SECRET,
                      "WEBNB_LTI_LOGIN_LIMIT": "2 per minute", "WTF_CSRF_ENABLED": False},
                     instance_path=str(tmp_path / "instance"))
    try:
        platform = FakePlatform().install(app)
        statuses = [platform.begin_login(browser(app)).status_code for _ in range(3)]
        assert statuses == [302, 302, 429]
        refused = platform.begin_login(browser(app))
        assert "This user of your LMS sent more requests" in refused.get_data(as_text=True)
        # The hall behind the same address is not braked by it: another user, and the same user elsewhere.
        assert platform.begin_login(browser(app), login_hint="hint-43").status_code == 302
        other = browser(app).post("/lti/login", data=platform.login_params(), headers=platform.cross_site(),
                                  base_url=TOOL, environ_base={"REMOTE_ADDR": "10.0.0.2"})
        assert other.status_code == 302
    finally:
        app.extensions["webnb"]["storage"].dispose()
        app.extensions["webnb"]["broker"].close()


@pytest.mark.parametrize(("changes", "status", "check"), [
    ({"iss": "https://elsewhere.example"}, 403, "registration"),
    ({"client_id": "someone-else"}, 403, "registration"),
    ({"iss": DROP}, 403, "registration"),
    ({"login_hint": DROP}, 400, "login hint"),
    ({"lti_deployment_id": "deployment-9"}, 403, "deployment"),
])
def test_a_login_webnb_cannot_answer_is_refused_and_stores_nothing(hosted, platform, changes, status, check):
    response = platform.begin_login(browser(hosted), **changes)
    assert response.status_code == status
    assert BeautifulSoup(response.data, "html.parser").h1.get_text() == f"The login was refused: {check}"
    assert rows(hosted, "lti_logins") == []


# --- the launch ---------------------------------------------------------------------------------------------------

def test_a_launch_lands_on_the_lesson_its_link_names_in_the_students_workspace(hosted, platform):
    client = browser(hosted)
    response = platform.launch(client, custom={"lesson": SPAM_LESSON})
    assert land(client, response) == SPAM_LESSON
    page = client.get(SPAM_LESSON, base_url=TOOL)
    assert page.status_code == 200 and b"lti-window" not in page.data
    (issuer, deployment, subject, workspace, *_), = rows(hosted, "lti_users")
    assert (issuer, deployment, subject) == (platform.issuer, "deployment-1", "student-1")
    assert session_of(hosted, client)["workspace"] == workspace
    (used,) = rows(hosted, "lti_logins")  # the login is used up: kept by the launch that passed every check
    assert used[0] == platform.last["state"] and used[-1] is not None


def test_a_target_link_uri_of_a_lesson_page_is_the_lesson_and_anything_else_the_home_page(hosted, platform):
    client = browser(hosted)
    assert land(client, platform.launch(client, target_link_uri=TOOL + SPAM_LESSON)) == SPAM_LESSON
    assert land(client, platform.launch(client, target_link_uri=TOOL + "/lti/launch")) == "/"
    assert land(client, platform.launch(client, target_link_uri="https://evil.example" + SPAM_LESSON)) == "/"
    assert land(client, platform.launch(client, custom={"lesson": "//evil.example/x"})) == "/"
    assert land(client, platform.launch(client, custom={"lesson": "/no/such/page"})) == "/"


def test_the_same_student_finds_the_same_workspace_at_every_launch_and_others_their_own(hosted, platform):
    first = browser(hosted)
    land(first, platform.launch(first))
    pasted = first.post("/corpora/paste", base_url=TOOL, data={
        "corpus": "spam\tfree prize now\nham\tlunch at noon\n", "name": "my own corpus"})
    assert pasted.status_code in (200, 303)
    later = browser(hosted)  # another computer, a week later
    land(later, platform.launch(later))
    assert "my own corpus" in later.get("/corpora", base_url=TOOL).get_data(as_text=True)
    other = browser(hosted)
    land(other, platform.launch(other, sub="student-2"))
    assert "my own corpus" not in other.get("/corpora", base_url=TOOL).get_data(as_text=True)
    assert len({row[3] for row in rows(hosted, "lti_users")}) == 2


def test_an_instructor_may_start_a_class_and_opens_in_presenter_mode_if_the_link_says_so(hosted, platform):
    student, lecturer = browser(hosted), browser(hosted)
    custom = {"lesson": SPAM_LESSON, "presenter": "1"}
    assert land(student, platform.launch(student, custom=custom)) == SPAM_LESSON
    assert land(lecturer, platform.launch(lecturer, sub="teacher-1", roles=(INSTRUCTOR,),
                                          custom=custom)) == SPAM_LESSON + "&presenter=1"
    assert session_of(hosted, lecturer).get("lti_instructor") is True
    assert "lti_instructor" not in session_of(hosted, student)
    started = lecturer.post("/classes", base_url=TOOL, data={"corpus": "spam-ham"})
    assert started.status_code == 200
    assert BeautifulSoup(started.data, "html.parser").title.get_text().endswith("has started · webnb")
    refused = student.post("/classes", base_url=TOOL, data={"corpus": "spam-ham"})
    assert refused.status_code == 404  # this server has no instructor key: students see no way to start


def test_an_audience_list_with_webnb_and_its_authorised_party_is_taken(hosted, platform):
    client = browser(hosted)
    response = platform.launch(client, aud=["another-tool", "webnb-client"], azp="webnb-client")
    assert land(client, response) == "/"


def test_a_key_the_platform_added_is_fetched_once_more_and_a_known_one_is_not(hosted, platform):
    client = browser(hosted)
    land(client, platform.launch(client))
    land(client, platform.launch(client))
    assert platform.keyset_requests == 1  # kept between launches
    platform.keys["platform-key-2"] = rsa_key("platform-2")  # a rotation at the platform
    land(client, platform.launch(client, kid="platform-key-2"))
    assert platform.keyset_requests == 2


# Each check a launch must pass: the token (or state) changed, the check the page names, and its status.
REFUSED = {
    "bad signature": ({"key": rsa_key("forger")}, "signature", 403),
    "unknown key": ({"kid": "no-such-key", "key": rsa_key("platform-1")}, "signature", 403),
    "wrong audience": ({"aud": "another-tool"}, "audience", 403),
    "audience list without webnb": ({"aud": ["another-tool", "third-tool"]}, "audience", 403),
    "audience list without azp": ({"aud": ["another-tool", "webnb-client"], "azp": DROP}, "audience", 403),
    "wrong azp": ({"azp": "another-tool"}, "audience", 403),
    "expired": ({"now": time.time() - 3600}, "expired", 403),
    "no expiry": ({"exp": DROP}, "expired", 403),
    "issued in the future": ({"iat": int(time.time()) + 3600, "exp": int(time.time()) + 7200}, "issued at", 403),
    "unknown deployment": ({"deployment_id": "deployment-9"}, "deployment", 403),
    "wrong nonce": ({"nonce": "not-the-one-sent"}, "nonce", 403),
    "wrong issuer": ({"iss": "https://elsewhere.example"}, "issuer", 403),
    "missing message type": ({"message_type": DROP}, "message", 400),
    "deep linking without settings": ({"message_type": "LtiDeepLinkingRequest"}, "message", 400),
    "submission review": ({"message_type": "LtiSubmissionReviewRequest"}, "message", 400),
    "wrong version": ({"version": "1.1"}, "message", 400),
    "no subject": ({"sub": DROP}, "message", 400),
    "no resource link": ({"resource_link": DROP}, "message", 400),
    "wrong state": ({"state": "state-webnb-never-sent"}, "state", 403),
    "not a token": ({"token": "not.a-jwt"}, "format", 400),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_launch_that_fails_a_check_is_refused_on_webnbs_page_naming_it_and_changes_nothing(hosted, platform,
                                                                                             case):
    changes, check, status = REFUSED[case]
    client = browser(hosted)
    if changes.get("nonce"):  # the claim's name clashes with nothing the helper takes: sign it by hand
        changes = {}
        redirect = platform.begin_login(client)
        state = parse_qs(urlsplit(redirect.headers["Location"]).query)["state"][0]
        response = platform.post_launch(client, state, platform.sign(platform.claims("not-the-one-sent")))
    else:
        response = platform.launch(client, **changes)
    assert response.status_code == status  # at once: no redirect
    page = BeautifulSoup(response.data, "html.parser")
    assert page.h1.get_text() == f"The launch was refused: {check}"
    assert f"the {check} check failed" in page.select_one(".refusal-note").get_text()
    assert rows(hosted, "lti_users") == [] and rows(hosted, "lti_tickets") == []
    assert rows(hosted, "lti_logins") == []  # the login is not used up
    assert "lti_instructor" not in session_of(hosted, client)  # an anonymous workspace, as any visitor's


def test_a_launch_posted_twice_is_refused_the_second_time_as_a_replay(hosted, platform):
    client = browser(hosted)
    land(client, platform.launch(client))
    replay = platform.post_launch(browser(hosted), platform.last["state"], platform.last["token"])
    assert replay.status_code == 403
    assert BeautifulSoup(replay.data, "html.parser").h1.get_text() == "The launch was refused: nonce"
    assert len(rows(hosted, "lti_tickets")) == 1 and len(rows(hosted, "lti_users")) == 1  # the first launch's


def test_a_forged_token_with_a_real_students_subject_reaches_none_of_their_corpora(hosted, platform):
    student = browser(hosted)
    land(student, platform.launch(student))
    student.post("/corpora/paste", base_url=TOOL, data={"corpus": "spam\tfree prize\nham\tlunch\n",
                                                        "name": "corpus of student one"})
    forger = browser(hosted)
    refused = platform.launch(forger, key=rsa_key("forger"))  # sub is student-1's
    assert refused.status_code == 403
    assert "corpus of student one" not in forger.get("/corpora", base_url=TOOL).get_data(as_text=True)
    assert "corpus of student one" in student.get("/corpora", base_url=TOOL).get_data(as_text=True)


def test_a_login_that_is_too_old_is_refused_as_state(hosted, platform, monkeypatch):
    from datetime import datetime, timedelta, timezone

    client = browser(hosted)
    redirect = platform.begin_login(client)
    sent = parse_qs(urlsplit(redirect.headers["Location"]).query)
    token = platform.sign(platform.claims(sent["nonce"][0]))
    later = datetime.now(timezone.utc) + timedelta(minutes=10, seconds=30)
    monkeypatch.setattr(hosted.extensions["webnb_lti"].logins, "clock", lambda: later)
    response = platform.post_launch(client, sent["state"][0], token)
    assert response.status_code == 403
    assert BeautifulSoup(response.data, "html.parser").h1.get_text() == "The launch was refused: state"
    assert "more than ten minutes ago" in response.get_data(as_text=True)


# --- in the LMS's iframe, without webnb's cookie ------------------------------------------------------------------

def test_in_an_iframe_without_cookies_the_lesson_shows_with_a_way_to_a_window_of_its_own(hosted, platform):
    framed = browser(hosted)
    response = platform.launch(framed, custom={"lesson": SPAM_LESSON})
    enter = urlsplit(response.headers["Location"]).path
    framed.delete_cookie(hosted.config["SESSION_COOKIE_NAME"], domain="webnb.test")  # blocked as third-party
    shown = framed.get(enter, base_url=TOOL, headers={"Sec-Fetch-Dest": "iframe"})
    assert shown.status_code == 303
    lesson = urlsplit(shown.headers["Location"])
    assert lesson.path == "/corpora/spam-ham/inference"
    ticket = enter.rsplit("/", 1)[1]
    assert parse_qs(lesson.query) == {"text": ["free prize"], "alpha": ["1"], "lti_window": [ticket]}
    page = BeautifulSoup(framed.get(shown.headers["Location"], base_url=TOOL).data, "html.parser")
    link = page.select_one(".lti-window a")
    assert link["href"] == enter and link["target"] == "_blank"
    assert page.select_one("main h1") is not None  # the lesson itself is there
    # The new window: a top-level visit, where webnb's cookie is first-party.
    window = browser(hosted)
    assert window.get(enter, base_url=TOOL, headers={"Sec-Fetch-Dest": "document"}).headers["Location"] == SPAM_LESSON
    assert session_of(hosted, window)["workspace"] == rows(hosted, "lti_users")[0][3]
    assert window.get(enter, base_url=TOOL).status_code == 410  # used up
    assert b"lti-window" not in framed.get(shown.headers["Location"], base_url=TOOL).data


def test_the_registered_platforms_may_frame_webnbs_pages_and_no_one_else(hosted):
    policy = browser(hosted).get("/", base_url=TOOL).headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy
    FakePlatform().install(hosted)
    hosted.extensions["webnb_lti"].frame_origins.forget()
    policy = browser(hosted).get("/", base_url=TOOL).headers["Content-Security-Policy"]
    assert "frame-ancestors 'self' https://lms.example.test;" in policy


# --- exempt from the cross-site and CSRF checks: these two routes, no other ---------------------------------------

def test_only_the_login_and_the_launch_take_cross_site_posts(tmp_path):
    from webnb import create_app

    app = create_app({"TESTING": True, "WEBNB_MODE": "hosted", "SECRET_KEY": HOSTED_SECRET,
                      "RATELIMIT_ENABLED": False}, instance_path=str(tmp_path / "instance"))  # CSRF on
    platform = FakePlatform().install(app)
    client = browser(app)
    assert platform.begin_login(client).status_code == 302  # no CSRF token, from another site
    assert platform.launch(client).status_code == 303
    posts = sorted({rule.rule for rule in app.url_map.iter_rules() if "POST" in rule.methods})
    assert len(posts) > 10
    for rule in posts:
        if rule in ("/lti/login", "/lti/launch"):
            continue
        address = rule.replace("<corpus_id>", "spam-ham").replace("<code>", "ABCDEF").replace("<int:number>", "1")
        address = address.replace("<path:typed>", "ABCDEF").replace("<token>", "t").replace("<job_id>", "j")
        answer = client.post(address, base_url=TOOL, headers=platform.cross_site())
        assert answer.status_code == 403, rule
    app.extensions["webnb"]["storage"].dispose()
    app.extensions["webnb"]["broker"].close()


# --- webnb's keys ---------------------------------------------------------------------------------------------------

def test_webnbs_key_set_publishes_its_signing_key_made_once(hosted):
    import jwt

    first = browser(hosted).get("/lti/jwks.json", base_url=TOOL).json
    again = browser(hosted).get("/lti/jwks.json", base_url=TOOL).json
    assert first == again and len(first["keys"]) == 1
    (key,) = first["keys"]
    assert (key["kty"], key["alg"], key["use"]) == ("RSA", "RS256", "sig")
    assert "d" not in key  # the public half only
    kid, pem = hosted.extensions["webnb_lti"].registry.keys()[0]
    signed = jwt.encode({"iss": "webnb"}, pem, algorithm="RS256", headers={"kid": kid})
    public = jwt.PyJWK(key).key
    assert key["kid"] == kid and jwt.decode(signed, public, algorithms=["RS256"]) == {"iss": "webnb"}


# --- deep linking: an instructor chooses the lesson the course links to ---------------------------------------------

def choose(client, platform, **claims):
    """An instructor's request to choose a lesson: the picker's address."""
    response = platform.launch(client, **platform.deep_linking_claims(**claims))
    assert response.status_code == 303, response.get_data(as_text=True)[:800]
    picker = urlsplit(response.headers["Location"]).path
    assert picker.startswith("/lti/pick/")
    return picker


def test_deep_linking_answers_the_course_with_a_signed_link_to_the_chosen_lesson(hosted, platform):
    import jwt

    client = browser(hosted)
    picker = choose(client, platform)
    page = BeautifulSoup(client.get(picker, base_url=TOOL).data, "html.parser")
    assert "spam-ham" in [option["value"] for option in page.select("select[name=corpus] option")]
    twin = client.get(picker, base_url=TOOL, headers={"Accept": "application/json"}).get_json()
    assert "spam-ham" in twin["corpora"] and "iris" not in twin["corpora"] and twin["pages"][3] == "inference"
    assert "iris" not in [option["value"] for option in page.select("select[name=corpus] option")]
    answer = client.get(picker + "/answer", base_url=TOOL, query_string={
        "corpus": "spam-ham", "page": "inference", "model": "bernoulli", "alpha": "0.5", "text": "free <prize>",
        "title": "", "presenter": "1"})
    assert answer.status_code == 200
    form = BeautifulSoup(answer.data, "html.parser").select_one("form[data-autosubmit]")
    assert form["action"] == platform.issuer + "/deep-link-return?course=1" and form["method"] == "post"
    assert "form-action 'self' https://lms.example.test" in answer.headers["Content-Security-Policy"]
    signed = form.select_one("input[name=JWT]")["value"]
    keys = jwt.PyJWKSet.from_dict(client.get("/lti/jwks.json", base_url=TOOL).json)
    kid = jwt.get_unverified_header(signed)["kid"]
    claims = jwt.decode(signed, keys[kid].key, algorithms=["RS256"], audience=platform.issuer)
    assert (claims["iss"], claims[CLAIM + "deployment_id"], claims[CLAIM + "version"],
            claims[CLAIM + "message_type"]) == ("webnb-client", "deployment-1", "1.3.0", "LtiDeepLinkingResponse")
    assert claims["nonce"] and claims["exp"] > claims["iat"]
    assert claims["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == "opaque-data-42"
    (item,) = claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    lesson = "/corpora/spam-ham/inference?model=bernoulli&alpha=0.5&text=free+%3Cprize%3E"
    assert item == {"type": "ltiResourceLink", "title": "Spam or ham: Bayes' rule", "url": TOOL + lesson,
                    "custom": {"lesson": lesson, "presenter": "1"}}
    assert "lineItem" not in item  # not graded
    assert client.get(picker + "/answer", base_url=TOOL, query_string={"corpus": "spam-ham"}).status_code == 410
    # The link launches a student onto that lesson.
    student = browser(hosted)
    assert land(student, platform.launch(student, custom=item["custom"], target_link_uri=item["url"])) == lesson


def test_a_choice_webnb_cannot_make_shows_the_picker_again_with_what_is_wrong(hosted, platform):
    client = browser(hosted)
    picker = choose(client, platform)
    answer = client.get(picker + "/answer", base_url=TOOL, query_string={
        "corpus": "no-such-corpus", "page": "inference", "model": "bernoulli", "alpha": "-1"})
    assert answer.status_code == 400
    page = BeautifulSoup(answer.data, "html.parser")
    assert [item.get_text().split(":")[0] for item in page.select(".errors li")] == ["corpus"]
    answer = client.get(picker + "/answer", base_url=TOOL, query_string={
        "corpus": "spam-ham", "page": "nowhere", "model": "bernoulli", "alpha": "-1"})
    assert [item.get_text().split(":")[0] for item in BeautifulSoup(answer.data, "html.parser").select(".errors li")
            ] == ["page", "alpha"]
    assert client.get(picker, base_url=TOOL).status_code == 200  # still open: nothing was sent


@pytest.mark.parametrize(("claims", "check"), [
    ({"roles": (LEARNER_ROLE,), "sub": "student-1"}, "role"),
    ({DEEP_LINKING_SETTINGS: {"deep_link_return_url": "https://lms.example.test/back", "accept_types": ["file"],
                              "accept_presentation_document_targets": ["iframe"]}}, "message"),
    ({DEEP_LINKING_SETTINGS: {"deep_link_return_url": "javascript:alert(1)", "accept_types": ["ltiResourceLink"],
                              "accept_presentation_document_targets": ["iframe"]}}, "message"),
])
def test_deep_linking_is_refused_to_a_student_and_for_content_webnb_does_not_make(hosted, platform, claims, check):
    response = platform.launch(browser(hosted), **platform.deep_linking_claims(**claims))
    assert response.status_code in (400, 403)
    assert BeautifulSoup(response.data, "html.parser").h1.get_text() == f"The launch was refused: {check}"
    assert rows(hosted, "lti_tickets") == []


# --- grades back to the course (AGS) --------------------------------------------------------------------------------

CHALLENGE_SLIDE = "/corpora/match-reviews/inference?model=multinomial&alpha=1&text=brilliant+match&step=decision"


def graded_class(hosted, platform, kind="challenge"):
    """A course's instructor starts a class and asks a challenge (or a tuning); a student launched from a graded
    activity joins it: (code, number, lecturer, student)."""
    lecturer, student = browser(hosted), browser(hosted)
    land(lecturer, platform.launch(lecturer, sub="teacher-1", roles=(INSTRUCTOR,)))
    corpus = "match-reviews" if kind == "challenge" else "spam-ham"
    assert lecturer.post("/classes", base_url=TOOL, data={"corpus": corpus}).status_code == 200
    (code,) = [row[0] for row in rows(hosted, "classes")]
    land(student, platform.launch(student, **platform.grading_claims()))
    assert student.get(f"/join/{code}", base_url=TOOL).status_code == 303
    question = ({"kind": "challenge", "address": CHALLENGE_SLIDE, "challenge": "class:positive"} if kind == "challenge"
                else {"kind": "tune", "address": "/corpora/spam-ham/evaluation?presenter=1"})
    asked = lecturer.post(f"/classes/{code}/questions", base_url=TOOL, data=question)
    assert asked.status_code == 303, asked.get_data(as_text=True)[:500]
    return code, int(asked.location.rsplit("/", 1)[1]), lecturer, student


def answer(client, code, number, text):
    answered = client.post(f"/classes/{code}/questions/{number}/answers", base_url=TOOL, data={"answer": text},
                           headers={"Accept": "application/json"})
    assert answered.status_code == 200, answered.get_data(as_text=True)[:500]
    return answered.get_json()


def test_a_challenge_met_by_a_launched_student_posts_one_score_to_the_course(hosted, platform):
    import jwt

    code, number, lecturer, student = graded_class(hosted, platform)
    assert answer(student, code, number, "match was not composed")["success"] is False
    assert rows(hosted, "lti_scores") == []  # nothing to grade yet
    assert answer(student, code, number, "brilliant match")["success"] is True
    assert platform.score_posts == []  # the student's page did not wait for the LMS
    courier = hosted.extensions["webnb_lti"].courier
    assert [result for _, result in courier.send_due()] == ["sent"]
    (token_request,) = platform.token_requests
    assert {name: token_request[name] for name in ("grant_type", "client_assertion_type", "scope")} == {
        "grant_type": "client_credentials",
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "scope": "https://purl.imsglobal.org/spec/lti-ags/scope/score"}
    keys = jwt.PyJWKSet.from_dict(browser(hosted).get("/lti/jwks.json", base_url=TOOL).json)
    assertion = token_request["client_assertion"]
    claims = jwt.decode(assertion, keys[jwt.get_unverified_header(assertion)["kid"]].key, algorithms=["RS256"],
                        audience=platform.token_url)
    assert claims["iss"] == claims["sub"] == "webnb-client"
    (posted,) = platform.score_posts
    assert posted["url"] == platform.lineitem_url + "/scores"
    assert posted["headers"]["Authorization"] == "Bearer token-1"
    assert posted["headers"]["Content-Type"] == "application/vnd.ims.lis.v1.score+json"
    body = posted["body"]
    assert {name: body[name] for name in ("userId", "scoreGiven", "scoreMaximum", "activityProgress",
                                          "gradingProgress")} == {
        "userId": "student-1", "scoreGiven": 10, "scoreMaximum": 10, "activityProgress": "Completed",
        "gradingProgress": "FullyGraded"}
    assert body["timestamp"].startswith("20")
    # The same success again is no new grade: one Score per student and column.
    answer(student, code, number, "brilliant match")
    assert courier.send_due() == [] and len(platform.score_posts) == 1
    assert [(score.state, score.tries) for score in hosted.extensions["webnb_lti"].registry.scores()] == [("sent", 1)]


def test_a_tuning_is_graded_by_its_alphas_held_out_accuracy_and_a_better_one_is_sent_again(hosted, platform):
    code, number, lecturer, student = graded_class(hosted, platform, "tune")
    courier = hosted.extensions["webnb_lti"].courier
    first = answer(student, code, number, "0")["accuracy"]
    courier.send_due()
    better = answer(student, code, number, "1")["accuracy"]
    assert 0 < first < better <= 1
    courier.send_due()
    answer(student, code, number, "0")  # a worse α later: the better grade stays
    assert courier.send_due() == []
    assert [post["body"]["scoreGiven"] for post in platform.score_posts] == [
        round(first * 10, 6), round(better * 10, 6)]


def test_a_score_the_platform_refuses_is_tried_again_with_growing_waits_at_most_five_times(hosted, platform):
    from datetime import datetime, timedelta, timezone

    code, number, lecturer, student = graded_class(hosted, platform)
    platform.failing_score_posts = 5
    answer(student, code, number, "brilliant match")
    courier, start = hosted.extensions["webnb_lti"].courier, datetime.now(timezone.utc)
    tried_at = []
    for minutes in (0, 0.25, 0.6, 1.6, 3.7, 7.8, 20):
        moment = start + timedelta(minutes=minutes)
        if courier.send_due(moment):
            tried_at.append(minutes)
    assert tried_at == [0, 0.6, 1.6, 3.7, 7.8]  # 30 s, then 1, 2 and 4 minutes between tries
    assert len(platform.score_posts) == 5
    (score,) = hosted.extensions["webnb_lti"].registry.scores()
    assert (score.state, score.tries) == ("failed", 5) and "503" in score.last_error
    # The instructor sees it failed, and why; a student does not see the page.
    page = BeautifulSoup(lecturer.get("/lti/grades", base_url=TOOL).data, "html.parser")
    assert page.select_one(".lti-grade-counts").get_text() == "0 sent · 0 waiting · 1 failed"
    assert "503" in page.select_one("tr.lti-grade-failed").get_text()
    twin = lecturer.get("/lti/grades", base_url=TOOL, query_string={"format": "json"}).get_json()
    assert twin["counts"] == {"waiting": 0, "sent": 0, "failed": 1}
    assert {name: twin["scores"][0][name] for name in ("student", "score_given", "state", "tries")} == {
        "student": "student-1", "score_given": 10, "state": "failed", "tries": 5}
    assert student.get("/lti/grades", base_url=TOOL).status_code == 403


def test_a_failure_then_a_success_sends_the_score_once(hosted, platform):
    from datetime import datetime, timedelta, timezone

    code, number, lecturer, student = graded_class(hosted, platform)
    platform.failing_score_posts = 1
    answer(student, code, number, "brilliant match")
    courier, start = hosted.extensions["webnb_lti"].courier, datetime.now(timezone.utc)
    assert courier.send_due(start)[0][1].startswith("There was an error")
    assert courier.send_due(start + timedelta(seconds=31)) == [(1, "sent")]
    assert [post["body"]["scoreGiven"] for post in platform.score_posts] == [10, 10]
    page = BeautifulSoup(lecturer.get("/lti/grades", base_url=TOOL).data, "html.parser")
    assert page.select_one(".lti-grade-counts").get_text() == "1 sent · 0 waiting · 0 failed"


def test_an_ungraded_launch_and_a_student_who_was_not_launched_post_no_score(hosted, platform):
    code, number, lecturer, student = graded_class(hosted, platform)
    land(student, platform.launch(student))  # the same student, now from an activity without a gradebook column
    answer(student, code, number, "brilliant match")
    anonymous = browser(hosted)
    assert anonymous.get(f"/join/{code}", base_url=TOOL).status_code == 303
    answer(anonymous, code, number, "brilliant match")
    assert rows(hosted, "lti_scores") == []


def test_a_graded_choice_asks_the_course_for_a_gradebook_column_worth_its_points(hosted, platform):
    import jwt

    client = browser(hosted)
    picker = choose(client, platform)
    wrong = client.get(picker + "/answer", base_url=TOOL, query_string={
        "corpus": "match-reviews", "page": "inference", "model": "multinomial", "alpha": "1", "graded": "1",
        "score_maximum": "0"})
    assert wrong.status_code == 400
    assert [item.get_text().split(":")[0] for item in BeautifulSoup(wrong.data, "html.parser").select(".errors li")
            ] == ["points"]
    answer = client.get(picker + "/answer", base_url=TOOL, query_string={
        "corpus": "match-reviews", "page": "inference", "model": "multinomial", "alpha": "1", "graded": "1",
        "score_maximum": "20", "title": "Beat the model"})
    signed = BeautifulSoup(answer.data, "html.parser").select_one("input[name=JWT]")["value"]
    claims = jwt.decode(signed, options={"verify_signature": False})
    (item,) = claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["lineItem"] == {"scoreMaximum": 20.0, "label": "Beat the model", "tag": "webnb"}
    assert item["custom"]["score_maximum"] == "20"


# --- a graded question of its own, answered outside any class -----------------------------------------------------

MATCH_LESSON = "/corpora/match-reviews/inference?model=multinomial&alpha=1"
SPAM_EVALUATION = "/corpora/spam-ham/evaluation?model=multinomial&alpha=1"


def linked_question(hosted, platform, **chosen):
    """An instructor adds a graded lesson with a question of its own: the resource link's custom parameters."""
    import jwt

    client = browser(hosted)
    picker = choose(client, platform)
    answer = client.get(picker + "/answer", base_url=TOOL, query_string={
        "model": "multinomial", "alpha": "1", "graded": "1", "score_maximum": "10", **chosen})
    assert answer.status_code == 200, answer.get_data(as_text=True)[:800]
    signed = BeautifulSoup(answer.data, "html.parser").select_one("input[name=JWT]")["value"]
    (item,) = jwt.decode(signed, options={"verify_signature": False})[
        "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    return item["custom"]


def launched_into(hosted, platform, custom, sub="student-1"):
    """A student launched from the graded link with ``custom``: their browser, on the page they landed on."""
    student = browser(hosted)
    landed = land(student, platform.launch(student, sub=sub, **platform.grading_claims(
        custom={"score_maximum": "10", **custom})))
    return student, landed


def said(element) -> str:
    """An element's text as a reader reads it: its words, one space apart."""
    return " ".join(element.get_text().split())


def activity_answer(client, text):
    return client.post("/lti/activity/answers", base_url=TOOL, data={"answer": text})


def test_a_challenge_of_its_own_is_answered_alone_and_its_success_graded(hosted, platform):
    custom = linked_question(hosted, platform, corpus="match-reviews", page="inference",
                             question="challenge:class", target="positive")
    assert custom == {"lesson": MATCH_LESSON, "score_maximum": "10", "question": "challenge:class:positive"}
    student, landed = launched_into(hosted, platform, custom)
    assert landed == "/lti/activity"
    page = BeautifulSoup(student.get(landed, base_url=TOOL).data, "html.parser")
    assert page.h1.get_text() == "Type a review that the model classifies as positive."
    assert page.select_one("#activity-lesson")["href"] == MATCH_LESSON
    assert said(page.select_one("#activity-grade")).startswith("No grade yet")
    # A review that fails: said, and no grade.
    assert activity_answer(student, "match was not composed").status_code == 303
    page = BeautifulSoup(student.get(landed, base_url=TOOL).data, "html.parser")
    assert page.select_one("#own-answer .answer-failure") is not None
    assert page.select_one("#step-by-step")["href"] == MATCH_LESSON + "&text=match+was+not+composed"
    assert rows(hosted, "lti_scores") == []
    # One that works: the full points, sent in the background.
    answered = student.post("/lti/activity/answers", base_url=TOOL, data={"answer": "brilliant <b>match</b>"},
                            headers={"Accept": "application/json"}).get_json()
    assert answered == {"answer": "brilliant <b>match</b>", "success": True, "accuracy": None}
    twin = student.get(landed, base_url=TOOL, headers={"Accept": "application/json"}).get_json()
    assert twin["grade"] == {"score_given": 10, "score_maximum": 10, "state": "waiting"}
    assert twin["last_answer"]["success"] is True and twin["answering"] is True
    assert [result for _, result in hosted.extensions["webnb_lti"].courier.send_due()] == ["sent"]
    (posted,) = platform.score_posts
    assert (posted["body"]["userId"], posted["body"]["scoreGiven"]) == ("student-1", 10)
    html = student.get(landed, base_url=TOOL).get_data(as_text=True)
    assert "<b>match</b>" not in html and "brilliant &lt;b&gt;match&lt;/b&gt;" in html
    page = BeautifulSoup(html, "html.parser")
    assert said(page.select_one("#activity-grade")).startswith(
        "Your grade for the course: 10 of 10 · in your course's gradebook")
    assert page.select_one("#own-answer .answer-success") is not None


@pytest.mark.parametrize("goal", ["cannot-decide", "flips"])
def test_the_other_challenges_of_their_own_are_checked_as_a_class_checks_them(hosted, platform, goal):
    custom = linked_question(hosted, platform, corpus="match-reviews", page="inference",
                             question=f"challenge:{goal}")
    assert custom["question"] == f"challenge:{goal}"
    student, landed = launched_into(hosted, platform, custom)
    twin = student.get(landed, base_url=TOOL, headers={"Accept": "application/json"}).get_json()
    assert twin["activity"] == {"kind": "challenge", "address": MATCH_LESSON, "goal": goal, "target": None}
    # "keeper not": each class lacks one of the words, so at α = 0 both get probability 0. "match was sharp" is
    # negative at α = 0 and positive at α = 1 (the seeds' example). "brilliant" is positive at any α.
    met = {"cannot-decide": "keeper not", "flips": "match was sharp"}[goal]
    for review, success in (("brilliant", False), (met, True)):
        answered = student.post("/lti/activity/answers", base_url=TOOL, data={"answer": review},
                                headers={"Accept": "application/json"}).get_json()
        assert answered["success"] is success
        assert len(rows(hosted, "lti_scores")) == success


def test_a_tuning_of_its_own_is_graded_by_the_accuracy_the_evaluation_page_shows(hosted, platform):
    custom = linked_question(hosted, platform, corpus="spam-ham", page="evaluation", question="tune")
    assert custom["lesson"] == SPAM_EVALUATION and custom["question"] == "tune"
    student, landed = launched_into(hosted, platform, custom)
    page = BeautifulSoup(student.get(landed, base_url=TOOL).data, "html.parser")
    assert page.h1.get_text() == "Find the α with the best held-out accuracy."
    courier, posted = hosted.extensions["webnb_lti"].courier, []
    for typed, alpha in (("0", "0"), ("0,5", "0.5")):  # a decimal comma reads as the pages read it
        shown = browser(hosted).get(SPAM_EVALUATION.replace("alpha=1", f"alpha={alpha}") + "&format=json",
                                    base_url=TOOL).get_json()["accuracy"]
        answered = student.post("/lti/activity/answers", base_url=TOOL, data={"answer": typed},
                                headers={"Accept": "application/json"}).get_json()
        assert (answered["answer"], answered["accuracy"]) == (alpha, shown)
        courier.send_due()
        posted.append(round(shown * 10, 6))
    assert posted == [2.5, 10]  # 1 of 4 test documents at α = 0, all 4 at α = 0.5: the better grade goes again
    assert [post["body"]["scoreGiven"] for post in platform.score_posts] == posted
    page = BeautifulSoup(student.get(landed, base_url=TOOL).data, "html.parser")
    assert said(page.select_one("#own-answer")).startswith("Your last answer: 0.5 gives")


@pytest.mark.corpora
@pytest.mark.slow
def test_a_tuning_of_its_own_on_twenty_newsgroups_counts_in_the_background_then_scores_as_the_evaluation_page(
        hosted, platform, shared_corpora, tmp_path):
    from conftest import publish_lecture_corpora

    (tmp_path / "lecture").mkdir()
    publish_lecture_corpora(hosted, shared_corpora, tmp_path / "lecture")
    custom = linked_question(hosted, platform, corpus="newsgroups-4", page="evaluation", question="tune")
    student, landed = launched_into(hosted, platform, custom)
    jobs = hosted.extensions["webnb"]["jobs"]
    shown = student.get(landed, base_url=TOOL)
    counted = 0
    while shown.status_code == 202:  # the corpus, then its held-out split, counted by background jobs
        job = BeautifulSoup(shown.data, "html.parser").find(id="job")["hx-get"].rsplit("/", 1)[1]
        assert jobs.wait(job, timeout=300).state == "done"
        counted += 1
        shown = student.get(landed, base_url=TOOL)
    assert shown.status_code == 200 and counted >= 1
    assert BeautifulSoup(shown.data, "html.parser").h1.get_text() == "Find the α with the best held-out accuracy."
    evaluation = student.get(custom["lesson"].replace("alpha=1", "alpha=0.1") + "&format=json",
                             base_url=TOOL).get_json()
    answered = student.post("/lti/activity/answers", base_url=TOOL, data={"answer": "0.1"},
                            headers={"Accept": "application/json"}).get_json()
    assert answered["accuracy"] == evaluation["accuracy"] and 0.5 < answered["accuracy"] < 1
    assert student.get("/lti/activity/answers", base_url=TOOL).headers["Location"] == "/lti/activity"


def test_an_answer_the_activity_cannot_take_is_said_on_its_page_and_counts_for_nothing(hosted, platform):
    custom = linked_question(hosted, platform, corpus="spam-ham", page="evaluation", question="tune")
    student, landed = launched_into(hosted, platform, custom)
    refused = activity_answer(student, "minus one")
    assert refused.status_code == 400
    page = BeautifulSoup(refused.data, "html.parser")
    assert page.select_one("#answer-refused strong").get_text() == "Not a value of α."
    assert page.select_one("#answer-alpha")["value"] == "minus one"
    too_long = activity_answer(student, "1" * 1001)
    assert too_long.status_code == 400 and "at most 1,000 characters" in too_long.get_data(as_text=True)
    assert rows(hosted, "lti_scores") == []
    assert student.get(landed, base_url=TOOL, query_string={"format": "json"}).get_json()["last_answer"] is None


def test_only_a_student_launched_into_a_question_of_its_own_has_one(hosted, platform):
    anonymous = browser(hosted)
    assert anonymous.get("/lti/activity", base_url=TOOL).status_code == 404
    assert activity_answer(anonymous, "1").status_code == 404
    custom = linked_question(hosted, platform, corpus="spam-ham", page="evaluation", question="tune")
    # An instructor of the same link lands on its lesson, and sees the question as the students do, not answering.
    teacher = browser(hosted)
    landed = land(teacher, platform.launch(teacher, sub="teacher-1", roles=(INSTRUCTOR,),
                                           **platform.grading_claims(custom=custom)))
    assert landed == SPAM_EVALUATION
    lesson = BeautifulSoup(teacher.get(landed, base_url=TOOL).data, "html.parser")
    assert lesson.select_one(".site-nav a[href='/lti/activity']").get_text() == "Question"
    page = BeautifulSoup(teacher.get("/lti/activity", base_url=TOOL).data, "html.parser")
    assert page.h1.get_text() == "Find the α with the best held-out accuracy."
    assert page.select_one("form.answer-form") is None
    assert said(page.select_one("#activity-read-only")).startswith("Your students see this question")
    twin = teacher.get("/lti/activity", base_url=TOOL, query_string={"format": "json"}).get_json()
    assert (twin["answering"], twin["previewing"], twin["grade"]) == (False, True, None)
    assert activity_answer(teacher, "1").status_code == 403
    assert rows(hosted, "lti_scores") == []
    # A student's later launch of an ungraded link forgets the question.
    student, landed = launched_into(hosted, platform, custom)
    assert landed == "/lti/activity"
    land(student, platform.launch(student))
    assert student.get("/lti/activity", base_url=TOOL).status_code == 404
    # A question webnb does not ask, or one that names no class of the corpus, is no activity.
    for question in ("challenge:class", "guess", "challenge:cannot-decide:x", "tune:now"):
        assert launched_into(hosted, platform, {"lesson": MATCH_LESSON, "question": question})[1] == MATCH_LESSON
    student, landed = launched_into(hosted, platform, {"lesson": MATCH_LESSON, "question": "challenge:class:spam"})
    assert student.get(landed, base_url=TOOL).status_code == 400


def test_the_picker_refuses_a_question_it_cannot_ask(hosted, platform):
    client = browser(hosted)
    picker = choose(client, platform)
    base = {"corpus": "match-reviews", "page": "inference", "model": "multinomial", "alpha": "1"}
    for chosen, message in [
            ({"graded": "1", "question": "challenge:class", "target": "spam"},
             "question: Name the class the review should be put in: one of negative, positive."),
            ({"question": "tune"}, "question: A question of its own is graded: tick “graded”, or choose no question."),
            ({"graded": "1", "question": "guess"}, "question: Choose one of the questions listed.")]:
        answer = client.get(picker + "/answer", base_url=TOOL, query_string={**base, **chosen})
        assert answer.status_code == 400
        assert [item.get_text() for item in BeautifulSoup(answer.data, "html.parser").select(".errors li")] == [
            message]
    twin = client.get(picker, base_url=TOOL, headers={"Accept": "application/json"}).get_json()
    assert twin["questions"] == ["challenge:class", "challenge:cannot-decide", "challenge:flips", "tune"]


def test_in_an_iframe_without_cookies_the_question_shows_to_read_and_the_window_answers_it(hosted, platform):
    custom = linked_question(hosted, platform, corpus="match-reviews", page="inference",
                             question="challenge:class", target="negative")
    framed = browser(hosted)
    launched = platform.launch(framed, **platform.grading_claims(custom={"score_maximum": "10", **custom}))
    framed.delete_cookie(hosted.config["SESSION_COOKIE_NAME"], domain="webnb.test")  # the cookie is not kept
    entered = framed.get(urlsplit(launched.headers["Location"]).path, base_url=TOOL,
                         headers={"Sec-Fetch-Dest": "iframe"})
    where = urlsplit(entered.headers["Location"])
    assert where.path == "/lti/activity"
    page = BeautifulSoup(framed.get(entered.headers["Location"], base_url=TOOL).data, "html.parser")
    assert page.h1.get_text() == "Type a review that the model classifies as negative."
    assert page.select_one("form.answer-form") is None and page.select_one("#activity-read-only") is not None
    window = page.select_one(".lti-window a")["href"]
    opened = browser(hosted)
    assert opened.get(window, base_url=TOOL).headers["Location"] == "/lti/activity"
    page = BeautifulSoup(opened.get("/lti/activity", base_url=TOOL).data, "html.parser")
    assert page.select_one("form.answer-form") is not None and page.select_one(".lti-window") is None


# --- the course's members (NRPS), for its instructor ----------------------------------------------------------------

def test_the_roster_shows_the_courses_members_beside_who_joined_and_answered_never_on_the_projector(hosted, platform):
    platform.members = [
        {"user_id": "student-1", "name": "Ada <Lovelace>", "roles": [LEARNER_ROLE], "status": "Active"},
        {"user_id": "student-2", "name": "Grace Hopper", "roles": [LEARNER_ROLE], "status": "Active"},
        {"user_id": "teacher-1", "name": "Alan Turing", "roles": [INSTRUCTOR], "status": "Active"},
    ]
    lecturer, student = browser(hosted), browser(hosted)
    land(lecturer, platform.launch(lecturer, sub="teacher-1", roles=(INSTRUCTOR,), **platform.roster_claims()))
    before = BeautifulSoup(lecturer.get("/lti/roster", base_url=TOOL).data, "html.parser")
    assert [row.select("td")[0].get_text() for row in before.select("table.lti-roster tbody tr")] == [
        "Ada <Lovelace>", "Grace Hopper", "Alan Turing"]  # escaped, as text
    assert "No class is running" in before.select_one(".lti-roster-counts").get_text()
    assert lecturer.post("/classes", base_url=TOOL, data={"corpus": "match-reviews"}).status_code == 200
    (code,) = [row[0] for row in rows(hosted, "classes")]
    land(student, platform.launch(student))
    student.get(f"/join/{code}", base_url=TOOL)
    anonymous = browser(hosted)
    anonymous.get(f"/join/{code}", base_url=TOOL)
    asked = lecturer.post(f"/classes/{code}/questions", base_url=TOOL,
                          data={"kind": "challenge", "address": CHALLENGE_SLIDE, "challenge": "class:positive"})
    number = int(asked.location.rsplit("/", 1)[1])
    answer(student, code, number, "brilliant match")
    page = BeautifulSoup(lecturer.get("/lti/roster", base_url=TOOL).data, "html.parser")
    assert [[cell.get_text() for cell in row.select("td")] for row in page.select("table.lti-roster tbody tr")] == [
        ["Ada <Lovelace>", "Learner", "yes", "1"], ["Grace Hopper", "Learner", "no", "0"],
        ["Alan Turing", "Instructor", "no", "0"]]
    assert page.select_one(".lti-roster-counts").get_text() == (
        f"Class {code}: 1 of 3 members joined, and 1 more not launched from the course.")
    twin = lecturer.get("/lti/roster", base_url=TOOL, headers={"Accept": "application/json"}).get_json()
    assert (twin["class"], twin["others"], twin["members"][0]) == (code, 1, {
        "name": "Ada <Lovelace>", "roles": ["Learner"], "status": "Active", "joined": True, "answered": 1})
    token = platform.token_requests[-1]
    assert token["scope"] == "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
    assert platform.roster_requests[-1]["Accept"] == "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
    # Never on the projector: the class's own pages carry no member's name.
    for address in (f"/classes/{code}/questions/{number}", f"/classes/{code}/questions/{number}/tally",
                    CHALLENGE_SLIDE + "&presenter=1"):
        shown = lecturer.get(address, base_url=TOOL).get_data(as_text=True)
        assert "Lovelace" not in shown and "Grace Hopper" not in shown, address
    # Only the course's instructor reads it.
    assert student.get("/lti/roster", base_url=TOOL).status_code == 403
    assert browser(hosted).get("/lti/roster", base_url=TOOL).status_code == 403


def test_a_course_without_the_roster_service_says_how_to_turn_it_on(hosted, platform):
    lecturer = browser(hosted)
    land(lecturer, platform.launch(lecturer, sub="teacher-1", roles=(INSTRUCTOR,)))
    answer_page = lecturer.get("/lti/roster", base_url=TOOL)
    assert answer_page.status_code == 404
    assert "Names and Role Provisioning Service" in answer_page.get_data(as_text=True)


def test_a_tuning_scored_in_the_background_is_graded_when_its_score_is_known(hosted, platform, monkeypatch):
    """A large corpus's held-out set is counted by a background job: the answer waits, then is graded."""
    import threading

    import webnb.hosting.catalog

    monkeypatch.setattr("webnb.room.questions.LARGE_CORPUS", 0)  # spam-ham counts as large here
    release, counted = threading.Event(), webnb.hosting.catalog.hold_out

    def held_until_released(*args, **kwargs):  # the job's count waits for the test, at this named point
        if threading.current_thread().name.startswith("webnb-job-"):
            release.wait()
        return counted(*args, **kwargs)

    monkeypatch.setattr(webnb.hosting.catalog, "hold_out", held_until_released)
    jobs, started = hosted.extensions["webnb"]["jobs"], []
    start = jobs.start
    monkeypatch.setattr(jobs, "start", lambda *args, **kwargs: started.append(start(*args, **kwargs)) or started[-1])
    code, number, lecturer, student = graded_class(hosted, platform, "tune")
    try:
        assert answer(student, code, number, "1")["pending"] is True
        assert hosted.extensions["webnb_lti"].registry.scores() == []  # nothing to grade yet
    finally:
        release.set()
    (job,) = started
    jobs.wait(job.id, timeout=120)
    (score,) = hosted.extensions["webnb_lti"].registry.scores()
    accuracy = lecturer.get("/corpora/spam-ham/evaluation", base_url=TOOL,
                            query_string={"alpha": "1", "format": "json"}).get_json()["accuracy"]
    assert (score.score_given, score.state) == (round(accuracy * 10, 6), "waiting")
