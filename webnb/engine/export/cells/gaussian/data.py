"""The Gaussian notebook's table: the rows, and which of them the model learns from and is tested on.

The notebook writes its table as ``TABLE`` on the cell's first line; here it is the lecture's match ratings, every
row both learned from and tested on."""
from webnb.engine.export.cells.gaussian.imports import json, np
from webnb.engine.export.cells.output import print

TABLE = json.loads(r'''{
"features": ["opponent rating"],
"labels": ["lost", "lost", "lost", "lost", "lost", "lost", "lost", "lost",
           "won", "won", "won", "won", "won", "won", "won", "won", "won", "won"],
"ids": ["2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19"],
"values": [[8.1], [7.4], [8.8], [6.9], [7.7], [9.2], [7.0], [8.4],
           [5.2], [6.1], [4.4], [6.8], [5.7], [3.9], [6.3], [5.0], [7.1], [4.8]],
"train": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
"test": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]
}''')

# ---- notebook cell ----
FEATURES = TABLE["features"]
X = np.array(TABLE["values"], dtype=float)
y = np.array(TABLE["labels"])
X_train, y_train = X[TABLE["train"]], y[TABLE["train"]]
X_test, y_test = X[TABLE["test"]], y[TABLE["test"]]
print(f"{len(X)} rows: {len(X_train)} to learn from, {len(X_test)} to test on; features {FEATURES}")
