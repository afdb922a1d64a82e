"""Where corpora come from (the built-in examples, or the database) and their counted data.

A stored corpus is counted once for every process and machine: the first process that needs it counted under some
analysis options claims the work in the database, counts, and stores the result (webnb/engine/io/persist.py); every
other one loads that instead of counting again. What a process holds (documents, counted statistics, matrices,
held-out sets) lives in one cache bounded in bytes (``WEBNB_CACHE_MB``), so moving α or paging a table never
re-reads a corpus while it fits."""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Callable

from flask import has_request_context

from webnb.engine import AnalysisOptions, Corpus, CorpusError, TrainingSet, VocabularyOptions
from webnb.engine.evaluation.heldout import HeldOut, hold_out, on_test_corpus, on_training_documents
from webnb.engine.gaussian.lesson import GaussianSplit
from webnb.engine.gaussian.table import NumericTable
from webnb.engine.io import persist
from webnb.engine.text.analysis import Analyzer
from webnb.engine.text.bag import BagOfWords
from webnb.examples import EXAMPLES, TABLE_EXAMPLES, example_ids, load_example_corpus, load_example_table
from webnb.hosting.cache import DEFAULT_CACHE_MB, Cache, size_of
from webnb.hosting.work import Busy, heavy_slot
from webnb.lesson.notation import NOTATIONS
from webnb.store.database import (
    ANY_WORKSPACE,
    ClassCorpusSummary,
    CorpusSummary,
    PublishedCorpus,
    Storage,
    content_hash,
)
from webnb.store.faults import pause_at

if TYPE_CHECKING:  # named in annotations only
    from webnb.hosting.admission import Admission, PacedStore

logger = logging.getLogger("webnb.counting")

# A process that counts renews its claim this often (a heartbeat from a thread of its own, so a long count keeps
# it); a claim not renewed for STALE_CLAIM belongs to a process that died or hangs, and another takes over.
CLAIM_HEARTBEAT_SECONDS = 2.0
STALE_CLAIM = timedelta(seconds=15)
# How often a process waiting for another's count looks whether it is done, and how long a request waits before
# it answers 503 (a background job waits on: the claim either ends or goes stale).
CLAIM_POLL_SECONDS = 0.2
CLAIM_WAIT_SECONDS = 5.0
COUNTED_ELSEWHERE = ("Someone else's request is counting this corpus with these settings right now. Nothing was "
                     "changed; the page will be ready in a few seconds, please try again.")


@dataclass(frozen=True, eq=False)
class CorpusEntry:
    """A corpus as the pages see it. A stored entry holds only its row; its documents (and, for a table of
    numbers, its table) are loaded when first used and kept in the catalog's cache."""

    id: str
    name: str
    description: str
    builtin: bool
    source: str
    n_documents: int
    workspace: str | None = None  # the owner in hosted mode (None: a built-in, or local mode)
    content: str | None = None  # the hash of its stored records; None for a built-in
    # A table of numbers (for Gaussian NB) instead of texts: its feature columns, None for texts.
    features: tuple[str, ...] | None = None
    sample: tuple[float, ...] | None = None  # a table example's first row for the step-through
    far: tuple[float, ...] | None = None  # and one whose densities underflow
    load_corpus: Callable[[], Corpus] = field(default=None, repr=False)
    load_table: Callable[[], NumericTable] | None = field(default=None, repr=False)
    # The address parameters its pages open with, as (name, text) pairs: a built-in's suggested model, α and
    # review, a class corpus's presets as the operator gave them. Plain data: webnb/lesson/state.py reads them
    # (``entry_defaults``), so the storage side never parses an address.
    presets: tuple[tuple[str, str], ...] = ()
    # A class corpus (published by the operator to every workspace; ``builtin`` too, as it is read-only like one),
    # with its documents per class.
    class_corpus: bool = False
    class_counts: tuple[tuple[str, int], ...] = ()

    @property
    def corpus(self) -> Corpus:
        """The documents (for a table, its rows written out)."""
        return self.load_corpus()

    @property
    def table(self) -> NumericTable | None:
        return None if self.load_table is None else self.load_table()

    @property
    def is_table(self) -> bool:
        return self.features is not None

    def preset(self, name: str, default: str = "") -> str:
        """The text of one preset (the last one given), or ``default``."""
        return dict(self.presets).get(name, default)

    @property
    def preset_phrases(self) -> tuple[str, ...]:
        """A class corpus's presets in words, for its place in the lists."""
        notation = dict(self.presets).get("notation")
        pseudo_count = NOTATIONS[notation].pseudo_count if notation in NOTATIONS else "α"
        return tuple(_preset_phrase(name, text, pseudo_count) for name, text in self.presets)


def _builtin_entry(example, **fields) -> CorpusEntry:
    """A corpus or table that ships with webnb, as the lists show it."""
    return CorpusEntry(id=example.id, name=example.title, description=example.description, builtin=True,
                       source="built in", **fields)


def _example_entry(example) -> CorpusEntry:
    corpus = load_example_corpus(example.id)
    return _builtin_entry(
        example,
        presets=(("model", example.suggested_model), ("alpha", example.suggested_alpha),
                 ("text", example.sample_review)),
        n_documents=len(corpus),
        load_corpus=lambda: corpus,
    )


def _table_example_entry(example) -> CorpusEntry:
    table = load_example_table(example.id)
    rows = table.to_corpus()
    return _builtin_entry(
        example,
        n_documents=len(table),
        features=tuple(table.features),
        sample=example.sample,
        far=example.far,
        load_corpus=lambda: rows,
        load_table=lambda: table,
    )


# -- class corpora ----------------------------------------------------------------------------------------

# An id as the built-ins have them: lowercase letters and digits in words joined by hyphens ("match-reviews"), which
# a page address and the evaluation's test setting carry as they are.
CLASS_CORPUS_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_ID_LENGTH = 64
NGRAM_WORDS = {"1-1": "single words", "1-2": "single words and pairs", "2-2": "pairs of words"}


def _preset_phrase(name: str, text: str, pseudo_count: str = "α") -> str:
    """One preset in the words of the lesson pages (after "opens with"), α named as the corpus's notation names it."""
    phrases = {
        "model": lambda: f"{text} model",
        "alpha": lambda: f"{pseudo_count} = {text}",
        "binary": lambda: "binary features" if text in ("1", "true", "on", "yes") else "counts",
        "max_features": lambda: f"the {int(text):,} most frequent words" if text.isdigit() else "every word",
        "min_df": lambda: f"words in at least {text} documents" if "." not in text else f"min_df {text}",
        "stop_words": lambda: f"{text} stop words left out",
        "ngrams": lambda: NGRAM_WORDS.get(text, text),
        "floor": lambda: "the 10⁻¹⁴ floor" if text in ("1", "true", "on", "yes") else "no floor",
        "text": lambda: f"the review “{text}”",
        "test": lambda: {"split": "a held-out split", "training": "its training documents as the test set"}.get(
            text, f"{text} as the test set"),
        "notation": lambda: f"the notation {NOTATIONS[text].title}" if text in NOTATIONS else f"notation = {text}",
    }
    return phrases.get(name, lambda: f"{name} = {text}")()


def check_class_corpus_id(corpus_id: str) -> None:
    """Refuse an id that is not written as a built-in's (CorpusError saying how), or that a built-in has."""
    if len(corpus_id) > MAX_ID_LENGTH or not CLASS_CORPUS_ID.fullmatch(corpus_id):
        raise CorpusError(
            f"The id {corpus_id[:80]!r} cannot be used: write it as the built-ins' ids are written, in lowercase "
            f"letters and digits with hyphens between words (such as 20news-4), at most {MAX_ID_LENGTH} characters."
        )
    if corpus_id in example_ids() or corpus_id in {example.id for example in TABLE_EXAMPLES}:
        raise CorpusError(f"The id {corpus_id!r} is a built-in corpus's. Choose another.")


class Catalog:
    """Built-in corpora first (read-only, by their fixed ids), then the class corpora the operator published to
    everyone (read-only as well), then the ones users added."""

    def __init__(self, storage: Storage, cache: Cache | None = None):
        """``cache``: where counted corpora are kept, bounded in bytes (create_app makes it; by default
        ``DEFAULT_CACHE_MB``)."""
        self.storage = storage
        self._builtin = {example.id: _example_entry(example) for example in EXAMPLES}
        self._builtin.update({example.id: _table_example_entry(example) for example in TABLE_EXAMPLES})
        self.cache = cache if cache is not None else Cache(max_bytes=DEFAULT_CACHE_MB * 2**20)
        # Counting done by this process (content or built-in id, options): a test's and the load test's evidence.
        self.counted_here: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        # Waiting for another's count (tests set them): how long a request waits, how often a claim is renewed.
        self.clock = time.monotonic
        self.claim_wait_seconds, self.claim_heartbeat_seconds = CLAIM_WAIT_SECONDS, CLAIM_HEARTBEAT_SECONDS

    def builtin(self) -> list[CorpusEntry]:
        """The corpora every workspace has and none may change: the built-ins, then the class corpora."""
        return [*self._builtin.values(), *(self._class_entry(summary) for summary in self.storage.class_corpora())]

    def stored(self, workspace=ANY_WORKSPACE):
        return self.storage.list_corpora(workspace)

    def get(self, corpus_id: str, workspace=ANY_WORKSPACE) -> CorpusEntry | None:
        """The corpus, or None when there is none with this id or (given a ``workspace``) it belongs to another
        workspace: to a student, another student's corpus does not exist. Built-ins belong to everyone."""
        if corpus_id in self._builtin:
            return self._builtin[corpus_id]
        summary = self.storage.summary(corpus_id)  # one row, read every time: a deleted corpus is gone at once
        if summary is None:
            published = self.storage.class_corpus(corpus_id)
            return None if published is None else self._class_entry(published)
        if workspace is not ANY_WORKSPACE and summary.workspace != workspace:
            return None
        return self._stored_entry(summary)

    def _class_entry(self, summary: ClassCorpusSummary) -> CorpusEntry:
        return dataclasses.replace(
            self._content_entry(summary.id, summary.name, summary.content, None),
            description=summary.description, builtin=True, source=summary.source,
            n_documents=summary.n_documents, class_corpus=True, presets=summary.presets,
            class_counts=summary.class_counts,
        )

    def _stored_entry(self, summary: CorpusSummary) -> CorpusEntry:
        return dataclasses.replace(
            self._content_entry(summary.id, summary.name, summary.content, summary.features),
            source=summary.source, n_documents=summary.n_documents, workspace=summary.workspace)

    def _content_entry(self, corpus_id: str, name: str, content: str, features) -> CorpusEntry:
        """An entry for stored records, its documents (and table) loaded when first used."""

        def load_corpus() -> Corpus:
            # Under the entry's own name (copies may rename), kept too: a Corpus finds its classes once.
            return self.cache.get_or_build(("named documents", content, name),
                                           lambda: dataclasses.replace(self._content_corpus(content), name=name),
                                           _corpus_size)

        def load_table() -> NumericTable:
            return self.cache.get_or_build(("table", content, features),
                                           lambda: NumericTable.from_corpus(load_corpus(), features), _table_size)

        return CorpusEntry(
            id=corpus_id,
            name=name,
            description="",
            builtin=False,
            source="",
            n_documents=0,
            content=content,
            features=features,
            load_corpus=load_corpus,
            load_table=None if features is None else load_table,
        )

    def _content_corpus(self, content: str) -> Corpus:
        def load() -> Corpus:
            corpus = self.storage.content_corpus(content)
            if corpus is None:
                raise CorpusError("This corpus was removed while it was being read. Open it again from the list.")
            return corpus

        return self.cache.get_or_build(("documents", content), load, _corpus_size)

    # -- adding ----------------------------------------------------------------------------------------

    def add(
        self, corpus: Corpus | NumericTable, *, name: str, source: str, progress=None, workspace=None, quota=None,
        content: str | None = None, timing: PacedStore | None = None, later: Callable | None = None,
    ) -> str:
        """Store a user's corpus (or table of numbers) in ``workspace``, refusing one that cannot be trained on or
        that would take the workspace over its ``quota`` (and then storing nothing). Records stored already (the
        same corpus uploaded again, a copy) are not stored again, nor counted again. ``content``: the records'
        ``content_hash`` when the caller has it (it is computed once per corpus stored). ``timing``: this store
        timed by the process's ``StorePace`` (hosted mode): records stored already then take as long to store, with
        the same progress reports, as records stored anew, so that nobody learns by timing an upload, or by watching
        its progress, that another workspace has the same records. ``later(work)``, if given (a background job's
        ``Job.later``), runs ``work`` after the job says it is done: the counts are then stored for other processes
        while the first page opens from what this process keeps."""
        if isinstance(corpus, NumericTable):
            # Stored as its rows written out, with the feature names; there are no words to count.
            corpus.require_trainable()
            rows = corpus.to_corpus()
            if quota is not None:
                quota.check(self.storage.usage(workspace), rows)
            corpus_id = self.storage.add_corpus(rows, name=name, source=source, workspace=workspace,
                                                features=corpus.features, content=content)
            if timing is not None:
                timing.finished()
            return corpus_id
        corpus.require_trainable()
        if quota is not None:
            quota.check(self.storage.usage(workspace), corpus)
        # Counting it first refuses a corpus with no usable words; the count is kept for the first visit.
        analysis, vocabulary = AnalysisOptions(), VocabularyOptions()
        content, options = content or content_hash(corpus), persist.options_key(analysis, vocabulary)
        training = self._loaded(content, options)
        counted_now = training is None
        if counted_now:  # not a heavy slot: storing is already one (a background job, or a small paste)
            training = self._count(content, options, corpus, analysis, vocabulary, progress, heavy=False)
        elif timing is not None:
            timing.instead_of_counting(len(corpus), progress)
        if quota is not None:
            quota.check_vocabulary(len(training.vocabulary))
        corpus_id = self.storage.add_corpus(corpus, name=name, source=source, workspace=workspace, content=content)
        if counted_now:
            self._keep(content, options, training, corpus)
            save = functools.partial(self._save, content, options, training)
            # Packing the counts is a sixth of a 20 Newsgroups upload: the first page does not wait for it. Claimed
            # meanwhile, so that another process opening the corpus waits for them rather than counts it again.
            if later is not None and self.storage.claim_counting(content, options, STALE_CLAIM):
                release = functools.partial(self.storage.release_claim, content, options)
                later(functools.partial(_or_else, save, release), if_failed=release)
            else:
                save()
        if timing is not None:
            timing.finished()
        return corpus_id

    def publish(self, published: list[PublishedCorpus],
                options: list[tuple[AnalysisOptions, VocabularyOptions]], *, replace: bool = False) -> None:
        """Publish class corpora to every workspace (a training part and its test part together, or one corpus),
        each counted now under its ``options`` (those of its presets: ``state.counting_options`` checks them),
        once for every process, so that no student waits for it. Refuses (storing nothing) an id written otherwise
        than a built-in's or taken, and a corpus that cannot be trained on. ``replace``: the class corpora under
        these ids are replaced in the same transaction instead (``Storage.add_class_corpora``); an id a user's
        stored corpus has is still refused."""
        ids = [entry.id for entry in published]
        if len(set(ids)) != len(ids):
            raise CorpusError("The training part and the test part need two different ids. Nothing was stored.")
        for entry in published:
            check_class_corpus_id(entry.id)
            entry.corpus.require_trainable()
        self.storage.add_class_corpora(published, replace=replace)
        for entry, (analysis, vocabulary) in zip(published, options, strict=True):
            self.training_set(self.get(entry.id), analysis, vocabulary)

    def withdraw(self, corpus_id: str) -> CorpusEntry:
        """Remove a class corpus (its records stay while another entry uses them); the entry it was. Refuses a
        built-in, an id no class corpus has, and a corpus another class corpus is tested on."""
        if corpus_id in self._builtin:
            raise CorpusError(f"{corpus_id!r} is a built-in corpus; it cannot be removed.")
        entry = self.get(corpus_id)
        if entry is None or not entry.class_corpus:
            raise CorpusError(f"There is no class corpus {corpus_id!r}. `webnb corpora list` lists them.")
        testing = [other.id for other in self.builtin() if other.class_corpus and other.preset("test") == corpus_id]
        if testing:
            raise CorpusError(f"{corpus_id!r} is the test corpus of {', '.join(map(repr, testing))}: remove "
                              f"{'that' if len(testing) == 1 else 'those'} first.")
        if not self.storage.remove_class_corpus(corpus_id):
            raise CorpusError(f"There is no class corpus {corpus_id!r}. `webnb corpora list` lists them.")
        return entry

    def copy(self, entry: CorpusEntry, *, name: str, source: str, workspace=None, quota=None) -> str:
        """A new entry in ``workspace`` for the records of a stored ``entry``: nothing is read, stored or counted
        again. Counts against the workspace's quota like the corpus it copies."""
        if quota is not None:
            summary = self.storage.summary(entry.id)
            quota.check_sizes(self.storage.usage(workspace), entry.n_documents, summary.n_characters or 0)
        corpus_id = self.storage.add_entry(entry.content, name=name, source=source, workspace=workspace,
                                           features=entry.features)
        if corpus_id is None:
            raise CorpusError("The shared corpus was removed meanwhile. Nothing was stored.")
        return corpus_id

    def kept(self, entry: CorpusEntry, what: tuple, build: Callable[[], object], size: Callable | None = None):
        """``build()``, made once per process for this corpus's records and ``what`` (the options and the part of
        the corpus it depends on), then kept in the cache: a page's costly result that depends on the records only,
        such as one page of documents analysed into words, which a whole class opens at once."""
        return self.cache.get_or_build(("kept", entry.content or entry.id, *what), build, size)

    # -- counting once for all processes ---------------------------------------------------------------

    def cached_training_set(self, entry: CorpusEntry, analysis: AnalysisOptions, vocabulary: VocabularyOptions):
        """The training set if it was counted already under these options, by this process or any other (then it
        is loaded), else None."""
        if entry.content is None:
            return self.cache.get(("builtin", entry.id, analysis, vocabulary))
        return self._loaded(entry.content, persist.options_key(analysis, vocabulary))

    def training_set(
        self, entry: CorpusEntry, analysis: AnalysisOptions, vocabulary: VocabularyOptions, progress=None
    ) -> TrainingSet:
        """The corpus counted under these options: from this process's cache, else loaded from the database,
        else counted here (once, whichever process or machine asks first) and stored for every other."""
        if entry.content is None:  # a built-in: a few documents, counted in each process
            return self.cache.get_or_build(
                ("builtin", entry.id, analysis, vocabulary),
                lambda: self._count(entry.id, "", entry.corpus, analysis, vocabulary, progress))
        content, options = entry.content, persist.options_key(analysis, vocabulary)
        waited_since = None
        while True:
            training = self._loaded(content, options)
            if training is not None:
                return training
            if self.storage.claim_counting(content, options, STALE_CLAIM):
                try:
                    with self._claim_renewed(content, options):
                        corpus = entry.corpus
                        pause_at("counting")  # a test's kill lands here, holding the claim
                        training = self._count(content, options, corpus, analysis, vocabulary, progress)
                except BaseException:
                    self.storage.release_claim(content, options)
                    raise
                self._save(content, options, training)
                return self._keep(content, options, training, corpus)
            # Another process (or thread) is counting it: wait for its result rather than count it twice.
            state = self.storage.counting_state(content, options)
            if state is None or state[0] == "done":
                continue
            waited_since = self.clock() if waited_since is None else waited_since
            if has_request_context() and self.clock() - waited_since >= self.claim_wait_seconds:
                raise Busy(COUNTED_ELSEWHERE)
            self._wait_for_another_count()

    def _wait_for_another_count(self) -> None:
        time.sleep(CLAIM_POLL_SECONDS)

    @contextlib.contextmanager
    def _claim_renewed(self, content: str, options: str):
        """Renew the claim every ``claim_heartbeat_seconds`` while the block runs, so that it dies with this
        process: killed, it stops renewing, and another process takes over within STALE_CLAIM."""
        done = threading.Event()

        def renew() -> None:
            while not done.wait(self.claim_heartbeat_seconds):
                try:
                    self.storage.renew_claim(content, options)
                except Exception:  # noqa: BLE001 - a missed beat only lets another process count it too
                    logger.warning("could not renew the claim to count %s", content[:12], exc_info=True)

        beat = threading.Thread(target=renew, name="webnb-claim-heartbeat", daemon=True)
        beat.start()
        try:
            yield
        finally:
            done.set()
            beat.join()

    def _count(self, what: str, options: str, corpus: Corpus, analysis, vocabulary, progress,
               heavy: bool = True) -> TrainingSet:
        # At most WEBNB_MAX_HEAVY_WORK such counts at once (webnb/hosting/work.py).
        with heavy_slot(self, len(corpus)) if heavy else contextlib.nullcontext():
            started = time.perf_counter()
            training = TrainingSet.build(corpus, analysis, vocabulary, progress)
        with self._lock:
            self.counted_here.append((what, options))
        logger.info("counted %s (%s documents, %s words) in %.2f s in process %s", what[:12] or "a built-in",
                    len(corpus), len(training.vocabulary), time.perf_counter() - started, os.getpid())
        return training

    def _save(self, content: str, options: str, training: TrainingSet) -> None:
        """Store the counts, for every process (until then, another process that opens the corpus counts it)."""
        self.storage.save_counted(content, options, **packed_counts(training))

    def _keep(self, content: str, options: str, training: TrainingSet, corpus: Corpus) -> TrainingSet:
        """Keep what was just counted, so that the pages after it load nothing; the training set as every other
        process will load it (its matrix and documents through the cache)."""
        self.cache.put(("documents", content), dataclasses.replace(corpus, name=""), _corpus_size(corpus))
        self.cache.put(("rows", content, options), (training.matrix, training.class_index))
        kept = self._deferred(content, options, training.bag, training.statistics)
        self.cache.put(("counted", content, options), kept, _training_size(kept))
        return kept

    def _loaded(self, content: str, options: str) -> TrainingSet | None:
        """The counted statistics of ``content`` under ``options`` from the cache or the database (its matrix and
        documents are loaded only when a page uses them), or None if nobody has counted it yet."""
        key = ("counted", content, options)
        training = self.cache.get(key)
        if training is not None:
            return training

        def load():
            stored = self.storage.counted(content, options)
            if stored is None:
                return None  # not counted yet: nothing kept
            words = persist.unpack_vocabulary(stored["vocabulary"])
            statistics = persist.unpack_statistics(stored["statistics"], words)
            analysis, vocabulary = persist.options_from_key(options)
            return self._deferred(content, options, BagOfWords(Analyzer(analysis), words, vocabulary), statistics)

        return self.cache.get_or_build(key, load, _training_size)  # one load per key at a time

    def _deferred(self, content: str, options: str, bag: BagOfWords, statistics) -> TrainingSet:
        def documents() -> Corpus:
            return self._content_corpus(content)

        def rows():
            return self.cache.get_or_build(("rows", content, options), lambda: self._rows(content, options))

        return TrainingSet.deferred(bag, statistics, documents=documents, rows=rows)

    def _rows(self, content: str, options: str):
        stored = self.storage.counted(content, options, ("matrix",))
        if stored is not None:
            return persist.unpack_rows(stored["matrix"])
        # Replaced by more recently used options since its statistics were loaded: counted again, from its records.
        corpus = self._content_corpus(content)
        analysis, vocabulary = persist.options_from_key(options)
        training = self._count(content, options, corpus, analysis, vocabulary, None)
        return training.matrix, training.class_index

    # -- held-out test documents -------------------------------------------------------------------

    def test_corpus(self, test: str, workspace) -> CorpusEntry | None:
        """The corpus that ``test`` names as the evaluation's test documents, if ``workspace`` may see it: None for
        "split" and "training". Asked before any cache is consulted, so a held-out set built for one workspace never
        answers another's request; a corpus id is not a secret (students paste page addresses to each other)."""
        if test in ("split", "training"):
            return None
        test_entry = self.get(test, workspace)
        if test_entry is None:
            raise CorpusError(f"There is no test corpus {test!r}. Pick one from the list.")
        if test_entry.is_table:
            raise CorpusError(
                f"{test_entry.name!r} is a table of numbers, not texts: pick a corpus of texts to test on."
            )
        return test_entry

    @staticmethod
    def _held_out_key(entry, analysis, vocabulary, test: str, test_size: float, seed: int, test_entry=None):
        if test == "split":
            return ("held out", entry.id, analysis, vocabulary, test, test_size, seed)
        if test_entry is None:
            return ("held out", entry.id, analysis, vocabulary, test)
        # The owner is part of the key too: an entry can only ever answer a request from a workspace that may see it.
        return ("held out", entry.id, analysis, vocabulary, "corpus", test_entry.id, test_entry.workspace)

    def cached_held_out(
        self, entry, analysis, vocabulary, test: str, test_size: float, seed: int, workspace=ANY_WORKSPACE
    ) -> HeldOut | None:
        """The held-out set if it was already made, else None; raises CorpusError for a test corpus that this
        ``workspace`` may not see, before looking in the cache."""
        test_entry = self.test_corpus(test, workspace)
        return self.cache.get(self._held_out_key(entry, analysis, vocabulary, test, test_size, seed, test_entry))

    def held_out(
        self,
        entry: CorpusEntry,
        analysis: AnalysisOptions,
        vocabulary: VocabularyOptions,
        test: str = "split",
        test_size: float = 0.25,
        seed: int = 0,
        progress=None,
        workspace=ANY_WORKSPACE,
    ) -> HeldOut:
        """Training and test documents as ``test`` says: "split" (a stratified split of the corpus), "training"
        (the training documents themselves) or the id of another corpus. Kept in the cache."""
        test_entry = self.test_corpus(test, workspace)  # who may see the test corpus, before any cache
        cached = self.cached_held_out(entry, analysis, vocabulary, test, test_size, seed, workspace)
        if cached is not None:
            return cached
        if test == "split":
            with heavy_slot(self, entry.n_documents):
                held = hold_out(entry.corpus, analysis, vocabulary, test_size=test_size, seed=seed, progress=progress)
        else:
            training = self.training_set(entry, analysis, vocabulary, progress)
            if test == "training":
                held = on_training_documents(training)
            else:
                held = on_test_corpus(training, test_entry.corpus)
        key = self._held_out_key(entry, analysis, vocabulary, test, test_size, seed, test_entry)
        self.cache.put(key, held, _held_out_size(held))
        return held

    # -- tables of numbers --------------------------------------------------------------------------

    def gaussian_split(
        self, entry: CorpusEntry, test: str = "all", test_size: float = 0.25, seed: int = 0
    ) -> GaussianSplit:
        """The table's Gaussian statistics: of all its rows (``test`` "all"), or of the training part of a stratified
        split ("split") with its test rows, or of all rows tested on themselves ("training"). Kept in the cache, so a
        new var_smoothing or prior never reads the rows again."""
        key = ("gaussian", entry.id, test, test_size, seed) if test == "split" else ("gaussian", entry.id, test)

        return self.cache.get_or_build(key, lambda: GaussianSplit.of(entry.table, test, test_size, seed),
                                       lambda held: 2 * _table_size(held.training))


def _or_else(work: Callable[[], None], undo: Callable[[], None]) -> None:
    """``work``, or ``undo`` if it raises (the error goes on)."""
    try:
        work()
    except BaseException:
        undo()
        raise


def packed_counts(training: TrainingSet) -> dict:
    """What ``Storage.save_counted`` stores of a training set: its counts as bytes."""
    return {"n_words": len(training.vocabulary),
            "vocabulary": persist.pack_vocabulary(training.vocabulary),
            "statistics": persist.pack_statistics(training.statistics),
            "matrix": persist.pack_rows(training.matrix, training.class_index)}


# Python objects cost more than the characters they hold: a str has about 50 bytes of header.
def _corpus_size(corpus: Corpus) -> int:
    return sum(len(text) + len(label) + len(doc_id) + 150
               for text, label, doc_id in zip(corpus.texts, corpus.labels, corpus.ids, strict=True))


def _table_size(table: NumericTable) -> int:
    return table.values.nbytes + 150 * len(table)


def _training_size(training) -> int:
    statistics = training.statistics
    # The vocabulary as str objects with its index dict (about 150 bytes a word), and the statistics' arrays
    # twice: the models derived from them (TrainingSet.model keeps a few) hold tables of the same shape.
    words = 150 * len(training.vocabulary)
    return words + 2 * (statistics.document_count_.nbytes + statistics.word_count_.nbytes)


def _held_out_size(held: HeldOut) -> int:
    matrices = size_of(held.test_matrix)
    if not held.training.deferred_matrix:  # counted for this split (a deferred one is kept under its own key)
        matrices += size_of(held.training.matrix) + _training_size(held.training)
    return matrices + _corpus_size(held.test)


@dataclass(frozen=True)
class Quota:
    """What one workspace may store in hosted mode; a corpus that would go over is refused whole."""

    corpora: int
    documents: int
    characters: int
    vocabulary: int
    # The limits per client address and on the whole server's storage (webnb/hosting/admission.py), None for none.
    admission: Admission | None = field(default=None, kw_only=True)

    @classmethod
    def unlimited(cls, admission: Admission) -> Quota:
        """No per-workspace limit, only ``admission``'s (local mode with a storage budget)."""
        return cls(corpora=sys.maxsize, documents=sys.maxsize, characters=sys.maxsize, vocabulary=sys.maxsize,
                   admission=admission)

    def check(self, usage: tuple[int, int, int], corpus: Corpus) -> None:
        self.check_sizes(usage, len(corpus), sum(map(len, corpus.texts)))

    def check_sizes(self, usage: tuple[int, int, int], n_documents: int, adding: int) -> None:
        """Whether the workspace (holding ``usage``) may add a corpus of ``n_documents`` and ``adding`` characters."""
        count, documents, characters = usage
        if count + 1 > self.corpora:
            raise CorpusError(
                f"Your workspace already holds {count} corpora, the most it may hold. Nothing was stored."
            )
        if documents + n_documents > self.documents:
            raise CorpusError(
                f"Your workspace may hold {self.documents:,} documents in all; it holds {documents:,} "
                f"and this corpus has {n_documents:,}. Nothing was stored.")
        if characters + adding > self.characters:
            raise CorpusError(
                f"Your workspace may hold {self.characters:,} characters of text in all; it holds {characters:,} "
                f"and this corpus has {adding:,}. Nothing was stored.")

    def check_vocabulary(self, n_words: int) -> None:
        if n_words > self.vocabulary:
            raise CorpusError(
                f"This corpus has {n_words:,} distinct words; a corpus here may have at most {self.vocabulary:,}. "
                "Nothing was stored.")


class ScopedCatalog:
    """The catalog as one workspace sees it: its own stored corpora and the built-ins, nothing else. Everything
    a view reaches through ``views.common.catalog()`` goes through this, so no view can forget the check."""

    def __init__(self, catalog: Catalog, workspace, quota: Quota | None = None):
        self._catalog, self.workspace, self.quota = catalog, workspace, quota

    def get(self, corpus_id: str) -> CorpusEntry | None:
        return self._catalog.get(corpus_id, self.workspace)

    def stored(self):
        """The workspace's own stored corpora; in local mode (ANY_WORKSPACE) those stored in local mode, never a
        hosted workspace's, should the database hold some (webnb/hosting/workspaces.py)."""
        return self._catalog.stored(None if self.workspace is ANY_WORKSPACE else self.workspace)

    def add(self, corpus: Corpus | NumericTable, *, name: str, source: str, progress=None, later=None) -> str:
        """Every corpus a user stores comes through here (paste, upload, a kept addition): the limits per address
        and the server's storage budget refuse it first, before any work, storing nothing. It is charged its full
        size even when another workspace stores the same records, and in hosted mode storing it takes as long
        either way: what this workspace sees never tells what another stores."""
        workspace = None if self.workspace is ANY_WORKSPACE else self.workspace
        admission = self.quota.admission if self.quota is not None else None
        admitted, content, timing = None, None, None
        if admission is not None:
            rows = corpus.to_corpus() if isinstance(corpus, NumericTable) else corpus
            content = content_hash(rows)
            admitted = admission.admit(self._catalog.storage, workspace, rows)
            if admission.pace is not None:
                timing = admission.pace.start("table" if isinstance(corpus, NumericTable) else "texts",
                                              admitted.size, self._catalog.storage.has_content(content))
        corpus_id = self._catalog.add(corpus, name=name, source=source, progress=progress, workspace=workspace,
                                      quota=self.quota, content=content, timing=timing, later=later)
        if admitted is not None:
            admitted.stored()
        return corpus_id

    def copy(self, entry: CorpusEntry, *, name: str, source: str) -> str:
        """A copy of a stored corpus (opened from a share link) in this workspace: a new entry for the same
        records, which costs the server no storage and is charged nothing per address: whoever holds the link knows
        the records exist, so neither its admission nor its speed tells anything. Only the workspace's own quota
        applies."""
        workspace = None if self.workspace is ANY_WORKSPACE else self.workspace
        admission = self.quota.admission if self.quota is not None else None
        admitted = admission.admit(self._catalog.storage, workspace, None, size=0) if admission is not None else None
        corpus_id = self._catalog.copy(entry, name=name, source=source, workspace=workspace, quota=self.quota)
        if admitted is not None:
            admitted.stored()
        return corpus_id

    def held_out(self, *args, **kwargs) -> HeldOut:
        return self._catalog.held_out(*args, workspace=self.workspace, **kwargs)

    def cached_held_out(self, *args, **kwargs) -> HeldOut | None:
        return self._catalog.cached_held_out(*args, workspace=self.workspace, **kwargs)

    def test_corpus(self, test: str) -> CorpusEntry | None:
        return self._catalog.test_corpus(test, self.workspace)

    def __getattr__(self, name):
        # builtin, training_set, cached_training_set, gaussian_split: keyed by entries already checked above
        return getattr(self._catalog, name)
