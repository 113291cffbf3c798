"""Feishu callback security: AES-256-CBC bodies, the X-Lark-Signature check, the verification token.

With an Encrypt Key configured, Feishu sends `{"encrypt": "<base64>"}`: the key is
sha256(encrypt_key), the first 16 bytes of the decoded blob are the IV, the rest is
AES-256-CBC with PKCS7 padding. It signs each request with
`sha256((timestamp + nonce + encrypt_key).encode() + raw_body)` (hex) in `X-Lark-Signature`,
with `X-Lark-Request-Timestamp` / `X-Lark-Request-Nonce`. Without a key, the only proof is the
verification token inside the body (`header.token`, or `token` in url_verification).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
from collections.abc import Mapping
from typing import Any

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from bot.feishu.errors import CallbackRejected

BLOCK = 16
MAX_SKEW_S = 300  # a signed request older (or newer) than five minutes is a replay
TIMESTAMP_HEADER = "X-Lark-Request-Timestamp"
NONCE_HEADER = "X-Lark-Request-Nonce"
SIGNATURE_HEADER = "X-Lark-Signature"


def aes_key(encrypt_key: str) -> bytes:
    """The AES-256 key Feishu derives from the Encrypt Key: its SHA-256 digest."""
    return hashlib.sha256(encrypt_key.encode()).digest()


def decrypt(ciphertext_b64: str, encrypt_key: str) -> str:
    """The plaintext of an `encrypt` field.

    Raises:
        CallbackRejected: (400) not base64, a wrong length, a wrong key (bad padding) or not UTF-8.
    """
    try:
        blob = base64.b64decode(ciphertext_b64, validate=True)
    except (binascii.Error, ValueError) as e:
        raise CallbackRejected("the encrypted body is not base64", 400) from e
    if len(blob) < 2 * BLOCK or len(blob) % BLOCK:
        raise CallbackRejected("the encrypted body has an invalid length", 400)
    iv, body = blob[:BLOCK], blob[BLOCK:]
    decryptor = Cipher(algorithms.AES(aes_key(encrypt_key)), modes.CBC(iv)).decryptor()
    padded = decryptor.update(body) + decryptor.finalize()
    pad = padded[-1]
    if not 1 <= pad <= BLOCK or padded[-pad:] != bytes([pad]) * pad:
        raise CallbackRejected("the encrypted body does not decrypt with this Encrypt Key", 400)
    try:
        return padded[:-pad].decode()
    except UnicodeDecodeError as e:
        raise CallbackRejected("the decrypted body is not UTF-8", 400) from e


def encrypt(plaintext: str, encrypt_key: str, iv: bytes | None = None) -> str:
    """The `encrypt` field Feishu would send for `plaintext` (for the stand-in and tests)."""
    iv = iv if iv is not None else os.urandom(BLOCK)
    data = plaintext.encode()
    pad = BLOCK - len(data) % BLOCK
    encryptor = Cipher(algorithms.AES(aes_key(encrypt_key)), modes.CBC(iv)).encryptor()
    body = encryptor.update(data + bytes([pad]) * pad) + encryptor.finalize()
    return base64.b64encode(iv + body).decode()


def signature(timestamp: str, nonce: str, encrypt_key: str, raw_body: bytes) -> str:
    """The hex X-Lark-Signature of a request body."""
    return hashlib.sha256((timestamp + nonce + encrypt_key).encode() + raw_body).hexdigest()


def verify_signature(
    headers: Mapping[str, str],
    raw_body: bytes,
    encrypt_key: str,
    now: float,
    max_skew_s: float = MAX_SKEW_S,
) -> None:
    """Check X-Lark-Signature (constant time) and that the timestamp is recent.

    Raises:
        CallbackRejected: (401) a header missing, a stale timestamp or a wrong signature.
    """
    ts, nonce, sig = (headers.get(h) for h in (TIMESTAMP_HEADER, NONCE_HEADER, SIGNATURE_HEADER))
    if not ts or nonce is None or not sig:
        raise CallbackRejected("the request is not signed")
    try:
        stamp = int(ts)
    except ValueError:
        raise CallbackRejected("the request timestamp is not a number") from None
    if abs(now - stamp) > max_skew_s:
        raise CallbackRejected("the request timestamp is too old or in the future")
    try:
        expected = signature(ts, nonce, encrypt_key, raw_body)
        given = sig.strip().lower().encode()
    except UnicodeEncodeError:  # aiohttp maps undecodable header bytes to lone surrogates
        raise CallbackRejected("the signature headers are not readable text") from None
    if not hmac.compare_digest(expected.encode(), given):
        raise CallbackRejected("the signature does not match")


def body_token(payload: Mapping[str, Any]) -> str | None:
    """The verification token a (decrypted) body carries: `header.token` (v2) or `token`."""
    header = payload.get("header")
    if isinstance(header, Mapping) and isinstance(header.get("token"), str):
        return header["token"]
    token = payload.get("token")
    return token if isinstance(token, str) else None


def check_token(payload: Mapping[str, Any], verification_token: str) -> None:
    """Check the body's verification token (constant time).

    Raises:
        CallbackRejected: (401) no token, or not ours.
    """
    token = body_token(payload)
    try:
        ours = token is not None and hmac.compare_digest(
            token.encode(), verification_token.encode()
        )
    except UnicodeEncodeError:  # a token with a lone surrogate is not ours either
        ours = False
    if not ours:
        raise CallbackRejected("the verification token does not match")
