"""Corpora in and out: reading uploads and pastes, and the compact form of counted data that is stored."""
