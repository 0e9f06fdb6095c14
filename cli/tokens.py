"""``tandem tokens create|list|revoke``: tokens for software that asks your people through the API.

A token is printed once, when it is made, with its webhook-signing secret; the database keeps only
the token's hash. Only the run store is opened (no model, tools or demo world).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime

from agent.config import parse_duration
from agent.models.tokens import ApiToken
from agent.settings import CoreSettings
from agent.tokens import mint, parse_scopes
from cli.wiring import open_store


def _when(at: float | None) -> str:
    return "-" if at is None else datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _json(t: ApiToken, now: float) -> dict[str, object]:
    data = t.model_dump(mode="json", exclude={"token_hash", "webhook_secret"})
    data["state"] = t.state(now)
    return data


async def tokens_command(args: argparse.Namespace, settings: CoreSettings) -> int:
    now = time.time()
    if args.action in ("create", "revoke") and not args.name:
        print(f"error: tandem tokens {args.action} needs the token's name", file=sys.stderr)
        return 2
    if args.action == "create":
        try:
            expires = now + parse_duration(args.expires_in) if args.expires_in else None
            made = mint(args.name, parse_scopes(args.scopes), args.user, now, expires)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    async with open_store(settings.db) as store:
        if args.action == "create":
            if not await store.create_token(made.stored):
                print(
                    f"error: a token named {args.name!r} exists (see: tandem tokens list); pick another name",
                    file=sys.stderr,
                )
                return 1
            if args.json:
                print(
                    json.dumps({**_json(made.stored, now), "token": made.token, "webhook_secret": made.webhook_secret})
                )
                return 0
            print(f"Token {args.name} ({', '.join(made.stored.scopes)}), expires {_when(expires)}. Shown only now:")
            print(f"  token:          {made.token}")
            print(f"  webhook secret: {made.webhook_secret}")
            return 0
        if args.action == "revoke":
            if not await store.revoke_token(args.name, args.user, now):
                print(f"error: no token named {args.name!r} in force (see: tandem tokens list)", file=sys.stderr)
                return 1
            print(f"Revoked token {args.name}: calls with it are refused from now on.")
            return 0
        found = await store.list_tokens()
    if args.json:
        print(json.dumps([_json(t, now) for t in found], indent=2))
    elif not found:
        print("No tokens yet. Make one with: tandem tokens create NAME --scopes handoffs:write,handoffs:read")
    for t in [] if args.json else found:
        print(f"{t.name:<20} {t.state(now):<8} {','.join(t.scopes):<30} by {t.created_by} {_when(t.created_at)}")
    return 0
