"""The PostgreSQL schema, as migrations applied in order under an advisory lock.

Every replica runs :func:`migrate` when it opens the store. The check of what is
applied and every pending migration run in one transaction that first takes
``pg_advisory_xact_lock(MIGRATION_LOCK)``: when several replicas start on a fresh
database at once, one migrates and the others wait for it, then find nothing left to
do. PostgreSQL's DDL is transactional, so a failed migration leaves nothing behind.

Times the application passes (``at``, ``deadline``, ``lease_until``, …) are Unix times
in ``double precision``, as the caller's clock gave them; times only the database
sets (claims on due reviews) are ``timestamptz`` from the database's clock.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from psycopg import AsyncConnection

from agent.models import Lesson

# Keys of the advisory locks this store takes (two-int form: (namespace, key)).
LOCK_NAMESPACE = 0x74616E64  # "tand"
MIGRATION_LOCK = 1


async def _lesson_keys(conn: AsyncConnection[Any]) -> None:
    """Lessons are keyed by what they changed (a value, a step's place, a presentation wish): stored ones get
    the new key, so a later correction of the same thing replaces them and a different one never does."""
    cur = await conn.execute("SELECT id, data FROM lessons")
    for lesson_id, data in await cur.fetchall():
        key = Lesson.model_validate_json(str(data)).key
        await conn.execute("UPDATE lessons SET key = %s WHERE id = %s", [key, lesson_id])


MigrationStep = str | Callable[[AsyncConnection[Any]], Awaitable[None]]  # SQL, or Python for what SQL cannot say

MIGRATIONS: tuple[tuple[str, MigrationStep], ...] = (
    (
        "m001_runs_reviews_rules_chat",
        """
        CREATE TABLE runs (
            id text PRIMARY KEY,
            task text NOT NULL,
            requester text NOT NULL,
            status text NOT NULL,
            channel text,
            thread text,
            pending_review text,
            version integer NOT NULL,
            created_at double precision NOT NULL,
            updated_at double precision NOT NULL,
            state text NOT NULL,
            lease_owner text,
            lease_until double precision
        );
        CREATE INDEX runs_status ON runs (status);
        CREATE INDEX runs_created ON runs (created_at);
        CREATE INDEX runs_thread ON runs (thread);
        CREATE TABLE events (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            run_id text NOT NULL,
            at double precision NOT NULL,
            actor text NOT NULL,
            kind text NOT NULL,
            payload text
        );
        CREATE INDEX events_run ON events (run_id, id);
        CREATE TABLE reviews (
            id text PRIMARY KEY,
            run_id text NOT NULL,
            anchor text NOT NULL,
            step integer,
            status text NOT NULL,
            created_at double precision NOT NULL,
            answered_at double precision,
            answered_by text,
            answer text,
            deadline double precision,
            remind_at double precision,
            claimed_by text,
            claimed_until timestamptz
        );
        CREATE INDEX reviews_run ON reviews (run_id);
        CREATE INDEX reviews_deadline ON reviews (deadline) WHERE status = 'pending';
        CREATE INDEX reviews_remind ON reviews (remind_at) WHERE status = 'pending';
        CREATE TABLE deliveries (
            key text PRIMARY KEY,
            at double precision NOT NULL
        );
        CREATE INDEX deliveries_at ON deliveries (at);
        CREATE TABLE chat_messages (
            key text PRIMARY KEY,
            run_id text NOT NULL,
            channel text NOT NULL,
            ts text NOT NULL,
            blocks text
        );
        CREATE INDEX chat_messages_run ON chat_messages (run_id);
        CREATE TABLE rules (
            id text PRIMARY KEY,
            channel text NOT NULL,
            tool text NOT NULL,
            created_by text NOT NULL,
            created_at double precision NOT NULL,
            revoked_by text,
            revoked_at double precision
        );
        CREATE INDEX rules_channel ON rules (channel, tool) WHERE revoked_at IS NULL;
        """,
    ),
    (
        "m002_outbox",
        """
        CREATE TABLE outbox (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            run_id text NOT NULL,
            channel text NOT NULL,
            kind text NOT NULL,
            message text NOT NULL,
            status text NOT NULL DEFAULT 'pending',
            attempts integer NOT NULL DEFAULT 0,
            created_at double precision NOT NULL,
            next_at double precision NOT NULL,
            started_at double precision,
            sent_at double precision,
            error text
        );
        CREATE INDEX outbox_due ON outbox (channel, next_at) WHERE status IN ('pending', 'sending');
        CREATE INDEX outbox_run ON outbox (run_id);
        -- At most one card update waits per run: later transitions coalesce into it.
        CREATE UNIQUE INDEX outbox_card ON outbox (run_id) WHERE kind = 'card' AND status = 'pending';
        """,
    ),
    (
        "m003_report_posts",
        """
        CREATE TABLE report_posts (
            key text PRIMARY KEY,
            channel text NOT NULL,
            since double precision NOT NULL,
            until double precision NOT NULL,
            manual boolean NOT NULL DEFAULT false,
            status text NOT NULL DEFAULT 'scheduled',
            created_at double precision NOT NULL,
            posted_at double precision
        );
        CREATE INDEX report_posts_due ON report_posts (until) WHERE status = 'scheduled';
        """,
    ),
    (
        "m004_lessons",
        """
        CREATE TABLE lessons (
            id text PRIMARY KEY,
            scope text NOT NULL,
            key text NOT NULL,
            created_at double precision NOT NULL,
            data text NOT NULL,
            words text NOT NULL,
            search tsvector GENERATED ALWAYS AS (to_tsvector('english', words)) STORED,
            forgotten_by text,
            forgotten_at double precision,
            replaced_by text
        );
        CREATE INDEX lessons_key ON lessons (key) WHERE forgotten_at IS NULL AND replaced_by IS NULL;
        CREATE INDEX lessons_scope ON lessons (scope, created_at);
        CREATE INDEX lessons_search ON lessons USING gin (search);
        """,
    ),
    (
        "m005_rule_suspensions",
        """
        ALTER TABLE rules ADD COLUMN suspended_by text;
        ALTER TABLE rules ADD COLUMN suspended_at double precision;
        ALTER TABLE rules ADD COLUMN suspended_reason text;
        -- The "always allow" offer reads a gate's latest decisions (storage/streaks.py) on every gated step.
        CREATE INDEX events_gate ON events (((payload)::jsonb #>> '{gate}'), at) WHERE kind = 'decided';
        CREATE INDEX events_suspension ON events (((payload)::jsonb #>> '{suspension,tool}'), at)
            WHERE kind = 'suspend_rule';
        """,
    ),
    (
        "m006_rule_scopes",
        """
        -- A rule covers its tool for the target values it was given on (JSON); NULL is tool-wide,
        -- as every rule stored before is. Widening a rule to every target keeps who did it and when.
        ALTER TABLE rules ADD COLUMN target text;
        ALTER TABLE rules ADD COLUMN widened_by text;
        ALTER TABLE rules ADD COLUMN widened_at double precision;
        """,
    ),
    ("m007_lesson_keys", _lesson_keys),
    (
        "m008_inbox",
        """
        -- Requests kept before they are acknowledged (see agent.inbox): one row per platform key, pending
        -- (held by its process until lease_until) until its work is done.
        CREATE TABLE inbox (
            key text PRIMARY KEY,
            source text NOT NULL,
            body text NOT NULL,
            status text NOT NULL DEFAULT 'pending',
            attempts integer NOT NULL DEFAULT 0,
            received_at double precision NOT NULL,
            lease_until double precision NOT NULL,
            settled_at double precision
        );
        CREATE INDEX inbox_pending ON inbox (source, lease_until) WHERE status = 'pending';
        """,
    ),
    (
        "m009_unshown_cards",
        """
        -- Run cards given up on (a started row that failed) are looked for at every scheduler tick.
        CREATE INDEX outbox_unshown ON outbox (run_id) WHERE kind = 'started' AND status = 'failed';
        """,
    ),
    (
        "m013_api_tokens",
        """
        -- Tokens for software calling the API (see agent.tokens): kept by name, found by the SHA-256 of the
        -- token (never the token itself); a revoked one stays, for the audit trail.
        CREATE TABLE api_tokens (
            name text PRIMARY KEY,
            token_hash text NOT NULL UNIQUE,
            scopes text NOT NULL,
            webhook_secret text NOT NULL,
            created_by text NOT NULL,
            created_at double precision NOT NULL,
            expires_at double precision,
            revoked_by text,
            revoked_at double precision
        );
        """,
    ),
    (
        "m014_asked",
        """
        -- Handoffs asked through the API: the run that asks each (pruned with it), the token that asked
        -- it (only it may read it), and its idempotency key, unique per token (asking again with it returns
        -- the same handoff).
        CREATE TABLE asked (
            run_id text PRIMARY KEY,
            token text NOT NULL,
            idempotency_key text,
            callback_url text,
            created_at double precision NOT NULL
        );
        CREATE UNIQUE INDEX asked_key ON asked (token, idempotency_key) WHERE idempotency_key IS NOT NULL;
        """,
    ),
    (
        "m017_a2a_tasks",
        """
        -- Runs started over A2A: the token that started each (only it may see it), its task's context id, and the
        -- message that started it, unique per token (that message sent again finds the run instead of starting one).
        CREATE TABLE a2a_tasks (
            run_id text PRIMARY KEY,
            token text NOT NULL,
            context_id text NOT NULL,
            message_id text NOT NULL,
            created_at double precision NOT NULL
        );
        CREATE UNIQUE INDEX a2a_tasks_message ON a2a_tasks (token, message_id);
        """,
    ),
)


async def migrate(conn: AsyncConnection[Any]) -> list[str]:
    """Apply the pending migrations in order, once however many replicas start together; returns their names."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_NAMESPACE, MIGRATION_LOCK])
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS tandem_migrations"
            " (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())"
        )
        cur = await conn.execute("SELECT name FROM tandem_migrations")
        done = {str(row[0]) for row in await cur.fetchall()}
        applied = []
        for name, sql in MIGRATIONS:
            if name in done:
                continue
            if isinstance(sql, str):
                await conn.execute(sql)
            else:
                await sql(conn)
            await conn.execute("INSERT INTO tandem_migrations (name) VALUES (%s)", [name])
            applied.append(name)
    return applied
