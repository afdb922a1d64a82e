"""The code cells of the Gaussian notebook, one file a cell (see ``webnb.engine.export.jupyter``)."""
