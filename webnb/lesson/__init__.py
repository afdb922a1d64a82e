"""The lesson as the pages show it: its state read from the address (``state``), the list of its pages and slides
(``pages``), the notations, the one-click seed lessons, and how numbers and charts are drawn (``formatting``,
``charts``, ``beta_chart``, ``json_twins``). Nothing here answers a request: the views do."""
