"""Simulated students in a lecture, for locust: ``locust -f scripts/locustfile.py --host http://127.0.0.1:8000``.

Each student opens the corpus list, opens one of the built-in corpora and its matrix, then, while the lecturer
talks, now and then types a review (one inference fragment per pause in typing, as htmx sends it after 400 ms of
quiet), steps through the explanation, moves α on the parameters page and opens the matrix page again. Every fifth
student (the first included, so that even a short run has one) also types a small corpus of their own (POST
/corpora/paste with the CSRF token) and works with it instead.

Requests are named by kind ("inference fragment", "matrix page", ...) so that locust reports percentiles per
kind; scripts/loadtest.py reads them back under these names. Every answer is checked, not only its status: a
fragment must be the fragment (its section, no <html>), a page the whole page, so a broken htmx path counts as
an error.

Hosted mode puts the workspace in a Secure cookie. Browsers send Secure cookies to http://localhost and
http://127.0.0.1 (loopback is a "potentially trustworthy" origin); Python's cookie jar does not, so the
students here use a cookie policy that treats loopback as browsers do. Without it every request would start a
new workspace and every POST would fail its CSRF check.
"""
from __future__ import annotations

import ipaddress
import itertools
import random
import re
import time
from http.cookiejar import DefaultCookiePolicy
from urllib.parse import urlencode, urlsplit

from locust import between, task
from locust.contrib.fasthttp import FastHttpUser

BUILTIN_CORPORA = ("match-reviews", "spam-ham", "china-japan")
REVIEWS = {
    "match-reviews": (
        "the keeper was sharp and composed",
        "a brilliant match but the defence was not sharp",
        "match was not composed at all",
        "brilliant keeper brilliant match",
        "the referee was not sharp and the match was dull",
    ),
    "spam-ham": (
        "Call now to claim your free prize",
        "Are we still meeting for lunch tomorrow?",
        "URGENT your account is suspended verify now",
        "Can you send me the notes from the lecture",
        "Congratulations you won cash today",
    ),
    "china-japan": (
        "Chinese Chinese Chinese Tokyo Japan",
        "Beijing Shanghai Macao",
        "Tokyo Japan",
        "Chinese Macao Tokyo",
    ),
}
STEPS = ("tokens", "vector", "factors", "product", "decision", "zeros", "smoothing", "underflow", "logspace",
         "contributions")
ALPHAS = ("1", "0.5", "0.1", "0", "2", "0.01", "1/2")
PASTED_CORPUS = """label,text
positive,great lecture with clear examples
positive,clear slides and a great pace
positive,the examples were great
negative,too fast and the slides were unclear
negative,unclear examples and a boring pace
negative,boring and too fast
"""
PASTING_EVERY = 5  # students
CSRF_TOKEN = re.compile(r'"X-CSRFToken":\s*"([^"]+)"')
HTMX = {"HX-Request": "true"}


class LoopbackSecurePolicy(DefaultCookiePolicy):
    """Send Secure cookies over plain http to loopback hosts, as browsers do; elsewhere only over https."""

    def return_ok_secure(self, cookie, request):
        if cookie.secure and is_loopback(urlsplit(request.get_full_url()).hostname):
            return True
        return super().return_ok_secure(cookie, request)


def is_loopback(host: str | None) -> bool:
    if host is None:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def typing_prefixes(review: str, rng: random.Random) -> list[str]:
    """What the box holds each time the student pauses long enough for htmx to send it: every one to three
    words, and always the whole review at the end."""
    words = review.split()
    prefixes, end = [], 0
    while end < len(words):
        end = min(len(words), end + rng.randint(1, 3))
        prefixes.append(" ".join(words[:end]))
    return prefixes


class Student(FastHttpUser):
    # The lecturer talks between the things a student tries.
    wait_time = between(3, 10)
    arrivals = itertools.count()  # the students of this locust process, numbered as they arrive

    def on_start(self) -> None:
        self.client.cookiejar.set_policy(LoopbackSecurePolicy())
        self.rng = random.Random()
        self.corpus_id = self.rng.choice(BUILTIN_CORPORA)
        self.reviews = REVIEWS[self.corpus_id]
        page = self.get_page("/corpora", "corpus list", "Type a corpus")
        self.csrf_token = find_csrf_token(page)
        if next(self.arrivals) % PASTING_EVERY == 0:
            self.paste_corpus()
        # The lesson's order: the documents, then the matrix they make.
        self.get_page(f"/corpora/{self.corpus_id}", "corpus page", "<table")
        self.get_page(f"/corpora/{self.corpus_id}/matrix", "matrix page", 'id="matrix"')

    def paste_corpus(self) -> None:
        if not self.csrf_token:
            self.environment.events.request.fire(
                request_type="POST", name="paste corpus", response_time=0, response_length=0, response=None,
                context={}, exception=RuntimeError("no CSRF token in the corpus list's <body hx-headers>"),
            )
            return
        form = {"csrf_token": self.csrf_token, "name": "Feedback on the lecture", "corpus": PASTED_CORPUS}
        with self.client.post("/corpora/paste", data=urlencode(form), name="paste corpus",
                              headers={"Content-Type": "application/x-www-form-urlencoded"},
                              allow_redirects=False, catch_response=True) as response:
            location = response.headers.get("Location", "") if response.status_code == 303 else ""
            match = re.search(r"/corpora/([^/?#]+)$", location)
            if not match:
                response.failure(f"paste answered {response.status_code}, Location {location!r}")
                return
            response.success()
        self.corpus_id = match.group(1)
        self.reviews = ("great examples", "too fast and unclear", "clear slides but a boring pace")

    @task(5)
    def type_review(self) -> None:
        review = self.rng.choice(self.reviews)
        alpha = self.rng.choice(("1", "1", "0.5"))
        for text in typing_prefixes(review, self.rng):
            self.get_fragment("inference", {"text": text, "alpha": alpha, "step": "tokens"}, "inference fragment")
            time.sleep(self.rng.uniform(0.5, 1.5))  # typing the next words
        # Then "Next →" through a few steps of the explanation.
        for step in STEPS[1 : 1 + self.rng.randint(2, 5)]:
            self.get_fragment("inference", {"text": review, "alpha": alpha, "step": step}, "inference fragment")
            time.sleep(self.rng.uniform(1, 3))

    @task(2)
    def move_alpha(self) -> None:
        for alpha in self.rng.sample(ALPHAS, self.rng.randint(2, 4)):
            self.get_fragment("parameters", {"alpha": alpha}, "parameters fragment")
            time.sleep(self.rng.uniform(0.5, 2))

    @task(1)
    def open_matrix(self) -> None:
        self.get_page(f"/corpora/{self.corpus_id}/matrix", "matrix page", 'id="matrix"')

    @task(1)
    def open_corpus(self) -> None:
        self.get_page(f"/corpora/{self.corpus_id}", "corpus page", "<table")

    def get_page(self, path: str, name: str, must_contain: str) -> str:
        with self.client.get(path, name=name, catch_response=True) as response:
            body = response.text or ""
            if response.status_code != 200:
                response.failure(f"status {response.status_code}")
            elif "<html" not in body or must_contain not in body:
                response.failure(f"not the whole page, or no {must_contain!r} in it")
            else:
                response.success()
            return body

    def get_fragment(self, section: str, query: dict, name: str) -> None:
        path = f"/corpora/{self.corpus_id}/{section}?{urlencode(query)}"
        with self.client.get(path, name=name, headers=HTMX, catch_response=True) as response:
            body = response.text or ""
            if response.status_code != 200:
                response.failure(f"status {response.status_code}")
            elif f'id="{section}"' not in body or "<html" in body:
                response.failure(f"not the {section} fragment")
            elif 'class="errors"' in body:
                response.failure("the fragment shows an error")
            else:
                response.success()


def find_csrf_token(page: str) -> str | None:
    match = CSRF_TOKEN.search(page)
    return match.group(1) if match else None
