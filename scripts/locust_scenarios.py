"""Students of the lecture scenarios of issue 12, for locust; scripts/loadtest.py runs them (``--scenario a|b|c|d``).

The lecture is set up before the students arrive (loadtest.py does it, untimed): the teacher's workspace uploaded a
real corpus and made a share link. What a student does is read from the plan file named by ``WEBNB_LOAD_PLAN``
(JSON, written by loadtest.py):

- ``share_path``: the teacher's share link (``/shared/<token>``). Students open it and press "Open my copy".
- ``group_size``: students per copy. The first of each group opens the share link; the others of the group use
  the same workspace (its cookie), as if they sat at one laptop: a copy lives in one workspace. 1: each their own.
- ``paste``: every student also pastes a small corpus of their own (its content differs from everyone else's, as
  a real class's would) and now and then works on it instead of the copy.
- ``reviews``: what students type on the copy.
- ``hosts``: the servers' base URLs; each student's requests alternate between them (two machines behind a
  balancer). One host: every request goes to it.
- ``resume_from``: the students of an earlier run (their cookies and corpora) continue where they were, without
  setting anything up again; ``save_to``: where to write this run's students when it stops.

Typing sends one inference fragment per word, a word every 0.3–1.5 s. A page whose numbers are still being counted
answers with a progress page (202); the student then follows it as htmx does (``/jobs/<id>`` every 0.5 s) and asks
again, and the request is recorded under its own kind with the whole wait as its time: what the student waited
for. Each progress page is also recorded, as "progress instead of <kind>", so the report shows how often it
happened.
"""
from __future__ import annotations

import copy
import itertools
import json
import os
import random
import re
import sys
import time
from http.cookiejar import Cookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import gevent
from gevent.event import Event
from locust import between, events, task
from locust.contrib.fasthttp import FastHttpUser

sys.path.insert(0, str(Path(__file__).resolve().parent))
import locustfile as lecture  # noqa: E402  (its Student is not imported by name: locust would run it too)

PLAN = json.loads(Path(os.environ["WEBNB_LOAD_PLAN"]).read_text()) if os.environ.get("WEBNB_LOAD_PLAN") else {}
JOB_POLL_SECONDS = 0.5  # as the progress page's hx-trigger
JOB_PATIENCE_SECONDS = 180  # a progress page still running after this is counted as an error
GROUP_PATIENCE_SECONDS = 180  # how long the others of a group wait for their copy
OWN_REVIEWS = ("great examples", "too fast and unclear", "clear slides but a boring pace")
OWN_CORPUS_SHARE = 0.25  # of a pasting student's tasks, those on their own corpus
# Progress pages followed for one request before it counts as an error: another worker that has not counted
# the corpus may start again after the first job ended (each process counts for itself, before issue 12).
MAX_PROGRESS_PAGES = 3
JOB_LINK = re.compile(r"/jobs/([A-Za-z0-9_-]+)")
COPY_LOCATION = re.compile(r"/corpora/([^/?#]+)$")

# The groups of this locust process: group number -> {"ready": Event, "cookies": [...], "copy_id": ...}.
groups: dict[int, dict] = {}
# Every student once set up, for ``save_to``: arrival number -> what a resumed student needs.
students: dict[int, dict] = {}


def own_corpus(number: int) -> str:
    """A small corpus of this student's own: the lecture feedback of locustfile.py plus a line only they wrote."""
    return lecture.PASTED_CORPUS + f"positive,student {number} liked example {number} best\n"


def cookie_to_dict(cookie: Cookie) -> dict:
    return {"name": cookie.name, "value": cookie.value, "domain": cookie.domain, "path": cookie.path,
            "secure": cookie.secure, "expires": cookie.expires, "rest": dict(cookie._rest)}


def cookie_from_dict(data: dict) -> Cookie:
    return Cookie(
        version=0, name=data["name"], value=data["value"], port=None, port_specified=False,
        domain=data["domain"], domain_specified=False, domain_initial_dot=False,
        path=data["path"], path_specified=True, secure=data["secure"], expires=data["expires"],
        discard=False, comment=None, comment_url=None, rest=data["rest"],
    )


@events.test_stop.add_listener
def save_students(**_) -> None:
    if PLAN.get("save_to"):
        Path(PLAN["save_to"]).write_text(json.dumps({str(n): s for n, s in sorted(students.items())}))


class ScenarioStudent(FastHttpUser):
    wait_time = between(3, 10)  # the lecturer talks between the things a student tries
    arrivals = itertools.count()

    def on_start(self) -> None:
        self.client.cookiejar.set_policy(lecture.LoopbackSecurePolicy())
        self.rng = random.Random()
        self.number = next(self.arrivals)
        self.hosts = PLAN.get("hosts") or [self.host]
        self.turn = itertools.count(self.number)  # which host the next request goes to
        self.copy_id = self.own_id = None
        resumed = PLAN.get("resume_from", {}).get(str(self.number))
        if resumed is not None:
            # The same student after the servers restarted: same cookies, same corpora, nothing set up again.
            self.set_cookies(resumed["cookies"])
            self.copy_id, self.own_id = resumed["copy_id"], resumed["own_id"]
            return
        self.set_up()

    def set_up(self) -> None:
        group_size = max(1, int(PLAN.get("group_size", 1)))
        group_number, leader = divmod(self.number, group_size)[0], self.number % group_size == 0
        group = groups.setdefault(group_number, {"ready": Event(), "cookies": None, "copy_id": None})
        if leader:
            page = self.get_page("/corpora", "corpus list", "Type a corpus")
            csrf_token = lecture.find_csrf_token(page)
            self.copy_id = self.open_copy(csrf_token)
            group["cookies"], group["copy_id"] = self.cookies(), self.copy_id
            group["ready"].set()
        else:
            if not group["ready"].wait(timeout=GROUP_PATIENCE_SECONDS) or group["copy_id"] is None:
                self.report_problem("join the group's copy", "the first student of the group made no copy")
                return
            self.set_cookies(group["cookies"])
            self.copy_id = group["copy_id"]
            page = self.get_page("/corpora", "corpus list", "Type a corpus")
            csrf_token = lecture.find_csrf_token(page)
        if PLAN.get("paste"):
            self.own_id = self.paste_own_corpus(csrf_token)
        if self.copy_id is not None:
            # The lesson's order: the documents, then (once they are read) the matrix they make.
            self.get_page(f"/corpora/{self.copy_id}", "corpus page", 'id="documents"')
            self.wait()
            self.get_page(f"/corpora/{self.copy_id}/matrix", "matrix page", 'id="matrix"')
        students[self.number] = {"cookies": self.cookies(), "copy_id": self.copy_id, "own_id": self.own_id}

    # -- what a student does during the lecture ----------------------------------------------------------------

    def corpus_now(self) -> tuple[str | None, tuple[str, ...]]:
        """The corpus this task is about, and what the student types on it."""
        if self.own_id is not None and (self.copy_id is None or self.rng.random() < OWN_CORPUS_SHARE):
            return self.own_id, OWN_REVIEWS
        return self.copy_id, tuple(PLAN.get("reviews") or OWN_REVIEWS)

    @task(5)
    def type_review(self) -> None:
        corpus_id, reviews = self.corpus_now()
        if corpus_id is None:
            return
        review = self.rng.choice(reviews)
        alpha = self.rng.choice(("1", "1", "0.5"))
        words = review.split()
        for end in range(1, len(words) + 1):
            self.get_fragment(corpus_id, "inference", {"text": " ".join(words[:end]), "alpha": alpha, "step": "tokens"},
                              "inference fragment")
            time.sleep(self.rng.uniform(0.3, 1.5))  # typing the next word
        # Then "Next →" through a few steps of the explanation.
        for step in lecture.STEPS[1 : 1 + self.rng.randint(2, 5)]:
            self.get_fragment(corpus_id, "inference", {"text": review, "alpha": alpha, "step": step},
                              "inference fragment")
            time.sleep(self.rng.uniform(1, 3))

    @task(2)
    def move_alpha(self) -> None:
        corpus_id, _ = self.corpus_now()
        if corpus_id is None:
            return
        for alpha in self.rng.sample(lecture.ALPHAS, self.rng.randint(2, 4)):
            self.get_fragment(corpus_id, "parameters", {"alpha": alpha}, "parameters fragment")
            time.sleep(self.rng.uniform(0.5, 2))

    @task(1)
    def open_matrix(self) -> None:
        corpus_id, _ = self.corpus_now()
        if corpus_id is not None:
            self.get_page(f"/corpora/{corpus_id}/matrix", "matrix page", 'id="matrix"')

    @task(1)
    def open_corpus(self) -> None:
        corpus_id, _ = self.corpus_now()
        if corpus_id is not None:
            self.get_page(f"/corpora/{corpus_id}", "corpus page", 'id="documents"')

    # -- setting up ------------------------------------------------------------------------------------------------

    def open_copy(self, csrf_token: str | None) -> str | None:
        """Open the share link and press "Open my copy": the new corpus's id, or None (reported as an error)."""
        share_path = PLAN["share_path"]
        page = self.get_page(share_path, "shared link page", "Open my copy")
        csrf_token = lecture.find_csrf_token(page) or csrf_token
        return self.post_form(share_path, {"csrf_token": csrf_token or ""}, "open my copy")

    def paste_own_corpus(self, csrf_token: str | None) -> str | None:
        form = {"csrf_token": csrf_token or "", "name": f"Feedback of student {self.number}",
                "corpus": own_corpus(self.number)}
        return self.post_form("/corpora/paste", form, "paste corpus")

    def post_form(self, path: str, form: dict, name: str) -> str | None:
        """POST a form that answers 303 to a new corpus: its id, or None after reporting the failure."""
        with self.client.post(self.url(path), data=urlencode(form), name=name,
                              headers={"Content-Type": "application/x-www-form-urlencoded"},
                              allow_redirects=False, catch_response=True) as response:
            location = response.headers.get("Location", "") if response.status_code == 303 else ""
            match = COPY_LOCATION.search(urlsplit(location).path)
            if not match:
                response.failure(f"{name} answered {response.status_code}, Location {location!r}")
                return None
            response.success()
            return match.group(1)

    # -- requests --------------------------------------------------------------------------------------------------

    def url(self, path: str) -> str:
        """The full URL on the server whose turn it is."""
        return self.hosts[next(self.turn) % len(self.hosts)] + path

    def get_page(self, path: str, name: str, must_contain: str) -> str:
        def verdict(response, body):
            if response.status_code != 200:
                return f"status {response.status_code}"
            if "<html" not in body or must_contain not in body:
                return f"not the whole page, or no {must_contain!r} in it"
            return None

        return self.get_following_progress(path, name, {}, verdict)

    def get_fragment(self, corpus_id: str, section: str, query: dict, name: str) -> str:
        def verdict(response, body):
            if response.status_code != 200:
                return f"status {response.status_code}"
            if f'id="{section}"' not in body or "<html" in body:
                return f"not the {section} fragment"
            if 'class="errors"' in body:
                return "the fragment shows an error"
            return None

        path = f"/corpora/{corpus_id}/{section}?{urlencode(query)}"
        return self.get_following_progress(path, name, lecture.HTMX, verdict)

    def get_following_progress(self, path: str, name: str, headers: dict, verdict) -> str:
        """GET ``path``; on a progress page, follow the job to its end and GET it again. Recorded under ``name`` with
        the time from the first request to the last answer."""
        started = time.perf_counter()
        for round_number in range(MAX_PROGRESS_PAGES + 1):
            with self.client.get(self.url(path), name=name, headers=headers, catch_response=True) as response:
                body = response.text or ""
                job = JOB_LINK.search(body) if response.status_code == 202 else None
                if job is not None and round_number < MAX_PROGRESS_PAGES:
                    response.request_meta["name"] = f"progress instead of {name}"
                    response.success()
                else:
                    if round_number:
                        response.request_meta["response_time"] = 1000 * (time.perf_counter() - started)
                    problem = verdict(response, body)
                    if problem:
                        response.failure(problem)
                    else:
                        response.success()
                    return body
            if not self.follow_job(job.group(1)):
                return ""
        return ""

    def follow_job(self, job_id: str) -> bool:
        """Poll the job as the progress fragment does, until it is done (True) or failed or too slow (False)."""
        deadline = time.monotonic() + JOB_PATIENCE_SECONDS
        while time.monotonic() < deadline:
            gevent.sleep(JOB_POLL_SECONDS)
            with self.client.get(self.url(f"/jobs/{job_id}"), name="job progress", headers=lecture.HTMX,
                                 allow_redirects=False, catch_response=True) as response:
                if response.status_code == 204 and response.headers.get("HX-Redirect"):
                    response.success()
                    return True
                if response.status_code != 200:
                    response.failure(f"the job answered {response.status_code}: {(response.text or '')[:200]}")
                    return False
                response.success()
        self.report_problem("job progress", f"the job was still running after {JOB_PATIENCE_SECONDS} s")
        return False

    # -- cookies ---------------------------------------------------------------------------------------------------

    def cookies(self) -> list[dict]:
        return [cookie_to_dict(cookie) for cookie in self.client.cookiejar]

    def set_cookies(self, cookies: list[dict]) -> None:
        self.client.cookiejar.clear()
        for data in copy.deepcopy(cookies):
            self.client.cookiejar.set_cookie(cookie_from_dict(data))

    def report_problem(self, name: str, message: str) -> None:
        self.environment.events.request.fire(request_type="GET", name=name, response_time=0, response_length=0,
                                             response=None, context={}, exception=RuntimeError(message))
