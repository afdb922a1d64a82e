"""Section 5 of the Complement Naive Bayes notebook: the accuracy, on the training documents or on a stratified
split held out (the notebook's cell starts with the split's, ``cells/split.py``)."""
from webnb.engine.export.cells.analysis import features
from webnb.engine.export.cells.complement_model import fit_complement, model
from webnb.engine.export.cells.complement_trace import complement_scores, decide
from webnb.engine.export.cells.corpus import y
from webnb.engine.export.cells.output import print
from webnb.engine.export.cells.settings import SEED, TEST_SIZE
from webnb.engine.export.cells.split import stratified_split
from webnb.engine.export.cells.vocabulary import X, build_vocabulary, count_matrix

# ---- notebook cell ----
if TEST_SIZE is None:
    test_model, X_test, y_test = model, X, y
else:
    train, test = stratified_split(y, TEST_SIZE, SEED)
    train_vocabulary = build_vocabulary([features[i] for i in train])
    test_model = fit_complement(count_matrix([features[i] for i in train], train_vocabulary), y[train])
    X_test, y_test = count_matrix([features[i] for i in test], train_vocabulary), y[test]
    print(f"Trained on {len(train)} documents ({len(train_vocabulary)} words), tested on {len(test)}")
predictions = [decide(complement_scores(test_model, x)) for x in X_test]
correct = sum(p == t for p, t in zip(predictions, y_test.tolist()))
accuracy = correct / len(y_test)
undecided = sum(p is None for p in predictions)
print(f"Accuracy: {correct}/{len(y_test)} = {accuracy:.4f}" + (f" ({undecided} undecided)" if undecided else ""))
