"""An LTI launch as a course shows it: the LMS's page (another site) holds webnb in an iframe, the browser blocks
third-party cookies, and the launch still lands on the lesson; "Open in a new window" then opens it as webnb's own
site, where the student's workspace cookie is kept.

The fake LMS is served over real HTTP at http://127.0.0.1:PORT and webnb at http://localhost:PORT: two sites, so
webnb inside the LMS's page is a third party. Chromium's cookie controls are set to block third-party cookies, and a
probe shows that they are blocked: a cookie the iframe's site sets (SameSite=None) is not kept.
"""
from __future__ import annotations

import html
import re
from contextlib import contextmanager
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import HOSTED_SECRET, serving
from playwright.sync_api import expect
from werkzeug.wrappers import Request, Response

from browser.slides import axe_problems
from webnb import create_app

pytest.importorskip("pylti1p3", reason="the LTI extra is not installed (pip install -e '.[lti]')")
from lti_platform import FakePlatform  # noqa: E402  (after the skip: it needs the extra's PyJWT)

pytestmark = pytest.mark.browser

LESSON = "/corpora/spam-ham/inference?text=free+prize&alpha=1"


def auto_post(action: str, fields: dict) -> Response:
    """A page that posts ``fields`` to ``action`` as soon as it loads, as an LMS's pages do."""
    inputs = "".join(f'<input type="hidden" name="{html.escape(name)}" value="{html.escape(value)}">'
                     for name, value in fields.items())
    return Response(f'<!doctype html><form method="post" action="{html.escape(action)}">{inputs}</form>'
                    "<script>document.forms[0].submit()</script>", mimetype="text/html")


class LivePlatform(FakePlatform):
    """The fake LMS, served: a course page holding webnb in an iframe, the page that begins the login, and its
    authorisation address, which answers with the signed launch."""

    def __init__(self, issuer: str, tool: str):
        super().__init__(issuer=issuer)
        self.tool = tool
        self.next_claims: dict = {"custom": {"lesson": LESSON}}  # what the next launch's token says

    def __call__(self, environ, start_response):
        return self.wsgi(environ, start_response)

    @Request.application
    def wsgi(self, request):
        if request.path == "/course":
            return Response(
                '<!doctype html><link rel="icon" href="data:,"><title>Machine learning 101</title>'
                "<h1>Machine learning 101: week 3</h1>"
                f'<iframe name="tool" src="/start" width="1000" height="600"></iframe>'
                f'<iframe name="probe" src="{request.host_url.replace("127.0.0.1", "localhost")}probe"></iframe>',
                mimetype="text/html")
        if request.path == "/probe":  # on webnb's site (localhost), a cookie only a third party would keep
            probe = Response("probe sent", mimetype="text/plain")
            probe.set_cookie("probe", "1", samesite="None", secure=True)
            return probe
        if request.path == "/start":
            return auto_post(self.tool + "/lti/login", {
                "iss": self.issuer, "login_hint": "hint-42", "target_link_uri": self.tool + "/lti/launch",
                "client_id": self.client_id, "lti_deployment_id": self.deployment_id})
        if request.path == "/auth":
            asked = request.args
            token = self.sign(self.claims(asked["nonce"], **self.next_claims))
            return auto_post(asked["redirect_uri"], {"id_token": token, "state": asked["state"]})
        return Response("not here", status=404)


@pytest.fixture()
def hosted_webnb(tmp_path):
    app = create_app({"TESTING": True, "WEBNB_MODE": "hosted", "SECRET_KEY": HOSTED_SECRET,
                      "WEBNB_COOKIE_SECURE": False, "RATELIMIT_ENABLED": False,
                      "WEBNB_LTI_GRADES_IN_BACKGROUND": False},
                     instance_path=str(tmp_path / "instance"))
    yield app
    app.extensions["webnb"]["storage"].dispose()


@contextmanager
def an_lms_and_webnb(app):
    """webnb served at http://localhost:PORT and the fake LMS at http://127.0.0.1:PORT (two sites), the LMS
    registered with webnb: (webnb's address, the LMS, the LMS's address)."""
    with serving(app) as webnb_url:
        tool = webnb_url.replace("://127.0.0.1:", "://localhost:")
        platform = LivePlatform("http://127.0.0.1:0", tool)  # the port is known once it is served
        with serving(platform) as platform_url:
            platform.issuer = platform_url
            platform.install(app)
            app.extensions["webnb_lti"].frame_origins.forget()
            yield tool, platform, platform_url


@contextmanager
def in_a_course(app, new_browsing, **claims):
    """The fake LMS's course page, holding webnb in an iframe with third-party cookies blocked, launched with
    ``claims`` (else the lesson's): (the page, its browsing context, webnb's address as the iframe's site)."""
    with an_lms_and_webnb(app) as (tool, platform, platform_url):
        if claims:
            platform.next_claims = claims
        browsing = new_browsing()
        page = browsing.new_page()
        controls = browsing.context.new_cdp_session(page)
        controls.send("Network.setCookieControls", {
            "enableThirdPartyCookieRestriction": True, "disableThirdPartyCookieMetadata": True,
            "disableThirdPartyCookieHeuristics": True})
        page.goto(platform_url + "/course")
        yield page, browsing, tool


def test_a_launch_in_the_lmss_iframe_with_third_party_cookies_blocked_lands_on_the_lesson(
        hosted_webnb, new_browsing, shot):
    with in_a_course(hosted_webnb, new_browsing) as (page, browsing, tool):
        tool_frame = page.frame_locator("iframe[name=tool]")
        expect(tool_frame.locator(".lti-window")).to_be_visible()
        expect(tool_frame.locator("main h1").first).to_be_visible()
        shot(page, "lti-launch-in-iframe", full_page=False)
        landed = urlsplit(page.frame(name="tool").url)
        assert (landed.netloc, landed.path) == (urlsplit(tool).netloc, "/corpora/spam-ham/inference")
        assert parse_qs(landed.query)["text"] == ["free prize"]
        # Nothing of webnb's site is kept while it is a third party: not the probe, not webnb's session.
        expect(page.frame_locator("iframe[name=probe]").locator("body")).to_have_text("probe sent")
        assert [cookie["name"] for cookie in browsing.context.cookies(tool)] == []
        # Moving inside the iframe keeps the way to a window of its own.
        tool_frame.locator(".site-nav").get_by_role("link", name="Corpora").click()
        expect(tool_frame.locator("main h1").first).to_have_text("Corpora")
        moved = urlsplit(page.frame(name="tool").url)
        assert moved.path == "/corpora" and "lti_window" in parse_qs(moved.query)
        expect(tool_frame.locator(".lti-window")).to_be_visible()
        with browsing.context.expect_page() as opened:
            tool_frame.get_by_role("link", name="Open in a new window").click()
        window = opened.value
        window.wait_for_url(re.compile(r"/corpora/spam-ham/inference\?"))
        assert window.url == tool + LESSON
        expect(window.locator(".lti-window")).to_have_count(0)
        shot(window, "lti-launch-own-window", full_page=False)
        kept = [cookie["name"] for cookie in browsing.context.cookies(tool)]
        assert kept == [hosted_webnb.config["SESSION_COOKIE_NAME"]]
        assert browsing.errors == []


def test_a_question_of_its_own_in_the_lmss_iframe_shows_to_read_and_is_answered_in_a_window_of_its_own(
        hosted_webnb, new_browsing, shot):
    claims = FakePlatform().grading_claims(custom={
        "score_maximum": "10", "lesson": "/corpora/match-reviews/inference?model=multinomial&alpha=1",
        "question": "challenge:cannot-decide"})
    with in_a_course(hosted_webnb, new_browsing, **claims) as (page, browsing, tool):
        tool_frame = page.frame_locator("iframe[name=tool]")
        question = "Type a review that the model cannot decide at α = 0: every class gets probability 0."
        expect(tool_frame.get_by_role("heading", name=question)).to_be_visible()
        expect(tool_frame.locator("#activity-read-only")).to_be_visible()
        expect(tool_frame.locator("form.answer-form")).to_have_count(0)
        shot(page, "lti-activity-in-iframe", full_page=False)
        with browsing.context.expect_page() as opened:
            tool_frame.get_by_role("link", name="Open in a new window").click()
        window = opened.value
        window.wait_for_url(re.compile(r"/lti/activity$"))
        window.get_by_label("Your review").fill("keeper not")
        window.get_by_role("button", name="Send").click()
        expect(window.locator("#own-answer .answer-success")).to_be_visible()
        expect(window.locator("#activity-grade")).to_contain_text("10 of 10 · on its way to your course")
        shot(window, "lti-activity-own-window", full_page=False)
        assert browsing.errors == []


SIZES = {"projector": {"width": 1024, "height": 768}, "phone": {"width": 390, "height": 844}}


def answered_in_full(page, review: str) -> None:
    """Send ``review`` as the answer to the question on ``page``, which meets it: full points, on their way."""
    page.get_by_label("Your review").fill(review)
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#own-answer .answer-success")).to_be_visible()
    expect(page.locator("#activity-grade")).to_contain_text("10 of 10 · on its way to your course")


@pytest.mark.parametrize("size", list(SIZES))
def test_the_instructors_pages_fit_a_projector_and_a_phone(hosted_webnb, new_browsing, shot, size):
    """The picker (deep linking), the grades and the members of a course, at 1024 × 768 and on a 390 × 844 phone:
    nothing wider than the screen, the members' names escaped."""
    from lti_platform import INSTRUCTOR

    with an_lms_and_webnb(hosted_webnb) as (tool, platform, platform_url):
        platform.members = [{"user_id": f"student-{n}", "name": f"Student <{n}> with a rather long name",
                             "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]}
                            for n in range(1, 6)]
        browsing = new_browsing()
        page = browsing.new_page()
        page.set_viewport_size(SIZES[size])

        def launched(**claims):  # a launch in a window of its own (top level)
            platform.next_claims = claims
            page.goto(platform_url + "/start")
            page.wait_for_url(re.compile(r"^" + re.escape(tool)))

        def fits(name: str) -> None:
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), name
            assert axe_problems(page, name, ("",)) == []  # no serious problem, contrast ≥ 4.5 : 1
            shot(page, f"lti-{name}-{size}")

        launched(**platform.deep_linking_claims())
        expect(page.get_by_role("heading", name="Choose a lesson for your course")).to_be_visible()
        fits("picker")
        # The instructor of a graded question of its own: the header links the question, the members, the grades.
        launched(sub="teacher-1", roles=[INSTRUCTOR], **platform.roster_claims(), **platform.grading_claims(
            custom={"score_maximum": "10", "lesson": "/corpora/spam-ham/evaluation", "question": "tune"}))
        expect(page.locator(".site-nav a")).to_have_text(["Corpora", "Question", "Course members", "Grades"])
        page.goto(tool + "/lti/roster")
        expect(page.locator("table.lti-roster tbody tr")).to_have_count(5)
        expect(page.locator("table.lti-roster tbody tr").first).to_contain_text("Student <1> with a rather")
        fits("roster")
        page.goto(tool + "/lti/grades")
        expect(page.locator(".lti-grade-counts")).to_have_text("0 sent · 0 waiting · 0 failed")
        fits("grades")
        # A student's graded question of its own: answered, graded, and said so.
        launched(**platform.grading_claims(custom={
            "score_maximum": "10", "lesson": "/corpora/match-reviews/inference?model=multinomial&alpha=1",
            "question": "challenge:class:positive"}))
        expect(page.get_by_role("heading", name="Type a review that the model classifies as positive.")
               ).to_be_visible()
        answered_in_full(page, "brilliant match")
        fits("activity")
        assert browsing.errors == []


@pytest.mark.parametrize("size", list(SIZES))
def test_a_question_on_twenty_classes_fits_a_projector_and_a_phone(hosted_webnb, new_browsing, shot, size):
    """A student's question of its own on a lesson with 20 Newsgroups' twenty classes (long names): the question,
    the answer and the grade fit the screen, and the class it asks for is named as the corpus names it."""
    from webnb.engine.shared.corpus import Corpus
    from webnb.lesson.state import counting_options
    from webnb.store.database import PublishedCorpus

    from .test_first_screen import NEWSGROUPS

    corpus = Corpus.from_pairs([(group, f"{group.replace('.', ' ')} post {n}") for group in NEWSGROUPS
                                for n in range(3)], name="Twenty groups")
    presets = (("model", "multinomial"), ("alpha", "1"))
    hosted_webnb.extensions["webnb"]["catalog"].publish(
        [PublishedCorpus("twenty-groups", "Twenty groups", "", "test", presets, corpus)],
        [counting_options(presets, len(corpus))])
    with an_lms_and_webnb(hosted_webnb) as (tool, platform, platform_url):
        platform.next_claims = platform.grading_claims(custom={
            "score_maximum": "10", "lesson": "/corpora/twenty-groups/inference?model=multinomial&alpha=1",
            "question": "challenge:class:comp.os.ms-windows.misc"})
        browsing = new_browsing()
        page = browsing.new_page()
        page.set_viewport_size(SIZES[size])
        page.goto(platform_url + "/start")
        page.wait_for_url(re.compile(r"/lti/activity$"))
        expect(page.get_by_role("heading", name="Type a review that the model classifies as "
                                                "comp.os.ms-windows.misc.")).to_be_visible()
        answered_in_full(page, "windows misc")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert axe_problems(page, "twenty classes", ("",)) == []
        shot(page, f"lti-activity-twenty-classes-{size}")
        assert browsing.errors == []
