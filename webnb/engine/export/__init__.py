"""Downloads: CSV tables and notebooks that recompute a lesson's numbers on their own."""
