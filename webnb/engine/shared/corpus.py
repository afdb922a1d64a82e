"""A labelled corpus: parallel tuples of texts and labels, validated once."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property


class CorpusError(ValueError):
    """Bad input that the user can fix; the message says how."""


class Labelled:
    """What texts and tables of numbers share: one label per item (``labels``)."""

    labels: tuple[str, ...]

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
        """Build from ``(label, text)`` pairs, numbering documents from 1."""
        pairs = list(pairs)
        return cls(
            texts=tuple(text for _, text in pairs),
            labels=tuple(label for label, _ in pairs),
            ids=tuple(str(i) for i in range(1, len(pairs) + 1)),
            name=name,
        )

    def __len__(self) -> int:
        return len(self.texts)

    def require_trainable(self) -> None:
        """Refuse corpora that no classifier can be trained on, saying what to add."""
        self._require_two_classes("document")

    def subset(self, indices) -> "Corpus":
        indices = [int(i) for i in indices]
        return Corpus(
            texts=tuple(self.texts[i] for i in indices),
            labels=tuple(self.labels[i] for i in indices),
            ids=tuple(self.ids[i] for i in indices),
            name=self.name,
        )
