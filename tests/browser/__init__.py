"""The tests that drive headless Chromium (see conftest.py here for why this folder is a package)."""
