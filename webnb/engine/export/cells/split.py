"""The held-out part of both text notebooks: the stratified split (``stratified_split``, the same documents as
webnb's evaluation, from the same random numbers), the model and documents it tests (``held_out``) and the accuracy
(``scored``). The notebook holds it at the top of its accuracy cell."""
from webnb.engine.export.cells.analysis import features
from webnb.engine.export.cells.corpus import CLASSES, y
from webnb.engine.export.cells.imports import np
from webnb.engine.export.cells.output import print
from webnb.engine.export.cells.settings import SEED, TEST_SIZE
from webnb.engine.export.cells.vocabulary import X, build_vocabulary, count_matrix


# ---- notebook cell ----
def stratified_split(y, test_size, seed):
    """(train, test) indices: round(n · test_size) of each class's n documents held out, at least one kept."""
    rng = np.random.default_rng(seed)
    held_out = []
    for k in range(len(CLASSES)):
        members = np.flatnonzero(y == k)
        n_test = min(int(round(len(members) * test_size)), len(members) - 1)
        held_out.append(rng.permutation(members)[:n_test])
    test = np.sort(np.concatenate(held_out))
    return np.setdiff1d(np.arange(len(y)), test), test


def held_out(fit, model):
    """(the model to test, its test rows, their classes): ``model`` on the documents it learned from when TEST_SIZE
    is None; else a model that ``fit`` trains on the split's training part, with that part's own vocabulary."""
    if TEST_SIZE is None:
        return model, X, y
    train, test = stratified_split(y, TEST_SIZE, SEED)
    train_vocabulary = build_vocabulary([features[i] for i in train])
    print(f"Trained on {len(train)} documents ({len(train_vocabulary)} words), tested on {len(test)}")
    return (fit(count_matrix([features[i] for i in train], train_vocabulary), y[train]),
            count_matrix([features[i] for i in test], train_vocabulary), y[test])


def scored(predictions, y_test):
    """(documents right, accuracy), printed: a document no class can be decided for counts as wrong."""
    correct = sum(p == t for p, t in zip(predictions, y_test.tolist()))
    undecided = sum(p is None for p in predictions)
    print(f"Accuracy: {correct}/{len(y_test)} = {correct / len(y_test):.4f}"
          + (f" ({undecided} undecided)" if undecided else ""))
    return correct, correct / len(y_test)
