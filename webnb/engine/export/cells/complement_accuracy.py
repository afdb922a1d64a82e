"""Section 5 of the Complement Naive Bayes notebook: the accuracy, on the training documents or on a stratified
split held out (the notebook's cell starts with the held-out part's functions, ``cells/split.py``)."""
from webnb.engine.export.cells.complement_model import fit_complement, model
from webnb.engine.export.cells.complement_trace import complement_scores, decide
from webnb.engine.export.cells.split import held_out, scored

# ---- notebook cell ----
test_model, X_test, y_test = held_out(fit_complement, model)
predictions = [decide(complement_scores(test_model, x)) for x in X_test]
correct, accuracy = scored(predictions, y_test)
