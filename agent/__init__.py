"""Tandem's agent loop: channel-agnostic, no Slack, no SQLite, no HTTP."""
