"""Section 7 of the text notebook: the accuracy, on the training documents or on a stratified split held out
(``predict``; the notebook's cell starts with the held-out part's functions, ``cells/split.py``)."""
from webnb.engine.export.cells.imports import np
from webnb.engine.export.cells.model import fit, model
from webnb.engine.export.cells.split import held_out, scored
from webnb.engine.export.cells.trace import log_joint


# ---- notebook cell ----
def predict(model, X):
    """The most probable class of each row, or None where every class has probability 0."""
    predictions = []
    for x in X:
        scores = log_joint(model, x)
        predictions.append(None if np.all(scores == -np.inf) else int(np.argmax(scores)))
    return predictions


test_model, X_test, y_test = held_out(fit, model)
predictions = predict(test_model, X_test)
correct, accuracy = scored(predictions, y_test)
