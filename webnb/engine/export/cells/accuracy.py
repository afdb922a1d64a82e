"""Section 7 of the text notebook: the accuracy, on the training documents or on a stratified split held out
(``predict``; the notebook's cell starts with the split's, ``cells/split.py``)."""
from webnb.engine.export.cells.analysis import features
from webnb.engine.export.cells.corpus import y
from webnb.engine.export.cells.imports import np
from webnb.engine.export.cells.model import fit, model
from webnb.engine.export.cells.output import print
from webnb.engine.export.cells.settings import SEED, TEST_SIZE
from webnb.engine.export.cells.split import stratified_split
from webnb.engine.export.cells.trace import log_joint
from webnb.engine.export.cells.vocabulary import X, build_vocabulary, count_matrix


# ---- notebook cell ----
def predict(model, X):
    """The most probable class of each row, or None where every class has probability 0."""
    predictions = []
    for x in X:
        scores = log_joint(model, x)
        predictions.append(None if np.all(scores == -np.inf) else int(np.argmax(scores)))
    return predictions


if TEST_SIZE is None:
    test_model, X_test, y_test = model, X, y
else:
    train, test = stratified_split(y, TEST_SIZE, SEED)
    train_vocabulary = build_vocabulary([features[i] for i in train])
    test_model = fit(count_matrix([features[i] for i in train], train_vocabulary), y[train])
    X_test, y_test = count_matrix([features[i] for i in test], train_vocabulary), y[test]
    print(f"Trained on {len(train)} documents ({len(train_vocabulary)} words), tested on {len(test)}")
predictions = predict(test_model, X_test)
correct = sum(p == t for p, t in zip(predictions, y_test.tolist()))
accuracy = correct / len(y_test)
undecided = sum(p is None for p in predictions)
print(f"Accuracy: {correct}/{len(y_test)} = {accuracy:.4f}" + (f" ({undecided} undecided)" if undecided else ""))
