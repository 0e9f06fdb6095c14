"""Tandem's agent loop: channel-agnostic: no chat platform, no SQLite, no HTTP."""
