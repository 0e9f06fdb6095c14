"""The PostgreSQL :class:`agent.ports.Store`, for several replicas sharing one database.

Selected by a ``TANDEM_DB`` of the form ``postgresql://…`` (see :func:`is_postgres_url`);
needs the ``postgres`` extra (``pip install 'tandem[postgres]'``).
"""

from __future__ import annotations

SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(db: str) -> bool:
    """Whether ``TANDEM_DB`` names a PostgreSQL database rather than a SQLite file."""
    return db.strip().lower().startswith(SCHEMES)
