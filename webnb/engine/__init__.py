"""The numeric engine of webnb: numpy and scipy only, never Flask.

Reading order follows the lesson: analysis (text → words) → bag (sparse counts) → statistics (per
class) → models (φ, ψ, θ for any α) → trace (Bayes' rule for one review) → evaluation.
"""
from .analysis import PLACEHOLDERS, TOKEN_PATTERNS, AnalysisOptions, Analyzer, DocumentAnalysis
from .bag import BagOfWords, EmptyVocabularyError, VocabularyOptions
from .corpus import Corpus, CorpusError
from .evaluation import Evaluation, evaluate, stratified_split
from .models import MODEL_KINDS, SEED_EPSILON, NaiveBayes, fit_naive_bayes, parse_alpha
from .readers import read_corpus, read_corpus_bytes
from .statistics import ClassStatistics
from .trace import Trace, explain
from .training import TrainingSet

__all__ = [
    "PLACEHOLDERS", "TOKEN_PATTERNS", "AnalysisOptions", "Analyzer", "DocumentAnalysis",
    "BagOfWords", "EmptyVocabularyError", "VocabularyOptions",
    "Corpus", "CorpusError",
    "Evaluation", "evaluate", "stratified_split",
    "MODEL_KINDS", "SEED_EPSILON", "NaiveBayes", "fit_naive_bayes", "parse_alpha",
    "read_corpus", "read_corpus_bytes",
    "ClassStatistics", "Trace", "explain", "TrainingSet",
]
