"""Memory bounded per request (issue 11, item 4): an estimate and a cap (WEBNB_MAX_WORK_MB) that refuse before the
work starts, at most WEBNB_MAX_HEAVY_WORK heavy computations per process, a gzip bomb refused in bounded memory,
and the peak resident memory of pages on a scaled-down copy of the hostile corpus (scripts/hostile_corpus.py)."""
from __future__ import annotations

import concurrent.futures
import gzip
import importlib.util
import io
import json
import subprocess
import sys
import threading
import tracemalloc

import pytest
from bs4 import BeautifulSoup
from conftest import REPO_ROOT

from webnb import create_app
from webnb.engine import Corpus, CorpusError, TrainingSet, VocabularyOptions, read_corpus_bytes
from webnb.engine.io.uploads import inspect_table
from webnb.engine.shared import budget
from webnb.engine.shared.budget import WorkTooLarge
from webnb.hosting import work
from webnb.views import compare

MB = 1_000_000


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hostile_corpus = _script("hostile_corpus")


def make_app(tmp_path, **config):
    return create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, **config}, instance_path=str(tmp_path / "instance"))


def many_classes_corpus(n_classes=40, per_class=5, words_per_document=12) -> Corpus:
    """Few characters but many classes × words: cheap to count, dearer per class, dearest for logistic regression."""
    words = hostile_corpus.word_list(n_classes * per_class * words_per_document)
    texts, labels = [], []
    for i in range(n_classes * per_class):
        texts.append(" ".join(words[i * words_per_document:(i + 1) * words_per_document]))
        labels.append(f"c{i % n_classes:02d}")
    return Corpus(texts=tuple(texts), labels=tuple(labels), ids=tuple(map(str, range(len(texts)))), name="many")


def store(app, corpus: Corpus) -> str:
    return app.extensions["webnb"]["storage"].add_corpus(corpus, name=corpus.name, source="test")


def alert(response) -> str:
    found = BeautifulSoup(response.get_data(as_text=True), "html.parser").find_all(role="alert")
    return " ".join(" ".join(a.get_text().split()) for a in found)


# -- the estimates ------------------------------------------------------------------------------------------------


def test_the_estimates_grow_with_classes_times_words():
    assert budget.class_tables_bytes(1000, 400_000) == 18 * 1000 * 400_000
    assert budget.class_tables_bytes(20, 1000, n_stored=100) == 18 * 20 * 1000 + 12 * 100
    # Logistic regression: the weights dominate; two classes fit one weight vector.
    assert budget.logistic_bytes(10, 999, 3, 0) == 36 * 8 * 1000 * 3 + 5 * 8 * 10 * 3
    assert budget.logistic_bytes(10, 999, 2, 0) == 36 * 8 * 1000 * 1 + 5 * 8 * 10 * 2
    # On the corpus of the issue (1,000 classes, max_features=13000): far over 300 MB, so refused in hosted mode.
    assert budget.comparison_bytes(33_750, 11_250, 13_000, 1000, 4_000_000) > 3000 * MB


def test_no_cap_outside_the_app_and_a_refusal_inside_one():
    assert budget.current_limit() is None
    budget.require(10**15, "Anything", "any size", "")  # no cap: nothing refused
    with budget.limit(100 * MB):
        assert budget.current_limit() == 100 * MB
        with pytest.raises(WorkTooLarge) as refused:
            budget.require_class_tables(1000, 13_000)
    assert budget.current_limit() is None
    message = str(refused.value)
    assert message == (
        "Counting the words of each class (1,000 classes × 13,000 words) would need about 234 MB of memory; "
        "this server allows 100 MB for one piece of work. Nothing was started. Fewer words (a larger min_df, or "
        "max_features) or fewer classes make it smaller."
    )
    assert isinstance(refused.value, CorpusError)  # shown by pages as any other problem with a corpus


def test_the_dense_tables_are_refused_before_they_are_allocated():
    training = TrainingSet.build(many_classes_corpus())
    model = training.model("multinomial", 1)
    cells = len(training.classes) * len(training.vocabulary)  # 40 × 2,400
    with budget.limit(budget.shown_table_bytes(40, 2400) - 1):
        with pytest.raises(WorkTooLarge, match="40 classes × 2,400 words"):
            _ = model.feature_prob_  # building the table is what is refused
    assert "feature_prob_" not in model.__dict__  # nothing kept
    assert model.feature_prob_.shape == (40, 2400) and cells == 96_000  # without the cap it is built


def test_counting_is_refused_before_it_starts(monkeypatch):
    counted = []
    from webnb.engine.text import bag

    monkeypatch.setattr(bag, "_count", lambda *args, **kwargs: counted.append(1))
    corpus = many_classes_corpus()
    with budget.limit(budget.counting_bytes(sum(map(len, corpus.texts))) - 1):
        with pytest.raises(WorkTooLarge, match=r"Counting the words of this corpus \(200 documents, "):
            TrainingSet.build(corpus)
    assert counted == []


# -- the cap in the app -------------------------------------------------------------------------------------------


def test_the_default_caps(tmp_path):
    assert make_app(tmp_path / "local").config["WEBNB_MAX_WORK_MB"] == 4000
    hosted = make_app(tmp_path / "hosted", WEBNB_MODE="hosted", SECRET_KEY="s" * 40)
    assert hosted.config["WEBNB_MAX_WORK_MB"] == 300 and hosted.config["WEBNB_MAX_HEAVY_WORK"] == 1


def test_a_small_cap_refuses_the_compare_page_with_a_message_and_fits_nothing(tmp_path, monkeypatch):
    # 3 MB: the class tables (1.7 MB) fit, logistic regression (about 23 MB) does not.
    app = make_app(tmp_path, WEBNB_MAX_WORK_MB=3)
    corpus_id = store(app, many_classes_corpus())
    fits = []
    monkeypatch.setattr(compare, "compare_models", lambda *args, **kwargs: fits.append(1))
    client = app.test_client()
    response = client.get(f"/corpora/{corpus_id}/compare?test=training")
    assert response.status_code == 200
    message = alert(response)
    assert "Fitting logistic regression beside Naive Bayes (200 training documents, 2,400 words, 40 classes)" in message
    assert "this server allows 3 MB for one piece of work. Nothing was started." in message
    assert "min_df" in message and "max_features" in message
    as_json = client.get(f"/corpora/{corpus_id}/compare?test=training&format=json")
    assert as_json.status_code == 200 and "Nothing was started" in as_json.get_json()["error"]
    assert fits == []
    # The Naive Bayes pages still work under the same cap.
    assert client.get(f"/corpora/{corpus_id}/evaluation?test=training").status_code == 200


def test_a_tiny_cap_refuses_the_parameters_page_before_the_class_tables(tmp_path):
    app = make_app(tmp_path, WEBNB_MAX_WORK_MB=1)  # counting fits (0.3 MB), the class tables (1.7 MB) do not
    corpus_id = store(app, many_classes_corpus())
    response = app.test_client().get(f"/corpora/{corpus_id}/parameters")
    assert response.status_code == 200
    message = alert(response)
    assert ("Counting the words of each class (40 classes × at least 2,400 words) would need about 2 MB of memory"
            in message)
    assert "Nothing was started." in message
    catalog = app.extensions["webnb"]["catalog"]
    assert catalog.counted_here == [] and catalog.storage.count_builds() == {}  # nothing computed, nothing kept
    assert "Traceback" not in response.get_data(as_text=True)


def test_too_many_class_cells_stop_counting_after_the_first_chunk(monkeypatch):
    """Without min_df/max_df pruning the vocabulary only grows, so counting stops as soon as the words found so far
    make the class tables too large, not after reading the whole corpus."""
    import webnb.engine.text.bag as bag_module

    monkeypatch.setattr(bag_module, "COUNT_CHUNK", 10)
    monkeypatch.setattr(bag_module, "PROGRESS_EVERY", 10)
    corpus = many_classes_corpus(n_classes=100, per_class=2)  # 200 documents of 12 new words each
    cap = budget.class_tables_bytes(100, 100) + 1  # above counting the whole corpus, below 100 classes × 120 words
    assert budget.counting_bytes(sum(map(len, corpus.texts))) < cap
    counted = []
    with budget.limit(cap), pytest.raises(WorkTooLarge, match="100 classes × at least 120 words"):
        TrainingSet.build(corpus, progress=lambda done, total: counted.append(done))
    assert counted == [10]  # one chunk of 10 documents, 120 words, then refused
    with budget.limit(cap):  # max_features keeps the tables small enough: counted to the end
        assert len(TrainingSet.build(corpus, vocabulary=VocabularyOptions(max_features=50)).vocabulary) == 50


def test_an_upload_over_the_cap_stores_nothing(tmp_path):
    app = make_app(tmp_path, WEBNB_MAX_WORK_MB=1)
    lines = "".join(json.dumps({"label": label, "text": text}) + "\n" for label, text in
                    zip(many_classes_corpus().labels, many_classes_corpus().texts, strict=True))
    response = app.test_client().post("/corpora/upload", data={"file": (io.BytesIO(lines.encode()), "many.jsonl")})
    assert response.status_code == 400
    assert "40 classes × at least 2,400 words" in alert(response) and "Nothing was started." in alert(response)
    assert app.extensions["webnb"]["storage"].list_corpora() == []


# -- heavy work at once -------------------------------------------------------------------------------------------


class HeldSlot:
    """Holds one slot of the gate from another thread until ``release()``; no sleeps, only events."""

    def __init__(self, gate):
        self.taken, self.done = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._hold, args=(gate,))

    def _hold(self, gate):
        with gate.slot(wait=True):
            self.taken.set()
            self.done.wait()

    def __enter__(self):
        self.thread.start()
        assert self.taken.wait(10)
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()


def test_a_heavy_request_is_refused_with_503_while_the_slot_is_taken(tmp_path, monkeypatch):
    monkeypatch.setattr(work, "HEAVY_DOCUMENTS", 0)  # every count is heavy, so a built-in corpus will do
    app = make_app(tmp_path, WEBNB_MAX_HEAVY_WORK=1)
    client = app.test_client()
    gate = app.extensions["webnb"]["heavy_work"]
    with HeldSlot(gate):
        page = client.get("/corpora/match-reviews/parameters")
        as_json = client.get("/corpora/match-reviews/parameters?format=json")
    assert page.status_code == 503 and page.headers["Retry-After"] == "10"
    assert alert(page) == work.BUSY and "Nothing was changed" in work.BUSY
    assert as_json.status_code == 503 and as_json.get_json() == {"error": work.BUSY}
    assert app.extensions["webnb"]["catalog"].counted_here == []  # nothing was counted
    # Once the slot is free the same page is computed.
    assert client.get("/corpora/match-reviews/parameters").status_code == 200


@pytest.mark.slow  # waits for a job, 1 s
def test_a_job_waits_for_the_slot_then_runs(tmp_path):
    app = make_app(tmp_path, WEBNB_MAX_HEAVY_WORK=1)
    jobs, gate = app.extensions["webnb"]["jobs"], app.extensions["webnb"]["heavy_work"]
    ran = []
    with HeldSlot(gate):
        job = jobs.start("Counting", lambda job: ran.append("work") or "/done")
        with pytest.raises(concurrent.futures.TimeoutError):
            jobs._futures[job.id].result(timeout=0.5)  # waiting for the slot, not working
        assert ran == [] and job.state == "running"
    assert jobs.wait(job.id, timeout=10).state == "done" and ran == ["work"]


def test_a_job_keeps_the_cap_of_the_request_that_started_it(tmp_path):
    app = make_app(tmp_path, WEBNB_MAX_WORK_MB=7)
    jobs = app.extensions["webnb"]["jobs"]
    seen = []
    with app.test_request_context("/"):
        app.preprocess_request()
        job = jobs.start("Looking", lambda job: seen.append(budget.current_limit()) or "/done")
    jobs.wait(job.id, timeout=10)
    assert seen == [7 * MB]


def test_the_gate_lets_a_thread_that_holds_a_slot_enter_again():
    gate = work.HeavyWork(1)
    with gate.slot(wait=False):
        with gate.slot(wait=False):  # a job that counts, then splits
            pass
        with pytest.raises(work.Busy):
            concurrent.futures.ThreadPoolExecutor(1).submit(lambda: gate.slot(wait=False).__enter__()).result()
    with gate.slot(wait=False):
        pass


# -- a gzip bomb ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    """One JSON line, then 200 MB of spaces: about 200 KB of gzip."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=6, mtime=0) as packed:
        packed.write(b'{"label": "a", "text": "bomb"}\n')
        block = b" " * MB
        for _ in range(200):
            packed.write(block)
    return out.getvalue()


def _peak_of(call) -> tuple[int, object]:
    tracemalloc.start()
    try:
        try:
            result = call()
        except CorpusError as error:
            result = error
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


@pytest.mark.slow  # about 1 s
def test_a_gzip_bomb_is_refused_in_bounded_memory(gzip_bomb):
    limit = 50 * 1024 * 1024
    peak, refused = _peak_of(lambda: read_corpus_bytes(gzip_bomb, filename="bomb.jsonl.gz", max_bytes=limit))
    assert isinstance(refused, CorpusError) and "larger than the limit of 52.43 MB once decompressed" in str(refused)
    assert peak <= 100 * MB, peak / MB


@pytest.mark.slow  # about 1 s
def test_inspecting_a_gzip_bomb_unpacks_only_its_start(gzip_bomb):
    peak, shape = _peak_of(lambda: inspect_table(gzip_bomb, filename="bomb.csv.gz"))
    assert peak <= 5 * MB, peak / MB  # it used to unpack all 200 MB
    assert not isinstance(shape, CorpusError) and shape.preview_rows == (('{"label": "a"', ' "text": "bomb"}'),)


@pytest.mark.slow  # about 1 s
def test_the_upload_form_refuses_a_gzip_bomb_in_bounded_memory(tmp_path, gzip_bomb):
    app = make_app(tmp_path)
    client = app.test_client()
    for path in ("/corpora/upload/inspect", "/corpora/upload"):
        peak, response = _peak_of(
            lambda path=path: client.post(path, data={"file": (io.BytesIO(gzip_bomb), "bomb.csv.gz")}))
        assert peak <= 100 * MB, (path, peak / MB)
        assert response.status_code in (200, 400)
    assert "once decompressed; nothing was loaded" in alert(response)
    assert app.extensions["webnb"]["storage"].list_corpora() == []


# -- peak resident memory of pages, each in a fresh process ---------------------------------------------------------


# One page of each kind of work (the ten steps of Bayes' rule fit the same model; most exports read the same tables).
PAGES_OF_EACH_KIND = ("parameters", "inference contributions", "evaluation", "sweep", "compare", "confidence", "sample",
                      "export matrix.csv", "export predictions.csv", "export notebook.ipynb")


@pytest.mark.slow
def test_pages_on_a_scaled_hostile_corpus_stay_under_the_cap_or_refuse(tmp_path):
    """The corpus of the issue, scaled down by 10 (4,500 documents, 40,000 words, 100 classes) and the cap with it
    (60 MB: counting fits, the class tables do not): each page grows the process by at most its two pieces of work
    (counting the corpus, then its split), whether it is shown or refused with a message."""
    corpus = tmp_path / "hostile.jsonl"
    hostile_corpus.write_corpus(corpus, 4500, 40_000, 100, 205, 0)
    cap = 60
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "memory_pages.py"), str(corpus), "--mode", "hosted",
         "--max-work-mb", str(cap), "--jobs", "2", *(part for page in PAGES_OF_EACH_KIND for part in ("--only", page))],
        capture_output=True, text=True, cwd=REPO_ROOT, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("hosted")]
    assert len(rows) == 13, done.stdout  # the pages above, and the exports of parameters and of the evaluation
    refused = 0
    for row in rows:
        status, growth, message = row[43:49].strip(), float(row[50:60]), row[71:]
        assert status in ("200", "400"), row  # never a 500 or a crash
        refused += "would need about" in message
        # The cap bounds each piece of work; a page may count the corpus, then its split (both kept in the cache),
        # so two caps at most. (The bound was 1.6 caps, under which compare max_features=13000 grew 91.5 to 96.1 MB
        # in five runs of two commits with the same work: the allocator's arenas vary, and the test failed by luck.)
        assert growth <= 2 * cap, row
    assert refused >= 1, done.stdout
