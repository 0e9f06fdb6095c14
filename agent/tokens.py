"""API tokens: minted once, kept only as a hash, checked in constant time.

A token is ``tdm_`` and 43 URL-safe characters (256 random bits), so a plain SHA-256 is enough to keep it:
nothing short enough to guess is ever hashed. The token is shown once, when it is made; storage keeps its
hash, its scopes, and a separate random webhook-signing secret (shown once too: Tandem signs with it, so
it is kept as it is, and never listed).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Literal

from agent.models.tokens import SCOPES, ApiToken, Scope

PREFIX = "tdm_"
NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")


@dataclass(frozen=True)
class Minted:
    """A new token as its maker sees it once: the token and its webhook secret in clear, and what is stored."""

    token: str
    webhook_secret: str
    stored: ApiToken


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse_scopes(text: str) -> list[Scope]:
    """``handoffs:write,handoffs:read`` as scopes; ValueError naming the unknown one."""
    found: list[Scope] = []
    for part in (p.strip() for p in text.split(",")):
        match = next((s for s in SCOPES if s == part), None)
        if match is None:
            raise ValueError(f"unknown scope {part!r}; the scopes are {', '.join(SCOPES)}")
        if match not in found:
            found.append(match)
    return found


def mint(name: str, scopes: list[Scope], by: str, now: float, expires_at: float | None = None) -> Minted:
    if not NAME.match(name):
        raise ValueError(f"token name {name!r}: use 1-63 lowercase letters, digits, '.', '_' or '-'")
    if not scopes:
        raise ValueError("a token needs at least one scope")
    token = PREFIX + secrets.token_urlsafe(32)
    secret = "whsec_" + secrets.token_urlsafe(32)
    stored = ApiToken(
        name=name,
        scopes=scopes,
        token_hash=hash_token(token),
        webhook_secret=secret,
        created_by=by,
        created_at=now,
        expires_at=expires_at,
    )
    return Minted(token=token, webhook_secret=secret, stored=stored)


Refusal = Literal["missing", "unknown", "expired", "revoked", "scope"]


def check(stored: ApiToken | None, presented: str, scope: Scope, now: float) -> ApiToken | Refusal:
    """The token ``presented`` may act with ``scope``: its stored row, or why not (looked up by hash,
    compared again in constant time)."""
    if not presented:
        return "missing"
    if stored is None or not hmac.compare_digest(stored.token_hash, hash_token(presented)):
        return "unknown"
    state = stored.state(now)
    if state != "active":
        return state
    if scope not in stored.scopes:
        return "scope"
    return stored
