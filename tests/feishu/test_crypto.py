"""The Encrypt Key envelope and the signature, against the fake's own (independent) implementation."""

from __future__ import annotations

import base64
import json

import pytest

from feishu.crypto import Undecryptable, decrypt, encrypt, signature, signed
from workspace.feishu_fake import envelope, sign


def test_decrypt_reads_what_feishu_encrypts() -> None:
    body = json.loads(envelope({"challenge": "c", "text": "重启支付"}, "k3y"))
    assert json.loads(decrypt("k3y", body["encrypt"])) == {"challenge": "c", "text": "重启支付"}


def test_encrypt_round_trips_with_a_fixed_iv() -> None:
    sealed = encrypt("k3y", '{"a": 1}', iv=b"\0" * 16)
    assert base64.b64decode(sealed)[:16] == b"\0" * 16 and decrypt("k3y", sealed) == '{"a": 1}'


@pytest.mark.parametrize(
    "sealed",
    [
        "%%%",
        base64.b64encode(b"short").decode(),
        base64.b64encode(b"x" * 33).decode(),
        json.loads(envelope({"a": 1}, "another key"))["encrypt"],
    ],
)
def test_decrypt_refuses_what_this_key_did_not_encrypt(sealed: str) -> None:
    with pytest.raises(Undecryptable):
        decrypt("k3y", sealed)


def test_signature_matches_feishus_and_any_change_breaks_it() -> None:
    body = b'{"encrypt": "abc"}'
    given = sign("1700000000", "n0nce", "k3y", body)
    assert signature("1700000000", "n0nce", "k3y", body) == given
    assert signed("1700000000", "n0nce", "k3y", body, given.upper())
    assert not signed("1700000001", "n0nce", "k3y", body, given)
    assert not signed("1700000000", "n0nce", "k3y", body + b" ", given)
    assert not signed("1700000000", "n0nce", "other", body, given)
