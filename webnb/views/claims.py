"""What a lesson's notes claim about its models (seed 003: word pairs, counting once, logistic regression), checked
on the documents the compare and evaluation pages test on, with McNemar's exact test and, when the page asks for
several splits, on each of them.

A claim about two models of the compare page is read from the page's own comparison (the same McNemar counts as its
table of pairs). The claim about word pairs needs one more model: multinomial Naive Bayes on the same documents
counted as word pairs, with the notes' pseudo-count for them (``BIGRAM_ALPHA``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from flask import current_app

from webnb.engine.evaluation.claims import Claim, ClaimCheck, check_claim
from webnb.engine.evaluation.comparison import SIGNIFICANCE, Comparison, RepeatedSplits
from webnb.engine.evaluation.heldout import HeldOut
from webnb.engine.evaluation.significance import McNemar
from webnb.hosting.work import heavy
from webnb.lesson.seed_lessons import BIGRAM_ALPHA, BIGRAMS, NOTES_CLAIMS
from webnb.views.common import catalog, held_out_key

WORD_PAIRS = (2, 2)


@dataclass(frozen=True)
class NotesClaims:
    """The lesson's claims as these documents tell them: ``checks`` for the claims the page's settings can check,
    ``unchecked`` (claim, why) for the others; ``n_splits`` 1, or the splits each check also reports."""

    checks: tuple[ClaimCheck, ...]
    unchecked: tuple[tuple[Claim, str], ...] = ()
    n_splits: int = 1

    def to_dict(self) -> dict:
        return {
            "splits": self.n_splits,
            "claims": [check.to_dict() for check in self.checks],
            "unchecked": [{"key": claim.key, "topic": claim.topic, "said": claim.said, "why": why}
                          for claim, why in self.unchecked],
        }


def lesson_claims(lesson) -> tuple[Claim, ...]:
    """The claims the notes make about this lesson's corpus: a class corpus published with a lesson's recipe."""
    return NOTES_CLAIMS.get(lesson.entry.id, ()) if lesson.entry.class_corpus else ()


def claims_for(lesson, held: HeldOut, comparison: Comparison, repeated: RepeatedSplits | None = None,
               ) -> NotesClaims | None:
    """The lesson's claims checked on ``held``'s test documents (and on ``repeated``'s splits); None for a lesson
    whose notes claim nothing. Kept in the app's cache of comparisons, beside the comparison it reads."""
    claims = lesson_claims(lesson)
    if not claims:
        return None
    state = lesson.state
    key = (held_out_key(lesson), state.alpha, comparison.fit_prior, comparison.C, "claims",
           repeated.seeds if repeated else None)
    kept = current_app.extensions["webnb"]["comparisons"]

    def check_all() -> NotesClaims:
        checks, unchecked = [], []
        for claim in claims:
            if BIGRAMS in (claim.baseline, claim.contender):
                if state.ngrams != "1-1":
                    unchecked.append((claim, "This page already counts word pairs; with single words (ngrams 1-1) "
                                             "it checks this claim."))
                    continue
                checks.append(_word_pairs(lesson, claim, held, comparison, repeated))
            else:
                checks.append(_from_comparison(claim, comparison, repeated))
        return NotesClaims(tuple(checks), tuple(unchecked), len(repeated.seeds) if repeated else 1)

    return kept.get_or_build(key, check_all)


def _from_comparison(claim: Claim, comparison: Comparison, repeated: RepeatedSplits | None) -> ClaimCheck:
    """A claim about two of the compared models, from the comparison's McNemar test of that pair."""
    pair = comparison.pair(claim.baseline, claim.contender)
    test = pair.test if pair.first == claim.baseline else _swapped(pair.test)
    splits = ()
    if repeated is not None:
        splits = zip(repeated.of(claim.baseline).accuracies, repeated.of(claim.contender).accuracies, strict=True)
    return ClaimCheck(claim, comparison.score(claim.baseline).name, comparison.score(claim.contender).name, test,
                      SIGNIFICANCE, tuple(splits))


def _swapped(test: McNemar) -> McNemar:
    return replace(test, only_first=test.only_second, only_second=test.only_first)


def _word_pairs(lesson, claim: Claim, held: HeldOut, comparison: Comparison, repeated) -> ClaimCheck:
    """The claim about word pairs: the page's multinomial model on single words against the same model on word
    pairs with ``BIGRAM_ALPHA``, on the same test documents (and on each split's)."""
    state, entry, shared = lesson.state, lesson.entry, catalog()
    pairs_analysis, vocabulary = replace(state.analysis_options(), ngram_range=WORD_PAIRS), state.vocabulary_options()
    fit_prior = comparison.fit_prior

    def pairs_held_out(seed: int) -> HeldOut:
        return shared.held_out(entry, pairs_analysis, vocabulary, state.test, state.split[0], seed)

    def correct(split: HeldOut, alpha) -> np.ndarray:
        model = split.training.model("multinomial", alpha, fit_prior=fit_prior)
        return model.predict_index(split.test_matrix) == split.true_class

    with heavy(entry.n_documents * (len(repeated.seeds) if repeated else 1)):
        pairs = pairs_held_out(state.split[1])
        if not np.array_equal(pairs.positions, held.positions):  # the same documents, or no claim can be checked
            raise ValueError("The word pairs' test documents are not the page's; the claim about them is not checked.")
        words_correct, pairs_correct = correct(held, comparison.alpha), correct(pairs, BIGRAM_ALPHA)
        splits = ()
        if repeated is not None:
            words = repeated.of("multinomial").accuracies
            splits = tuple((accuracy, float(correct(pairs_held_out(seed), BIGRAM_ALPHA).mean()))
                           for accuracy, seed in zip(words, repeated.seeds, strict=True))
    names = (comparison.score("multinomial").name + ", single words",
             f"Multinomial Naive Bayes, word pairs (α = {_decimal(BIGRAM_ALPHA)})")
    return check_claim(claim, names, words_correct, pairs_correct, SIGNIFICANCE, splits)


def _decimal(value) -> str:
    return f"{float(value):g}"
