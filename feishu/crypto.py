"""Feishu's webhook envelope: the Encrypt Key's AES-256-CBC body and the request signature.

With an Encrypt Key set in the app's console, Feishu posts ``{"encrypt": base64(iv ‖ AES-256-CBC(json))}``
with key = SHA-256(encrypt_key), and signs each request: ``X-Lark-Signature`` =
hex SHA-256(timestamp + nonce + encrypt_key + raw body).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


class Undecryptable(ValueError):
    """The body is not something our Encrypt Key encrypted."""


def _key(encrypt_key: str) -> bytes:
    return hashlib.sha256(encrypt_key.encode()).digest()


def decrypt(encrypt_key: str, encrypted: str) -> str:
    """The plaintext JSON of an ``encrypt`` field."""
    try:
        raw = base64.b64decode(encrypted, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise Undecryptable("the encrypt field is not base64") from exc
    if len(raw) < 32 or len(raw) % 16:
        raise Undecryptable("the encrypt field is not an AES-CBC message")
    decryptor = Cipher(algorithms.AES(_key(encrypt_key)), modes.CBC(raw[:16])).decryptor()
    padded = decryptor.update(raw[16:]) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    try:
        plain = unpadder.update(padded) + unpadder.finalize()
        return plain.decode()
    except (ValueError, UnicodeDecodeError) as exc:
        raise Undecryptable("the encrypt field does not decrypt with this Encrypt Key") from exc


def encrypt(encrypt_key: str, plaintext: str, iv: bytes | None = None) -> str:
    """What Feishu puts in ``encrypt`` (the local fake sends this)."""
    iv = iv if iv is not None else os.urandom(16)
    padder = padding.PKCS7(128).padder()
    padded = padder.update(plaintext.encode()) + padder.finalize()
    encryptor = Cipher(algorithms.AES(_key(encrypt_key)), modes.CBC(iv)).encryptor()
    return base64.b64encode(iv + encryptor.update(padded) + encryptor.finalize()).decode()


def signature(timestamp: str, nonce: str, encrypt_key: str, body: bytes) -> str:
    return hashlib.sha256((timestamp + nonce + encrypt_key).encode() + body).hexdigest()


def signed(timestamp: str, nonce: str, encrypt_key: str, body: bytes, given: str) -> bool:
    """Whether ``given`` is the signature of this request (compared in constant time)."""
    return hmac.compare_digest(signature(timestamp, nonce, encrypt_key, body), given.strip().lower())
