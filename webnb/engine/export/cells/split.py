"""The held-out split of both text notebooks (``stratified_split``): the same documents as webnb's evaluation,
from the same random numbers. The notebook holds it at the top of its accuracy cell."""
from webnb.engine.export.cells.corpus import CLASSES
from webnb.engine.export.cells.imports import np


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
