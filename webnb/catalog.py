"""Where corpora come from (the built-in examples, or the database) and the fitted training sets,
kept per process so that moving α or paging a table never re-reads a corpus."""
from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from webnb.engine import AnalysisOptions, Corpus, CorpusError, TrainingSet, VocabularyOptions
from webnb.engine.heldout import HeldOut, hold_out, on_test_corpus, on_training_documents
from webnb.engine.evaluation import stratified_split
from webnb.engine.gaussian import GaussianStatistics
from webnb.engine.table import NumericTable
from webnb.examples import EXAMPLES, TABLE_EXAMPLES, load_example_corpus, load_example_table
from webnb.state import LessonState
from webnb.storage import ANY_WORKSPACE, Storage
from webnb.work import heavy_slot


@dataclass(frozen=True)
class CorpusEntry:
    id: str
    name: str
    description: str
    builtin: bool
    source: str
    corpus: Corpus
    defaults: LessonState  # the settings a first visit starts from
    workspace: str | None = None  # the owner in hosted mode (None: a built-in, or local mode)
    # A table of numbers (for Gaussian NB) instead of texts; ``corpus`` then holds its rows written out.
    table: NumericTable | None = None
    sample: tuple[float, ...] | None = None  # a table example's first row for the step-through
    far: tuple[float, ...] | None = None  # and one whose densities underflow

    @property
    def is_table(self) -> bool:
        return self.table is not None

    @property
    def n_documents(self) -> int:
        return len(self.corpus)


# Below this many documents a held-out split leaves almost nothing to learn from or to test on, so the
# evaluation starts on the training documents (as the lecture's small examples do).
SMALLEST_SPLIT_CORPUS = 10


def _example_entry(example) -> CorpusEntry:
    corpus = load_example_corpus(example.id)
    return CorpusEntry(
        id=example.id,
        name=example.title,
        description=example.description,
        builtin=True,
        source="built in",
        corpus=corpus,
        defaults=LessonState(
            model=example.suggested_model,
            alpha=example.suggested_alpha,
            text=example.sample_review,
            test="training" if len(corpus) < SMALLEST_SPLIT_CORPUS else "split",
        ),
    )


def _table_example_entry(example) -> CorpusEntry:
    table = load_example_table(example.id)
    return CorpusEntry(
        id=example.id,
        name=example.title,
        description=example.description,
        builtin=True,
        source="built in",
        corpus=table.to_corpus(),
        defaults=LessonState(),
        table=table,
        sample=example.sample,
        far=example.far,
    )


class Catalog:
    """Built-in corpora first (read-only, by their fixed ids), then the ones users added."""

    def __init__(self, storage: Storage, cache_size: int = 6):
        self.storage = storage
        self._builtin = {example.id: _example_entry(example) for example in EXAMPLES}
        self._builtin.update({example.id: _table_example_entry(example) for example in TABLE_EXAMPLES})
        self._training_sets: OrderedDict = OrderedDict()
        self._held_out: OrderedDict = OrderedDict()
        self._stored: OrderedDict = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def builtin(self) -> list[CorpusEntry]:
        return list(self._builtin.values())

    def stored(self, workspace=ANY_WORKSPACE):
        return self.storage.list_corpora(workspace)

    def get(self, corpus_id: str, workspace=ANY_WORKSPACE) -> CorpusEntry | None:
        """The corpus, or None when there is none with this id or (given a ``workspace``) it belongs to another
        workspace: to a student, another student's corpus does not exist. Built-ins belong to everyone."""
        if corpus_id in self._builtin:
            return self._builtin[corpus_id]
        entry = self._get_stored(corpus_id)
        if entry is None or (workspace is not ANY_WORKSPACE and entry.workspace != workspace):
            return None
        return entry

    def _get_stored(self, corpus_id: str) -> CorpusEntry | None:
        with self._lock:
            if corpus_id in self._stored:
                self._stored.move_to_end(corpus_id)
                return self._stored[corpus_id]
        stored = self.storage.get_corpus(corpus_id)
        if stored is None:
            return None
        # A stored table of numbers comes back as a table (its documents are its rows written out).
        table = None if stored.features is None else NumericTable.from_corpus(stored.corpus, stored.features)
        entry = CorpusEntry(
            id=stored.id,
            name=stored.name,
            description="",
            builtin=False,
            source=stored.source,
            corpus=stored.corpus,
            defaults=LessonState() if table is not None else LessonState(model="multinomial", alpha="1"),
            workspace=stored.workspace,
            table=table,
        )
        with self._lock:
            self._stored[corpus_id] = entry
            while len(self._stored) > self._cache_size:
                self._stored.popitem(last=False)
        return entry

    def add(
        self, corpus: Corpus | NumericTable, *, name: str, source: str, progress=None, workspace=None, quota=None
    ) -> str:
        """Store a user's corpus (or table of numbers) in ``workspace``, refusing one that cannot be trained on or
        that would take the workspace over its ``quota`` (and then storing nothing)."""
        if isinstance(corpus, NumericTable):
            # Stored as its rows written out, with the feature names; there are no words to count.
            corpus.require_trainable()
            rows = corpus.to_corpus()
            if quota is not None:
                quota.check(self.storage.usage(workspace), rows)
            return self.storage.add_corpus(rows, name=name, source=source, workspace=workspace, features=corpus.features)
        corpus.require_trainable()
        if quota is not None:
            quota.check(self.storage.usage(workspace), corpus)
        # Counting it first refuses a corpus with no usable words; the count is kept for the first visit.
        analysis, vocabulary = AnalysisOptions(), VocabularyOptions()
        training = TrainingSet.build(corpus, analysis, vocabulary, progress)
        if quota is not None:
            quota.check_vocabulary(len(training.vocabulary))
        corpus_id = self.storage.add_corpus(corpus, name=name, source=source, workspace=workspace)
        self._remember((corpus_id, analysis, vocabulary), training)
        return corpus_id

    def _remember(self, key, training: TrainingSet) -> None:
        with self._lock:
            self._training_sets[key] = training
            while len(self._training_sets) > self._cache_size:
                self._training_sets.popitem(last=False)

    def cached_training_set(self, entry: CorpusEntry, analysis: AnalysisOptions, vocabulary: VocabularyOptions):
        """The training set if it was already counted under these options, else None."""
        key = (entry.id, analysis, vocabulary)
        with self._lock:
            if key in self._training_sets:
                self._training_sets.move_to_end(key)
                return self._training_sets[key]
        return None

    def training_set(
        self, entry: CorpusEntry, analysis: AnalysisOptions, vocabulary: VocabularyOptions, progress=None
    ) -> TrainingSet:
        """The corpus counted under these options; built once, then served from a small LRU cache."""
        cached = self.cached_training_set(entry, analysis, vocabulary)
        if cached is not None:
            return cached
        key = (entry.id, analysis, vocabulary)
        with heavy_slot(self, entry.n_documents):  # at most WEBNB_MAX_HEAVY_WORK such counts at once (webnb/work.py)
            training = TrainingSet.build(entry.corpus, analysis, vocabulary, progress)
        self._remember(key, training)
        return training

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
            raise CorpusError(f"{test_entry.name!r} is a table of numbers, not texts: pick a corpus of texts to test on.")
        return test_entry

    @staticmethod
    def _held_out_key(entry, analysis, vocabulary, test: str, test_size: float, seed: int, test_entry=None):
        if test == "split":
            return (entry.id, analysis, vocabulary, test, test_size, seed)
        if test_entry is None:
            return (entry.id, analysis, vocabulary, test)
        # The owner is part of the key too: an entry can only ever answer a request from a workspace that may see it.
        return (entry.id, analysis, vocabulary, "corpus", test_entry.id, test_entry.workspace)

    def cached_held_out(
        self, entry, analysis, vocabulary, test: str, test_size: float, seed: int, workspace=ANY_WORKSPACE
    ) -> HeldOut | None:
        """The held-out set if it was already made, else None; raises CorpusError for a test corpus that this
        ``workspace`` may not see, before looking in the cache."""
        test_entry = self.test_corpus(test, workspace)
        key = self._held_out_key(entry, analysis, vocabulary, test, test_size, seed, test_entry)
        with self._lock:
            if key in self._held_out:
                self._held_out.move_to_end(key)
                return self._held_out[key]
        return None

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
        (the training documents themselves) or the id of another corpus. Kept in a small LRU cache."""
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
        with self._lock:
            self._held_out[key] = held
            while len(self._held_out) > self._cache_size:
                self._held_out.popitem(last=False)
        return held

    # -- tables of numbers --------------------------------------------------------------------------

    def gaussian_split(self, entry: CorpusEntry, test: str = "all", test_size: float = 0.25, seed: int = 0) -> GaussianSplit:
        """The table's Gaussian statistics: of all its rows (``test`` "all"), or of the training part of a stratified
        split ("split") with its test rows, or of all rows tested on themselves ("training"). Kept in a small LRU
        cache, so a new var_smoothing or prior never reads the rows again."""
        key = ("gaussian", entry.id, test, test_size, seed) if test == "split" else ("gaussian", entry.id, test)
        with self._lock:
            if key in self._held_out:
                self._held_out.move_to_end(key)
                return self._held_out[key]
        table = entry.table
        if test == "split":
            train_index, test_index = stratified_split(table.labels, test_size, seed)
            training, tested, positions = table.subset(train_index), table.subset(test_index), test_index
        else:
            training, tested, positions = table, table, np.arange(len(table))
        held = GaussianSplit(GaussianStatistics.fit(training), training, tested, positions)
        with self._lock:
            self._held_out[key] = held
            while len(self._held_out) > self._cache_size:
                self._held_out.popitem(last=False)
        return held


@dataclass(frozen=True, eq=False)
class GaussianSplit:
    """Statistics of a table's training rows, with the rows it is tested on and their places in the table."""

    statistics: GaussianStatistics
    training: NumericTable
    test: NumericTable
    positions: np.ndarray


@dataclass(frozen=True)
class Quota:
    """What one workspace may store in hosted mode; a corpus that would go over is refused whole."""

    corpora: int
    documents: int
    characters: int
    vocabulary: int
    # The limits per client address and on the whole server's storage (webnb/admission.py), None for none.
    admission: "webnb.admission.Admission | None" = field(default=None, kw_only=True)

    @classmethod
    def unlimited(cls, admission: "webnb.admission.Admission") -> "Quota":
        """No per-workspace limit, only ``admission``'s (local mode with a storage budget)."""
        return cls(corpora=sys.maxsize, documents=sys.maxsize, characters=sys.maxsize, vocabulary=sys.maxsize,
                   admission=admission)

    def check(self, usage: tuple[int, int, int], corpus: Corpus) -> None:
        count, documents, characters = usage
        adding = sum(map(len, corpus.texts))
        if count + 1 > self.corpora:
            raise CorpusError(f"Your workspace already holds {count} corpora, the most it may hold. Nothing was stored.")
        if documents + len(corpus) > self.documents:
            raise CorpusError(
                f"Your workspace may hold {self.documents:,} documents in all; it holds {documents:,} and this corpus has "
                f"{len(corpus):,}. Nothing was stored.")
        if characters + adding > self.characters:
            raise CorpusError(
                f"Your workspace may hold {self.characters:,} characters of text in all; it holds {characters:,} and this "
                f"corpus has {adding:,}. Nothing was stored.")

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
        return self._catalog.stored(self.workspace)

    def add(self, corpus: Corpus | NumericTable, *, name: str, source: str, progress=None) -> str:
        """Every corpus a user stores comes through here (paste, upload, a shared copy, a kept addition): the
        limits per address and the server's storage budget refuse it first, before any work, storing nothing."""
        workspace = None if self.workspace is ANY_WORKSPACE else self.workspace
        admission = self.quota.admission if self.quota is not None else None
        admitted = admission.admit(self._catalog.storage, workspace, corpus) if admission is not None else None
        corpus_id = self._catalog.add(corpus, name=name, source=source, progress=progress, workspace=workspace,
                                      quota=self.quota)
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
