"""`tandem tokens`: a token printed once and never again, listed without its secret, revoked by name."""

from __future__ import annotations

import json
import re
from pathlib import Path

from agent.tokens import check, hash_token
from storage.db import connect
from storage.tokens import by_hash
from tests.cli.run import tandem_in, tandem_ok


def test_tokens_create_list_revoke_shows_the_token_once_and_refuses_it_after_revoke(tmp_path: Path) -> None:
    made = tandem_ok(tmp_path, "tokens", "create", "ci", "--scopes", "handoffs:write,handoffs:read", "--as", "alice")
    token = re.search(r"token: +(tdm_\S+)", made)
    secret = re.search(r"webhook secret: +(whsec_\S+)", made)
    assert token is not None and secret is not None, made

    listed = tandem_ok(tmp_path, "tokens", "list")
    assert re.search(r"^ci +active +handoffs:write,handoffs:read +by alice", listed, re.M), listed
    assert token.group(1) not in listed and secret.group(1) not in listed
    as_json = tandem_ok(tmp_path, "tokens", "list", "--json")
    assert token.group(1) not in as_json and secret.group(1) not in as_json
    assert [t["name"] for t in json.loads(as_json)] == ["ci"]

    assert "Revoked token ci" in tandem_ok(tmp_path, "tokens", "revoke", "ci", "--as", "bob")
    assert re.search(r"^ci +revoked", tandem_ok(tmp_path, "tokens", "list"), re.M)
    db = connect(tmp_path / "tandem.db")
    assert check(by_hash(db, hash_token(token.group(1))), token.group(1), "handoffs:read", 0.0) == "revoked"


def test_tokens_create_with_a_taken_name_or_unknown_scope_fails_and_says_why(tmp_path: Path) -> None:
    tandem_ok(tmp_path, "tokens", "create", "ci")

    taken = tandem_in(tmp_path, "tokens", "create", "ci")
    unknown = tandem_in(tmp_path, "tokens", "create", "other", "--scopes", "handoffs:delete")
    gone = tandem_in(tmp_path, "tokens", "revoke", "nobody")

    assert taken.returncode == 1 and "a token named 'ci' exists" in taken.stderr
    assert unknown.returncode == 2 and "unknown scope 'handoffs:delete'" in unknown.stderr
    assert gone.returncode == 1 and "no token named 'nobody'" in gone.stderr
    assert "runs:write" in unknown.stderr, "the error lists the scopes there are"


def test_tokens_create_for_an_a2a_caller_takes_the_runs_write_scope(tmp_path: Path) -> None:
    made = tandem_ok(tmp_path, "tokens", "create", "planner", "--scopes", "runs:write")

    assert "Token planner (runs:write)" in made
    assert re.search(r"^planner +active +runs:write ", tandem_ok(tmp_path, "tokens", "list"), re.M)
