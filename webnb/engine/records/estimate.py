"""One learned word probability, ψ_jk (Bernoulli) or θ_jk (multinomial), with the counts it is made of.

The parameters table shows hundreds of cells; a student opens one to see how its number comes about. This is
what that cell says: the two counts, the pseudo-count α, the ratio as the lecture writes it, the value, and
whether an ε-floor moved it.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from webnb.engine.shared.plain import fraction_text, number, ratio_text
from webnb.engine.text.models import NaiveBayes


@dataclass(frozen=True)
class Estimate:
    """One cell of a model's ψ or θ table, with the counts it is made of: what ``estimate`` returns.

    Parameters
    ----------
    word, label : str
        The word and the class.
    kind : str
        "bernoulli" (ψ) or "multinomial" (θ).
    alpha : Fraction
        The pseudo-count.
    count : int
        Documents of the class containing the word (Bernoulli, binary) or its occurrences there.
    total : int
        Documents of the class (Bernoulli) or the words of the class in all (multinomial).
    n_words : int
        |V|: multinomial smoothing adds α once per vocabulary word.
    ratio : tuple
        (count + α, total + 2α) or (count + α, total + |V|α), unreduced.
    value : float
        What the model uses: the ratio, or the ratio clipped to the ε-floor.
    epsilon : float or None
        The ε-floor, if any.
    model : dict
        The model's settings (``NaiveBayes.to_dict()``).

    Attributes
    ----------
    exact : Fraction
        The ratio's value.
    floored : bool
        Whether the ε-floor moved the value away from the ratio.
    zero, one : bool
        Whether the value is exactly 0, or 1 for Bernoulli (either breaks the product).
    """
    word: str
    label: str
    kind: str  # "bernoulli" (ψ) or "multinomial" (θ)
    alpha: Fraction
    count: int  # documents of the class containing the word (Bernoulli, binary) or its occurrences there
    total: int  # documents of the class (Bernoulli) or the words of the class in all (multinomial)
    n_words: int  # |V|: multinomial smoothing adds α once per vocabulary word
    ratio: tuple  # (count + α, total + 2α) or (count + α, total + |V|α), unreduced
    value: float  # what the model uses: the ratio, or the ratio clipped to the ε-floor
    epsilon: float | None
    model: dict

    @property
    def exact(self) -> Fraction:
        return Fraction(self.ratio[0]) / Fraction(self.ratio[1])

    @property
    def floored(self) -> bool:
        """Whether the ε-floor moved the value away from the ratio."""
        return self.epsilon is not None and self.value != float(self.exact)

    @property
    def zero(self) -> bool:
        return self.value == 0.0

    @property
    def one(self) -> bool:
        return self.kind == "bernoulli" and self.value == 1.0

    def to_dict(self) -> dict:
        return {
            "word": self.word,
            "class": self.label,
            "model": self.model,
            "count": self.count,
            "total": self.total,
            "vocabulary_size": self.n_words,
            "ratio": ratio_text(self.ratio),
            "exact": fraction_text(self.exact),
            "value": number(self.value),
            "floored": self.floored,
            "zero": self.zero,
            "one": self.one,
        }


def estimate(model: NaiveBayes, word_index: int, class_index: int) -> Estimate:
    """The cell (word ``word_index``, class ``class_index``) of ``model``'s ψ or θ table.

    Parameters
    ----------
    model : NaiveBayes
        A fitted model.
    word_index : int
        The word's column j.
    class_index : int
        The class number k.

    Returns
    -------
    Estimate
        The counts, α, the unreduced ratio and the value the model uses.

    Raises
    ------
    IndexError
        If ``word_index`` or ``class_index`` is out of range.

    Examples
    --------
    >>> from webnb.engine import CHINA_JAPAN, Corpus, TrainingSet
    >>> training = TrainingSet.build(Corpus.from_pairs(CHINA_JAPAN))
    >>> cell = estimate(training.model("multinomial", 1), training.bag.index["chinese"], 0)
    >>> cell.count, cell.total, cell.n_words, cell.ratio, cell.exact  # θ = (5 + 1)/(8 + 6·1)
    (5, 8, 6, (6, 14), Fraction(3, 7))
    """
    stats = model.statistics
    if model.uses_presence:
        count = int(stats.document_count_[class_index, word_index])
    else:
        count = int(stats.word_count_[class_index, word_index])
    if model.kind == "bernoulli":
        total = int(stats.class_count_[class_index])
    else:
        total = int(stats.feature_total[model.binary][class_index])
    ratio = model.feature_ratio(class_index, word_index)  # the ratio before any ε-floor clips its value
    return Estimate(
        word=model.vocabulary[word_index],
        label=model.classes[class_index],
        kind=model.kind,
        alpha=model.alpha,
        count=count,
        total=total,
        n_words=stats.n_words,
        ratio=ratio,
        value=float(model.columns([word_index])[0][class_index, 0]),
        epsilon=model.epsilon,
        model=model.to_dict(),
    )

