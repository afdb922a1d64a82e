"""A published claim about two models (one beats the other, or they do equally well), checked on test documents.

Lecture notes and papers say things such as "word pairs improve the results substantially". On a test set the claim
is one pair of models: the ``baseline`` it starts from and the ``contender`` it is about. McNemar's exact test of the
pair (``webnb.engine.evaluation.significance``) says whether these documents can tell the two apart; repeated splits
say how often the contender comes out ahead when only the split changes.

The verdict is one of four words, each a fact about the record:

- "agrees": the claim says the contender is better, and it is, by more than chance (p below the level);
- "consistent": the claim says there is no difference, and these documents cannot tell the two apart (which does not
  show that they are equal);
- "cannot tell": the claim says the contender is better, and these documents cannot tell the two apart;
- "contradicts": the documents tell the two apart the other way: the baseline is better, or (for a claim of no
  difference) either one is.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from webnb.engine.evaluation.significance import McNemar, mcnemar
from webnb.engine.shared.plain import number

BETTER, SAME = "better", "same"
VERDICTS = ("agrees", "consistent", "cannot tell", "contradicts")


@dataclass(frozen=True)
class Claim:
    """What a source says about two models.

    Parameters
    ----------
    key : str
        The claim's name in addresses and JSON.
    topic : str
        What it is about, in a few words (a short list names it so).
    said : str
        What the source says, in one sentence.
    baseline, contender : str
        The keys of the two models: the one the claim starts from and the one it is about.
    expects : {"better", "same"}
        The contender is better than the baseline, or the two do equally well.
    source_figures : str, default ""
        The numbers the source gives for it, if any.
    settings : tuple of (str, str), default ()
        Settings of the source that the check can take over, as (name, value): a page offers to check the claim with
        them.
    """

    key: str
    topic: str
    said: str
    baseline: str
    contender: str
    expects: str
    source_figures: str = ""
    settings: tuple[tuple[str, str], ...] = ()

    def __post_init__(self):
        if self.expects not in (BETTER, SAME):
            raise ValueError(f"a claim expects {BETTER!r} or {SAME!r}, not {self.expects!r}")


@dataclass(frozen=True)
class ClaimCheck:
    """A claim against one split's test documents, and optionally against several splits.

    Parameters
    ----------
    claim : Claim
    baseline_name, contender_name : str
        The two models as the page names them.
    test : McNemar
        McNemar's exact test with the baseline first: ``only_first`` the documents only the baseline gets right.
    level : Fraction
        The p-value below which a difference is called real.
    splits : tuple of (float, float), default ()
        (baseline, contender) accuracy on each of several splits, the first split's first; empty for one split.

    Attributes
    ----------
    baseline_accuracy, contender_accuracy : float
        On this split's test documents.
    points : float
        The contender's accuracy minus the baseline's, in percentage points.
    tells_apart : bool
        Whether p is below ``level``.
    verdict : str
        One of ``VERDICTS`` (see the module's docstring).
    """

    claim: Claim
    baseline_name: str
    contender_name: str
    test: McNemar
    level: Fraction
    splits: tuple[tuple[float, float], ...] = ()

    @property
    def baseline_accuracy(self) -> float:
        return (self.test.both_right + self.test.only_first) / self.test.n

    @property
    def contender_accuracy(self) -> float:
        return (self.test.both_right + self.test.only_second) / self.test.n

    @property
    def points(self) -> float:
        # From the counts, so that two models right on the same number of documents differ by exactly 0.
        return 100 * (self.test.only_second - self.test.only_first) / self.test.n

    @property
    def tells_apart(self) -> bool:
        return self.test.p_exact < self.level

    @property
    def verdict(self) -> str:
        contender_ahead = self.test.only_second > self.test.only_first
        if not self.tells_apart:
            return "consistent" if self.claim.expects == SAME else "cannot tell"
        return "agrees" if self.claim.expects == BETTER and contender_ahead else "contradicts"

    # -- over several splits ----------------------------------------------------------------------------------

    @property
    def contender_wins(self) -> int:
        """Splits on which the contender scored higher than the baseline."""
        return sum(contender > baseline for baseline, contender in self.splits)

    @property
    def baseline_wins(self) -> int:
        """Splits on which the baseline scored higher than the contender."""
        return sum(baseline > contender for baseline, contender in self.splits)

    @property
    def ties(self) -> int:
        return len(self.splits) - self.contender_wins - self.baseline_wins

    @property
    def mean_points(self) -> float | None:
        """The contender's mean lead over the splits, in percentage points; None without splits."""
        if not self.splits:
            return None
        return 100 * math.fsum(contender - baseline for baseline, contender in self.splits) / len(self.splits)

    def to_dict(self) -> dict:
        claim, test = self.claim, self.test
        data = {
            "key": claim.key,
            "topic": claim.topic,
            "said": claim.said,
            "source_figures": claim.source_figures,
            "settings": dict(claim.settings),
            "expects": claim.expects,
            "baseline": {"key": claim.baseline, "name": self.baseline_name, "accuracy": number(self.baseline_accuracy),
                         "only_right": test.only_first},
            "contender": {"key": claim.contender, "name": self.contender_name,
                          "accuracy": number(self.contender_accuracy), "only_right": test.only_second},
            "n_test": test.n,
            "points": number(self.points),
            "p_exact": test.p_plain,
            "p_value": number(test.p_value),
            "level": str(self.level),
            "tells_apart": self.tells_apart,
            "verdict": self.verdict,
        }
        if self.splits:
            data["splits"] = {
                "accuracies": [[number(baseline), number(contender)] for baseline, contender in self.splits],
                "contender_wins": self.contender_wins,
                "baseline_wins": self.baseline_wins,
                "ties": self.ties,
                "mean_points": number(self.mean_points),
            }
        return data


def check_claim(claim: Claim, names: tuple[str, str], baseline_correct, contender_correct, level: Fraction,
                splits=()) -> ClaimCheck:
    """A claim checked on the same test documents.

    Parameters
    ----------
    claim : Claim
    names : (str, str)
        The baseline's and the contender's names.
    baseline_correct, contender_correct : array-like of bool, shape (n_documents,)
        Whether each model classified each test document right (the same documents, in the same order).
    level : Fraction
        The p-value below which a difference is called real.
    splits : iterable of (float, float), optional
        (baseline, contender) accuracy on each of several splits.

    Returns
    -------
    ClaimCheck

    Raises
    ------
    ValueError
        If the two lists differ in length or there is no document.

    Examples
    --------
    >>> claim = Claim("pairs", "Word pairs", "Word pairs do better.", "words", "pairs", "better")
    >>> check = check_claim(claim, ("words", "pairs"), [True] * 8 + [False] * 2, [True] * 6 + [False] * 4,
    ...                     Fraction(1, 20), splits=[(0.8, 0.6), (0.7, 0.75)])
    >>> check.points, check.test.p_exact, check.verdict, check.contender_wins
    (-20.0, Fraction(1, 2), 'cannot tell', 1)
    """
    test = mcnemar(baseline_correct, contender_correct)
    if test.n == 0:
        raise ValueError("a claim needs at least one test document")
    return ClaimCheck(claim, names[0], names[1], test, level,
                      tuple((float(baseline), float(contender)) for baseline, contender in splits))
