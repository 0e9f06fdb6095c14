"""The webhook check callers run (``api.webhooks.verify``, shown in the README): a signed body passes, anything
altered, forged, stale or unsigned fails."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from api.webhooks import TOLERANCE, signature, verify

SECRET = "whsec_test-secret"
BODY = b'{"id":"3f2a9c1d7e40","status":"resolved","answer":"roll back","by":"U0ALICE","event_id":"evt_3f2a9c1d7e40"}'
NOW = 1_796_405_172.0


def _headers(body: bytes = BODY, secret: str = SECRET, at: float = NOW) -> dict[str, str]:
    stamp = str(int(at))
    return {"X-Tandem-Timestamp": stamp, "X-Tandem-Signature": signature(secret, stamp, body)}


def test_verify_signed_body_passes() -> None:
    assert verify(SECRET, _headers(), BODY, now=NOW + 5)


def test_verify_altered_body_fails() -> None:
    assert not verify(SECRET, _headers(), BODY.replace(b"roll back", b"keep v42"), now=NOW)


def test_verify_body_signed_with_another_secret_fails() -> None:
    assert not verify(SECRET, _headers(secret="whsec_forged"), BODY, now=NOW)


def test_verify_timestamp_moved_after_signing_fails() -> None:
    headers = {**_headers(), "X-Tandem-Timestamp": str(int(NOW) + 1)}
    assert not verify(SECRET, headers, BODY, now=NOW)


def test_verify_stale_webhook_fails_as_a_possible_replay() -> None:
    assert not verify(SECRET, _headers(), BODY, now=NOW + TOLERANCE + 1)


def test_verify_unsigned_or_garbled_headers_fail() -> None:
    assert not verify(SECRET, {}, BODY, now=NOW)
    assert not verify(SECRET, {**_headers(), "X-Tandem-Timestamp": "soon"}, BODY, now=NOW)


def test_signature_is_v1_hex_hmac_sha256_over_timestamp_dot_body() -> None:
    import hashlib
    import hmac

    expected = hmac.new(SECRET.encode(), b"1796405172." + BODY, hashlib.sha256).hexdigest()
    assert signature(SECRET, "1796405172", BODY) == f"v1={expected}"


def _readme_verify() -> Callable[..., bool]:
    """The ``verify`` the README shows receivers, run as written."""
    text = (Path(__file__).parents[2] / "README.md").read_text()
    section = text[text.index("## Other software asks your people") :]
    code = section[section.index("```python\n") + len("```python\n") :]
    namespace: dict[str, Any] = {}
    exec(code[: code.index("```")], namespace)  # noqa: S102 - the README's own example
    found: Callable[..., bool] = namespace["verify"]
    return found


def test_readme_verify_passes_a_fresh_signed_body_and_fails_an_altered_or_forged_one() -> None:
    readme = _readme_verify()
    fresh = _headers(at=time.time())
    assert readme(SECRET, fresh, BODY)
    assert not readme(SECRET, fresh, BODY.replace(b"roll back", b"keep v42"))
    assert not readme(SECRET, _headers(secret="whsec_forged", at=time.time()), BODY)
    assert not readme(SECRET, _headers(at=time.time() - TOLERANCE - 60), BODY)
