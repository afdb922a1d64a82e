"""The numeric engine of webnb: numpy and scipy only, never Flask.

Reading order follows the lesson: analysis (text → words) → bag (sparse counts) → statistics (per
class) → models (φ, ψ, θ for any α) → trace (Bayes' rule for one review) → evaluation.
"""
from webnb.engine.evaluation.scores import Evaluation, evaluate, stratified_split
from webnb.engine.io.readers import read_corpus, read_corpus_bytes
from webnb.engine.shared.corpus import CHINA_JAPAN, Corpus, CorpusError
from webnb.engine.text.analysis import PLACEHOLDERS, TOKEN_PATTERNS, AnalysisOptions, Analyzer, DocumentAnalysis
from webnb.engine.text.bag import BagOfWords, EmptyVocabularyError, VocabularyOptions
from webnb.engine.text.models import (
    MODEL_KINDS,
    SEED_EPSILON,
    ModelOptions,
    NaiveBayes,
    fit_naive_bayes,
    parse_alpha,
)
from webnb.engine.text.statistics import ClassStatistics
from webnb.engine.text.trace import Trace, explain
from webnb.engine.text.training import TrainingSet

__all__ = [
    "PLACEHOLDERS", "TOKEN_PATTERNS", "AnalysisOptions", "Analyzer", "DocumentAnalysis",
    "BagOfWords", "EmptyVocabularyError", "VocabularyOptions",
    "CHINA_JAPAN", "Corpus", "CorpusError",
    "Evaluation", "evaluate", "stratified_split",
    "MODEL_KINDS", "SEED_EPSILON", "ModelOptions", "NaiveBayes", "fit_naive_bayes", "parse_alpha",
    "read_corpus", "read_corpus_bytes",
    "ClassStatistics", "Trace", "explain", "TrainingSet",
]
