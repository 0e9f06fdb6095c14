"""Tandem's HTTP API for other software, under ``/api/v1`` on ``tandem serve`` (see :func:`api.handoffs.mount`)."""
