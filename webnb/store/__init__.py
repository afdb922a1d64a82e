"""What webnb keeps: the database of corpora, workspaces, classes and counted data (``database``, its schema's
history in ``migrations``), and the catalog that finds a corpus, built-in or stored, with its counted data."""
