"""The corpus cell: the documents read back from their JSON, and the classes numbered in alphabetical order.

The notebook writes its lesson's documents as ``CORPUS_JSON`` at the top of this cell; here they are the lecture's
match reviews, exactly as ``lesson_notebook`` writes them."""
from webnb.engine.export.cells.imports import json, np
from webnb.engine.export.cells.output import print

# The documents, as JSON: one document a line.
CORPUS_JSON = r'''
[
{"id": "1", "label": "positive", "text": "keeper was sharp and composed"},
{"id": "2", "label": "positive", "text": "match was composed"},
{"id": "3", "label": "positive", "text": "brilliant match"},
{"id": "4", "label": "negative", "text": "match was not sharp"},
{"id": "5", "label": "negative", "text": "match was not composed"}
]
'''

# ---- notebook cell ----
documents = json.loads(CORPUS_JSON)
texts = [d["text"] for d in documents]
labels = [d["label"] for d in documents]
CLASSES = sorted(set(labels))
y = np.array([CLASSES.index(label) for label in labels])  # class number of each document

print(f"{len(documents)} documents")
for k, label in enumerate(CLASSES):
    print(f"  class {k}: {label!r}, {(y == k).sum()} documents")
