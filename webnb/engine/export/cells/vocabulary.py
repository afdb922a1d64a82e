"""Section 2 of the text notebook: the vocabulary and the bag of words (``build_vocabulary``, ``count_matrix``)."""
from webnb.engine.export.cells.analysis import features
from webnb.engine.export.cells.imports import np
from webnb.engine.export.cells.output import print
from webnb.engine.export.cells.settings import MAX_DF, MAX_FEATURES, MIN_DF, RANK_BY_DOCUMENTS


# ---- notebook cell ----
def count_matrix(features, vocabulary):
    """X[i, j]: occurrences of vocabulary word j in document i, shape (documents, words)."""
    column = {word: j for j, word in enumerate(vocabulary)}
    X = np.zeros((len(features), len(vocabulary)), dtype=np.int64)
    for i, document in enumerate(features):
        for word in document:
            if word in column:
                X[i, column[word]] += 1
    return X


def build_vocabulary(features):
    """The sorted vocabulary of some documents, pruned by MIN_DF, MAX_DF and MAX_FEATURES."""
    vocabulary = sorted({word for document in features for word in document})
    X = count_matrix(features, vocabulary)
    n_documents = len(features)
    in_documents = (X > 0).sum(axis=0)  # the document frequency of each word
    low = MIN_DF if isinstance(MIN_DF, int) else MIN_DF * n_documents
    high = MAX_DF if isinstance(MAX_DF, int) else MAX_DF * n_documents
    keep = (in_documents >= low) & (in_documents <= high)
    if MAX_FEATURES is not None and keep.sum() > MAX_FEATURES:
        frequency = in_documents if RANK_BY_DOCUMENTS else X.sum(axis=0)
        candidates = np.flatnonzero(keep)  # alphabetical; a stable sort keeps ties that way
        best = candidates[np.argsort(-frequency[candidates], kind="stable")[:MAX_FEATURES]]
        keep = np.zeros_like(keep)
        keep[best] = True
    return [word for word, kept in zip(vocabulary, keep) if kept]


vocabulary = build_vocabulary(features)
X = count_matrix(features, vocabulary)
print(f"{len(vocabulary)} words in the vocabulary: {vocabulary[:40]}{' …' if len(vocabulary) > 40 else ''}")
print(f"X has shape {X.shape}; {np.count_nonzero(X)} of its {X.size} cells are not 0")
if X.size <= 400:
    print(X)
