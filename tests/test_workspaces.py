"""Hosted mode: every browser its own workspace, no student reaching another's corpus, shared links that copy,
and quotas that refuse a corpus whole."""
from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from tests.conftest import pasted_id
from webnb import create_app
from webnb.store.database import ANY_WORKSPACE

SECRET = "s" * 40
PASTE = "pos\tgreat match and a sharp keeper\nneg\tdull match\npos\tbrilliant goal\nneg\tslow dull game"


def student(app):
    return app.test_client()  # (Werkzeug's test client sends Secure cookies over plain http too)


def alice_and_bob(hosted_app, corpus: str, name: str):
    """(app, alice, bob, corpus id): a hosted app, two students in workspaces of their own, and a corpus Alice
    pasted as ``name``."""
    app = hosted_app()
    alice, bob = student(app), student(app)
    return app, alice, bob, pasted_id(alice, corpus, name)


@pytest.mark.parametrize("key", [None, "dev", "short", "x" * 31])
def test_hosted_mode_refuses_to_start_without_a_real_secret(tmp_path, monkeypatch, key):
    monkeypatch.delenv("WEBNB_SECRET_KEY", raising=False)
    config = {"WEBNB_MODE": "hosted"} if key is None else {"WEBNB_MODE": "hosted", "SECRET_KEY": key}
    with pytest.raises(RuntimeError, match="at least 32 bytes"):
        create_app(config, instance_path=str(tmp_path))
    with pytest.raises(RuntimeError, match="WEBNB_MODE"):
        create_app({"WEBNB_MODE": "public", "SECRET_KEY": SECRET}, instance_path=str(tmp_path))


def test_the_workspace_cookie(hosted_app):
    client = student(hosted_app())
    response = client.get("/")
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith("webnb=") and "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    with client.session_transaction() as session:
        workspace = session["workspace"]
    assert len(workspace) >= 22 and re.fullmatch(r"[A-Za-z0-9_-]+", workspace)  # 16 random bytes, base64url
    client.get("/corpora")
    with client.session_transaction() as session:
        assert session["workspace"] == workspace  # the same browser keeps its workspace
    with student(hosted_app()).session_transaction() as other:
        assert "workspace" not in other


# A value for each other part of a route that names a corpus: a chart that every text lesson draws (the α sweep,
# webnb/views/handouts.py).
ROUTE_EXAMPLES = {"<page>": "sweep", "<name>": "sweep"}


def corpus_routes(app):
    """Every route that names a corpus, with its methods, its other parts filled in from ROUTE_EXAMPLES."""
    routes = []
    for rule in app.url_map.iter_rules():
        if "corpus_id" in rule.arguments:
            path = rule.rule
            for part, example in ROUTE_EXAMPLES.items():
                path = path.replace(part, example)
            routes.append((path, sorted(rule.methods - {"HEAD", "OPTIONS"})))
    return routes


@pytest.mark.slow  # about 1 s
def test_every_route_of_another_workspace_answers_404(hosted_app):
    app, alice, bob, corpus_id = alice_and_bob(hosted_app, PASTE, "Alice's corpus")
    routes = corpus_routes(app)
    assert len(routes) >= 20
    tried, not_found = 0, 0
    for rule, methods in routes:
        url = rule.replace("<corpus_id>", corpus_id)
        for method in methods:
            assert alice.open(url, method=method).status_code != 404 or method == "POST", (url, method)
            tried += 1
            for query in ("", "?format=json"):
                response = bob.open(url + query, method=method, headers={"HX-Request": "true"} if query else {})
                not_found += response.status_code == 404
                assert response.status_code == 404, (url, method, response.status_code)
                assert "great match" not in response.get_data(as_text=True)
    assert tried == not_found / 2  # 100 % of the cross-workspace accesses
    # Nor does Alice's corpus show anywhere Bob looks: the list, a test corpus, a document of it.
    assert corpus_id not in bob.get("/corpora").get_data(as_text=True)
    assert corpus_id in alice.get("/corpora").get_data(as_text=True)
    evaluation = bob.get(f"/corpora/spam-ham/evaluation?test={corpus_id}").get_data(as_text=True)
    assert "There is no test corpus" in evaluation and "great match" not in evaluation
    inference = bob.get(f"/corpora/spam-ham/inference?test={corpus_id}&document=0&from=test").get_data(as_text=True)
    assert "There is no such document" in inference and "great match" not in inference


def test_built_in_corpora_are_shared_and_read_only(hosted_app):
    app = hosted_app()
    alice, bob = student(app), student(app)
    for client in (alice, bob):
        assert client.get("/corpora/match-reviews/parameters").status_code == 200
    # "Add a document" keeps a copy in Alice's workspace; the built-in and Bob's view stay as they were.
    response = alice.post("/corpora/match-reviews/add/keep", data={"label": "negative", "document": "not sharp"})
    assert response.status_code == 303
    copy_id = re.search(r"/corpora/([^/]+)/parameters", response.headers["Location"]).group(1)
    assert alice.get(f"/corpora/{copy_id}?format=json").status_code == 200
    assert bob.get(f"/corpora/{copy_id}?format=json").status_code == 404
    documents = bob.get("/corpora/match-reviews?format=json").get_json()
    assert len(app.extensions["webnb"]["catalog"].get("match-reviews").corpus) == 5
    assert documents is not None


def test_a_shared_link_opens_a_copy_in_the_viewers_workspace(hosted_app):
    app = hosted_app()
    alice, bob = student(app), student(app)
    corpus_id = pasted_id(alice, PASTE, "Alice's corpus")
    assert bob.post(f"/corpora/{corpus_id}/share").status_code == 404  # only the owner shares
    page = BeautifulSoup(alice.post(f"/corpora/{corpus_id}/share").get_data(as_text=True), "html.parser")
    link = page.select_one("#share-link")["value"]
    token = link.rsplit("/", 1)[-1]
    assert re.fullmatch(r"https?://[^/]+/shared/[A-Za-z0-9_-]{22,}", link)  # absolute, to paste anywhere
    assert bob.get("/shared/" + "A" * 22).status_code == 404
    opened = bob.get(f"/shared/{token}")
    assert opened.status_code == 200 and "Alice" in opened.get_data(as_text=True)
    response = bob.post(f"/shared/{token}")
    assert response.status_code == 303
    copy_id = response.headers["Location"].rsplit("/", 1)[-1]
    assert copy_id != corpus_id
    assert bob.get(f"/corpora/{copy_id}/parameters?format=json").get_json()["vocabulary_size"] == \
        alice.get(f"/corpora/{corpus_id}/parameters?format=json").get_json()["vocabulary_size"]
    assert bob.get(f"/corpora/{corpus_id}").status_code == 404  # still not Alice's own
    assert alice.get(f"/corpora/{copy_id}").status_code == 404
    storage = app.extensions["webnb"]["storage"]
    owners = {s.id: s.workspace for s in storage.list_corpora(ANY_WORKSPACE)}
    assert owners[corpus_id] != owners[copy_id] and None not in owners.values()


@pytest.mark.slow  # about 1 s
def test_jobs_belong_to_their_workspace(hosted_app):
    app = hosted_app()
    alice, bob = student(app), student(app)
    big = "\n".join(f"{'pos' if i % 2 else 'neg'}\tdocument number {i} words" for i in range(2100))
    alice.post("/corpora/paste", data={"corpus": big, "name": "big"})
    corpus_id = app.extensions["webnb"]["storage"].list_corpora()[0].id
    response = alice.get(f"/corpora/{corpus_id}/evaluation")
    assert response.status_code == 202  # counting the split, with a progress page
    job_id = re.search(r"/jobs/([A-Za-z0-9_-]+)", response.get_data(as_text=True)).group(1)
    app.extensions["webnb"]["jobs"].wait(job_id, timeout=60)
    assert bob.get(f"/jobs/{job_id}").status_code == 404
    assert alice.get(f"/jobs/{job_id}").status_code == 303


def test_quotas_refuse_a_corpus_whole(hosted_app):
    app = hosted_app(WEBNB_QUOTA_CORPORA=2, WEBNB_QUOTA_DOCUMENTS=10)
    alice, bob = student(app), student(app)
    pasted_id(alice, PASTE, "one")
    pasted_id(alice, PASTE, "two")
    response = alice.post("/corpora/paste", data={"corpus": PASTE, "name": "three"})
    assert response.status_code == 400 and "the most it may hold" in response.get_data(as_text=True)
    storage = app.extensions["webnb"]["storage"]
    assert [s.name for s in storage.list_corpora()] == ["two", "one"]
    pasted_id(bob, PASTE, "bob's")  # quotas are per workspace
    many = "\n".join(f"{'pos' if i % 2 else 'neg'}\tdocument {i}" for i in range(11))
    response = bob.post("/corpora/paste", data={"corpus": many, "name": "too many"})
    assert response.status_code == 400 and "10 documents in all" in response.get_data(as_text=True)
    assert len(storage.list_corpora()) == 3


def test_local_mode_sees_everything_and_sets_no_workspace(tmp_path):
    app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False}, instance_path=str(tmp_path))
    client = app.test_client()
    corpus_id = pasted_id(client, PASTE)
    assert client.get(f"/corpora/{corpus_id}").status_code == 200
    assert app.test_client().get(f"/corpora/{corpus_id}").status_code == 200  # one user: the laptop's owner
    assert "Set-Cookie" not in client.get("/corpora/match-reviews").headers


@pytest.mark.slow  # starts a process
def test_progress_can_be_polled_from_another_process(hosted_app):
    """Two apps on one database stand for two gunicorn workers: the one that did not start the work still shows its
    progress, and then where to go."""
    first, second = hosted_app(), hosted_app()
    alice = student(first)
    big = "\n".join(f"{'pos' if i % 2 else 'neg'}\tdocument number {i} words" for i in range(2100))
    alice.post("/corpora/paste", data={"corpus": big, "name": "big"})
    corpus_id = first.extensions["webnb"]["storage"].list_corpora()[0].id
    response = alice.get(f"/corpora/{corpus_id}/evaluation")
    job_id = re.search(r"/jobs/([A-Za-z0-9_-]+)", response.get_data(as_text=True)).group(1)
    first.extensions["webnb"]["jobs"].wait(job_id, timeout=60)
    elsewhere = second.test_client()
    with alice.session_transaction() as session:
        workspace = session["workspace"]
    with elsewhere.session_transaction() as session:
        session["workspace"] = workspace  # the same browser, its request served by the other worker
    answer = elsewhere.get(f"/jobs/{job_id}")
    assert answer.status_code == 303 and answer.headers["Location"].startswith(f"/corpora/{corpus_id}/evaluation")
    assert student(second).get(f"/jobs/{job_id}").status_code == 404  # and still nobody else's


def test_work_that_would_run_over_the_limit_is_refused(hosted_app):
    app = hosted_app(WEBNB_MAX_WORK_SECONDS=1e-9)  # any fit is too long for this server
    alice = student(app)
    twelve = "\n".join(
        f"{'pos' if i % 2 else 'neg'}\t{'great sharp' if i % 2 else 'dull slow'} match {i}" for i in range(12))
    corpus_id = pasted_id(alice, twelve)
    response = alice.get(f"/corpora/{corpus_id}/compare")
    text = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "this server allows 1e-09 s of work per request. Nothing was started." in text
    assert "Logistic regression (softmax)" not in text
    normal = student(hosted_app())
    assert "Logistic regression" in normal.get("/corpora/spam-ham/compare").get_data(as_text=True)


def test_a_fit_over_the_limit_is_cut_to_the_iterations_that_fit(hosted_app):
    from webnb.engine.evaluation.comparison import SECONDS_PER_ITERATION_PER_WEIGHT

    twelve = "\n".join(
        f"{'pos' if i % 2 else 'neg'}\t{'great sharp' if i % 2 else 'dull slow'} match {i}" for i in range(12))
    unlimited = student(hosted_app())
    plain = unlimited.get(f"/corpora/{pasted_id(unlimited, twelve)}/compare?format=json").get_json()["comparison"]
    assert plain["max_iterations"] == 1000 and plain["n_words"] == 6  # the precise rule, on 8 training documents
    # A limit that leaves room for 80 iterations of its 7 weights (two classes: one vector, with the intercept).
    limit = 80.5 * 7 * SECONDS_PER_ITERATION_PER_WEIGHT
    alice = student(hosted_app(WEBNB_MAX_WORK_SECONDS=limit))
    corpus_id = pasted_id(alice, twelve)
    cut = alice.get(f"/corpora/{corpus_id}/compare?format=json").get_json()["comparison"]
    assert cut["max_iterations"] == 80 and cut["tolerance"] == plain["tolerance"]
    logistic = [model for model in cut["models"] if model["iterations"] is not None][0]
    assert logistic["iterations"] <= 80
    page = BeautifulSoup(alice.get(f"/corpora/{corpus_id}/compare").get_data(as_text=True), "html.parser")
    assert "80 iterations" in page.get_text(" ", strip=True)
    # Room for fewer than 70 iterations: refused, nothing started.
    bob = student(hosted_app(WEBNB_MAX_WORK_SECONDS=69.5 * 7 * SECONDS_PER_ITERATION_PER_WEIGHT))
    refused = bob.get(f"/corpora/{pasted_id(bob, twelve)}/compare").get_data(as_text=True)
    assert "Nothing was started." in refused and "Logistic regression (softmax)" not in refused


@pytest.mark.slow  # about 1 s
def test_rate_limits_count_per_workspace(hosted_app):
    app = hosted_app(WEBNB_RATE_LIMIT="3 per minute")
    alice, bob = student(app), student(app)
    assert [alice.get("/corpora/match-reviews/parameters").status_code for _ in range(3)] == [200, 200, 200]
    refused = alice.get("/corpora/match-reviews/parameters")
    assert refused.status_code == 429
    assert "Your workspace sent more requests than this server takes" in refused.get_data(as_text=True)
    assert int(refused.headers["Retry-After"]) > 0
    with alice.get("/static/webnb.css") as stylesheet:  # the page's own files are not counted
        assert stylesheet.status_code == 200
    assert bob.get("/corpora/match-reviews/parameters").status_code == 200  # one student's limit is not the hall's
    assert alice.get("/corpora/match-reviews/matrix").status_code == 429  # one budget for all pages


def test_local_mode_has_no_rate_limit(tmp_path):
    app = create_app({"TESTING": True, "WEBNB_RATE_LIMIT": "1 per minute"}, instance_path=str(tmp_path))
    client = app.test_client()
    assert {client.get("/corpora/match-reviews").status_code for _ in range(5)} == {200}


def test_several_processes_share_the_counts_through_redis(hosted_app, redis_test_url):
    url = redis_test_url
    first, second = (hosted_app(WEBNB_RATE_LIMIT="4 per minute", RATELIMIT_STORAGE_URI=url) for _ in range(2))
    alice = student(first)
    assert [alice.get("/corpora").status_code for _ in range(2)] == [200, 200]
    elsewhere = second.test_client()
    with alice.session_transaction() as session:
        workspace = session["workspace"]
    with elsewhere.session_transaction() as session:
        session["workspace"] = workspace  # the same student, served by another worker process
    assert [elsewhere.get("/corpora").status_code for _ in range(3)] == [200, 200, 429]


@pytest.mark.slow  # waits for a process, 1 s
def test_work_of_a_process_that_died_is_reported_as_stopped(hosted_app, monkeypatch):
    from datetime import datetime, timedelta, timezone

    from webnb.hosting import jobs as jobs_module
    from webnb.hosting.jobs import Job

    app = hosted_app()
    alice = student(app)
    alice.get("/")
    with alice.session_transaction() as session:
        workspace = session["workspace"]
    storage = app.extensions["webnb"]["storage"]
    storage.save_job(Job(id="gone", title="Reading big.csv", workspace=workspace, done=10, total=100))
    assert alice.get("/jobs/gone").status_code == 200  # still running, as far as anyone knows
    later = datetime.now(timezone.utc) + timedelta(seconds=jobs_module.STALE_AFTER_SECONDS + 1)
    monkeypatch.setattr(jobs_module, "datetime", type("Later", (), {"now": staticmethod(lambda tz=None: later)}))
    stopped = alice.get("/jobs/gone")
    assert stopped.status_code == 400 and "The server stopped while doing this" in stopped.get_data(as_text=True)


def test_the_secure_flag_can_be_dropped_on_a_closed_network(hosted_app):
    cookie = student(hosted_app(WEBNB_COOKIE_SECURE=False)).get("/").headers["Set-Cookie"]
    assert cookie.startswith("webnb=") and "Secure" not in cookie and "HttpOnly" in cookie


def test_another_workspaces_table_of_numbers_answers_404_everywhere(hosted_app):
    app = hosted_app()
    alice, bob = student(app), student(app)
    response = alice.post("/corpora/paste", data={"name": "Alice's table", "corpus": (
        "height,weight,kind\n1.61,55.5,small\n1.58,52.25,small\n1.90,88.75,large\n1.85,91.5,large\n")})
    assert response.status_code == 303
    corpus_id = response.headers["Location"].split("/")[2]
    routes = [rule for rule, _ in corpus_routes(app) if "/gaussian" in rule]
    assert len(routes) == 11  # rows, bell curves, Bayes' rule, evaluation, the scikit-learn check, six downloads
    for rule in routes:
        url = rule.replace("<corpus_id>", corpus_id)
        assert alice.get(url).status_code == 200, url
        for query in ("", "?format=json"):
            response = bob.get(url + query, headers={"HX-Request": "true"} if query else {})
            assert response.status_code == 404, (url, response.status_code)
            assert "88.75" not in response.get_data(as_text=True)
    assert bob.get(f"/corpora/{corpus_id}").status_code == 404
    assert corpus_id not in bob.get("/corpora").get_data(as_text=True)
