"""The text notebook's settings cell, as ``lesson_notebook`` writes it for the lecture's example: the match reviews,
a Bernoulli model without smoothing, and the review "match was sharp" (whose joint with "positive" is 32/3645).

Each notebook writes this cell for its own lesson; the other cell files read these settings when they are imported
on their own. A test checks that this is the cell ``lesson_notebook`` writes for those settings."""
from webnb.engine.export.cells.imports import Fraction

# ---- notebook cell ----
# The model
MODEL = "bernoulli"  # "bernoulli" (does the word occur?), "multinomial" (how often?) or "complement"
ALPHA = Fraction("0")  # α, the pseudo-count added to every count (0: no smoothing)
EPSILON = None  # the ε-floor: probabilities clipped to [ε, 1 − ε], or None
BINARY = False  # multinomial and complement only: count a word once per document
FIT_PRIOR = True  # True: φ from the class sizes; False: every class equally likely

# The review to classify, and how accuracy is measured
REVIEW = "match was sharp"
TEST_SIZE = None  # None: the training documents; else the share of each class held out
SEED = 0  # the random seed of that split

# Turning text into words
LOWERCASE = True
STRIP_ACCENTS = None  # None, "ascii" or "unicode"
TOKEN_PATTERN = r"(?u)\b\w\w+\b"  # a word is a match of this regular expression
STOP_WORDS = frozenset()  # words dropped before counting
NORMALIZE = [  # (pattern, placeholder): matches replaced by a placeholder word, in this order
]
NGRAM_RANGE = (1, 1)  # (1, 1): single words; (1, 2): also pairs of neighbours

# Which words make the vocabulary: an int is a number of documents, a float a share of them
MIN_DF = 1  # keep words in at least this many documents
MAX_DF = 1.0  # and in at most this many
MAX_FEATURES = None  # then keep only the most frequent ones, or None
RANK_BY_DOCUMENTS = False  # rank words by documents (True) or occurrences (False)

# Products are also computed exactly, as fractions, for vocabularies up to this size
EXACT_VOCABULARY_LIMIT = 200
