"""The accuracy and the confusion matrix on the test rows, all of them scored at once in log space."""
from webnb.engine.export.cells.gaussian.data import X_test, y_test
from webnb.engine.export.cells.gaussian.fit import CLASSES, means, prior, variances
from webnb.engine.export.cells.gaussian.imports import np
from webnb.engine.export.cells.output import print

# ---- notebook cell ----
scores = (np.log(prior) - 0.5 * np.log(2 * np.pi * variances).sum(axis=1)
          - 0.5 * (((X_test[:, None, :] - means[None, :, :]) ** 2) / variances[None, :, :]).sum(axis=2))
predicted = np.array(CLASSES)[scores.argmax(axis=1)]
accuracy = float(np.mean(predicted == y_test))
confusion = [[int(np.sum((y_test == a) & (predicted == b))) for b in CLASSES] for a in CLASSES]
print("accuracy:", accuracy)
print("confusion (rows: true class):", confusion)
