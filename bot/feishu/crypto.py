"""Feishu callback security: AES-256-CBC bodies, the X-Lark-Signature check, the verification token.

With an Encrypt Key configured, Feishu sends `{"encrypt": "<base64>"}`: the key is
sha256(encrypt_key), the first 16 bytes of the decoded blob are the IV, the rest is
AES-256-CBC with PKCS7 padding. It signs each request with
`sha256((timestamp + nonce + encrypt_key).encode() + raw_body)` (hex) in `X-Lark-Signature`,
with `X-Lark-Request-Timestamp` / `X-Lark-Request-Nonce`. Without a key, the only proof is the
verification token inside the body (`header.token`, or `token` in url_verification).

`open_callback` is the one way in: with a key, the signature over the raw body is checked
before anything is decrypted, so a forged or altered ciphertext is never decrypted at all.
The only unsigned body accepted with a key is the URL challenge; whatever goes wrong on that
path (base64, length, padding, UTF-8, JSON, type, token) is the same rejection, so an
attacker replaying a captured ciphertext with the signature stripped learns nothing from the
answers (no padding oracle). Every rejection reaches the client as the same 401.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
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


def _json_object(text: str | bytes, what: str) -> dict[str, Any]:
    try:
        body = json.loads(text)
    except (ValueError, RecursionError) as e:  # not JSON, or nested too deep to read
        raise CallbackRejected(f"{what} is not JSON", 400) from e
    if not isinstance(body, dict):
        raise CallbackRejected(f"{what} is not a JSON object", 400)
    return body


def is_signed(headers: Mapping[str, str]) -> bool:
    """Whether the request carries any of Feishu's signature headers."""
    return any(headers.get(h) for h in (TIMESTAMP_HEADER, NONCE_HEADER, SIGNATURE_HEADER))


def open_callback(
    raw: bytes,
    headers: Mapping[str, str],
    *,
    verification_token: str,
    encrypt_key: str | None,
    now: float,
    max_skew_s: float = MAX_SKEW_S,
) -> dict[str, Any]:
    """The authenticated plaintext of a callback: signature first, then decryption, then the token.

    Raises:
        CallbackRejected: the reason is for the log only; the client gets one uniform answer.
    """
    outer = _json_object(raw, "the body")
    if encrypt_key is None:
        if "encrypt" in outer:
            raise CallbackRejected("an encrypted body, but FEISHU_ENCRYPT_KEY is not set")
        check_token(outer, verification_token)
        return outer
    signed = is_signed(headers)
    if signed:
        verify_signature(headers, raw, encrypt_key, now, max_skew_s)
    if "encrypt" in outer:
        sealed = outer["encrypt"]
        try:
            if not isinstance(sealed, str):
                raise CallbackRejected("the encrypt field is not a string")
            body = _json_object(decrypt(sealed, encrypt_key), "the decrypted body")
        except CallbackRejected as e:
            # unsigned: no detail may leak; signed: the sender has our key, still one answer
            raise CallbackRejected(f"undecryptable ({e.reason})") from None
    else:
        body = outer
    if not signed and body.get("type") != "url_verification":
        raise CallbackRejected("the request is not signed")  # only the URL challenge is unsigned
    check_token(body, verification_token)
    return body
