"""Benchmarks for Tandem (not part of the installed packages; run them from the repo root)."""
