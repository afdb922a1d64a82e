"""The code cells of the exported notebooks, one file a cell (see ``webnb.engine.export.jupyter``); those of the
Gaussian notebook are in ``gaussian``. Importing a cell runs it, and the cells before it, on the lecture's example."""
