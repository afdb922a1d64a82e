"""A labelled corpus: parallel tuples of texts and labels, validated once."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property


class CorpusError(ValueError):
    """Bad input that the user can fix; the message says how.

    A ``ValueError``, so that code catching bad values catches it too. The pages show its message as it is.

    Parameters
    ----------
    message : str
        What is wrong, and what to change.
    """


class Labelled:
    """What texts and tables of numbers share: one label per item (``labels``)."""

    labels: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.labels)  # one label per item: documents or rows

    @cached_property
    def classes(self) -> tuple[str, ...]:
        """The distinct labels, sorted (scikit-learn orders classes the same way). Found once: the labels never
        change, and pages ask often (20 Newsgroups has 11,314 labels)."""
        return tuple(sorted(set(self.labels)))

    def class_counts(self) -> dict[str, int]:
        return dict(self._class_counts)

    @cached_property
    def _class_counts(self) -> dict[str, int]:
        counts = Counter(self.labels)
        return {label: counts[label] for label in self.classes}

    def _require_two_classes(self, item: str) -> None:
        if len(self.labels) == 0:
            raise CorpusError(f"The {'corpus' if item == 'document' else 'table'} has no {item}s. "
                              "Add at least two, with two different labels.")
        if len(self.classes) < 2:
            raise CorpusError(
                f"Every {item} has the label {self.classes[0]!r}: a classifier needs at least two classes. "
                f"Add {item}s with another label."
            )


@dataclass(frozen=True)
class Corpus(Labelled):
    """Documents with their class labels.

    ``texts[i]`` has label ``labels[i]``; ``ids[i]`` names where it came from (a line number or a
    file name) so that an error or a misclassified document can be traced back.

    Parameters
    ----------
    texts : tuple of str
        The documents, one string each.
    labels : tuple of str
        The class of each document, parallel to ``texts``.
    ids : tuple of str
        Where each document came from, parallel to ``texts``.
    name : str, default ""
        What the corpus is called (a file name, say).

    Attributes
    ----------
    classes : tuple of str
        The distinct labels, sorted (scikit-learn orders classes the same way).

    Raises
    ------
    CorpusError
        If ``texts``, ``labels`` and ``ids`` differ in length.

    Examples
    --------
    >>> corpus = Corpus.from_pairs([("China", "Chinese Beijing Chinese"), ("China", "Chinese Macao"),
    ...                             ("Japan", "Tokyo Japan Chinese")])
    >>> len(corpus), corpus.classes, corpus.ids
    (3, ('China', 'Japan'), ('1', '2', '3'))
    >>> corpus.class_counts()
    {'China': 2, 'Japan': 1}
    """

    texts: tuple[str, ...]
    labels: tuple[str, ...]
    ids: tuple[str, ...]
    name: str = ""

    def __post_init__(self):
        if not (len(self.texts) == len(self.labels) == len(self.ids)):
            raise CorpusError("texts, labels and ids must have the same length")

    @classmethod
    def from_pairs(cls, pairs, name: str = "") -> "Corpus":
        """Build from ``(label, text)`` pairs, numbering documents from 1.

        Parameters
        ----------
        pairs : iterable of (str, str)
            The documents as (label, text), in corpus order.
        name : str, default ""
            The corpus's name.

        Returns
        -------
        Corpus
            The documents, with ids "1", "2", … in the order given.

        Examples
        --------
        >>> Corpus.from_pairs([("spam", "win cash"), ("ham", "see you")]).labels
        ('spam', 'ham')
        """
        pairs = list(pairs)
        return cls(
            texts=tuple(text for _, text in pairs),
            labels=tuple(label for label, _ in pairs),
            ids=tuple(str(i) for i in range(1, len(pairs) + 1)),
            name=name,
        )

    def require_trainable(self) -> None:
        """Refuse corpora that no classifier can be trained on, saying what to add.

        Returns
        -------
        None
            When the corpus has documents of at least two classes.

        Raises
        ------
        CorpusError
            If the corpus has no documents, or if every document has the same label (a classifier needs two classes).

        Examples
        --------
        >>> Corpus.from_pairs([("spam", "win cash"), ("spam", "cash now")]).require_trainable()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        webnb.engine.shared.corpus.CorpusError: Every document has the label 'spam': a classifier needs ... classes...
        """
        self._require_two_classes("document")

    def subset(self, indices) -> "Corpus":
        """The documents at ``indices``, in that order, as a new corpus of the same name.

        Parameters
        ----------
        indices : iterable of int
            Positions in this corpus (a numpy array of indices, say, as ``stratified_split`` gives).

        Returns
        -------
        Corpus
            The documents at ``indices``, with their labels and ids.

        Raises
        ------
        IndexError
            If an index is out of range.

        Examples
        --------
        >>> corpus = Corpus.from_pairs([("spam", "win cash"), ("ham", "see you"), ("ham", "lunch?")])
        >>> corpus.subset([2, 0]).ids
        ('3', '1')
        """
        indices = [int(i) for i in indices]
        return Corpus(
            texts=tuple(self.texts[i] for i in indices),
            labels=tuple(self.labels[i] for i in indices),
            ids=tuple(self.ids[i] for i in indices),
            name=self.name,
        )


# The lecture's worked example (Manning, Raghavan and Schütze, "Introduction to Information Retrieval", example 13.1):
# four training documents as (label, text), three of China and one of Japan; its test document d5 is
# "Chinese Chinese Chinese Tokyo Japan". The engine's examples train on it, so they are short and match the lecture.
CHINA_JAPAN = (
    ("China", "Chinese Beijing Chinese"),
    ("China", "Chinese Chinese Shanghai"),
    ("China", "Chinese Macao"),
    ("Japan", "Tokyo Japan Chinese"),
)
