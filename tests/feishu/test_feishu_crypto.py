"""Feishu callback security: the documented AES vector, the signature, the verification token."""

from __future__ import annotations

import hashlib

import pytest

from bot.feishu.crypto import (
    check_token,
    decrypt,
    encrypt,
    signature,
    verify_signature,
)
from bot.feishu.errors import CallbackRejected

VECTOR_KEY = "test key"
VECTOR_CIPHERTEXT = "P37w+VZImNgPEO1RBhJ6RtKl7n6zymIbEG1pReEzghk="


def test_the_documented_vector_decrypts_to_hello_world():
    """lark-oapi's vector: key "test key" and its ciphertext give "hello world"."""
    assert decrypt(VECTOR_CIPHERTEXT, VECTOR_KEY) == "hello world"


def test_encrypt_then_decrypt_round_trips_unicode():
    """What `encrypt` produces (as Feishu would) decrypts back, Chinese included."""
    text = '{"event":{"text":"明天开始请两天病假"}}'
    sealed = encrypt(text, "k" * 7)
    assert sealed != encrypt(text, "k" * 7)  # a fresh IV each time
    assert decrypt(sealed, "k" * 7) == text


def test_a_fixed_iv_gives_a_fixed_ciphertext_that_decrypts():
    """With the IV pinned, encrypt is deterministic (the first 16 bytes are the IV)."""
    sealed = encrypt("hello world", VECTOR_KEY, iv=bytes(16))
    assert sealed == encrypt("hello world", VECTOR_KEY, iv=bytes(16))
    assert decrypt(sealed, VECTOR_KEY) == "hello world"


@pytest.mark.parametrize(
    "ciphertext",
    [VECTOR_CIPHERTEXT[:-4] + "AAA=", "not base64!", "AAAA", ""],
    ids=["tampered", "not-base64", "too-short", "empty"],
)
def test_bad_ciphertexts_are_refused_with_400(ciphertext):
    """Garbage, a cut body or tampering is a 400, never an exception escaping the handler."""
    with pytest.raises(CallbackRejected) as e:
        decrypt(ciphertext, VECTOR_KEY)
    assert e.value.status == 400


def test_the_wrong_key_is_refused():
    """A body encrypted with another key does not decrypt (padding check) under ours."""
    with pytest.raises(CallbackRejected):
        decrypt(encrypt('{"a": 1}', "their key"), VECTOR_KEY)


def _headers(ts: str, nonce: str, sig: str) -> dict[str, str]:
    return {
        "X-Lark-Request-Timestamp": ts,
        "X-Lark-Request-Nonce": nonce,
        "X-Lark-Signature": sig,
    }


def test_the_signature_is_sha256_of_timestamp_nonce_key_and_raw_body():
    """sha256((timestamp + nonce + encrypt_key).encode() + raw_body), hex, as lark-oapi computes it."""
    body = b'{"encrypt":"abc"}'
    expected = hashlib.sha256(b"1700000000" + b"n0nce" + b"test key" + body).hexdigest()
    assert signature("1700000000", "n0nce", "test key", body) == expected
    verify_signature(_headers("1700000000", "n0nce", expected), body, "test key", now=1700000010)
    upper = _headers("1700000000", "n0nce", expected.upper())
    verify_signature(upper, body, "test key", now=1700000010)


@pytest.mark.parametrize(
    ("headers", "now"),
    [
        (_headers("1700000000", "n0nce", "0" * 64), 1700000000),
        (_headers("1700000000", "other", "SIG"), 1700000000),
        (_headers("1700000000", "n0nce", "SIG"), 1700000301),
        (_headers("1700000000", "n0nce", "SIG"), 1699999699),
        (_headers("soon", "n0nce", "SIG"), 1700000000),
        ({"X-Lark-Request-Timestamp": "1700000000", "X-Lark-Request-Nonce": "n0nce"}, 1700000000),
        ({}, 1700000000),
    ],
    ids=["forged", "other-nonce", "stale", "future", "bad-ts", "unsigned", "no-headers"],
)
def test_bad_signatures_and_stale_timestamps_are_refused(headers, now):
    """A forged or missing signature, or a timestamp five minutes off, is a 401."""
    body = b'{"encrypt":"abc"}'
    good = signature("1700000000", "n0nce", "test key", body)
    headers = {k: (good if v == "SIG" else v) for k, v in headers.items()}
    with pytest.raises(CallbackRejected) as e:
        verify_signature(headers, body, "test key", now=now)
    assert e.value.status == 401


def test_a_signature_over_another_body_is_refused():
    """The signature covers the raw body: the same headers on another body fail."""
    sig = signature("1700000000", "n", "test key", b'{"a":1}')
    with pytest.raises(CallbackRejected):
        verify_signature(_headers("1700000000", "n", sig), b'{"a":2}', "test key", now=1700000000)


def test_the_verification_token_is_read_from_the_header_or_the_challenge():
    """v2 events carry header.token; url_verification carries token; both are checked."""
    check_token({"header": {"token": "tok"}}, "tok")
    check_token({"type": "url_verification", "token": "tok", "challenge": "c"}, "tok")
    for payload in ({"header": {"token": "nope"}}, {"token": "nope"}, {}, {"header": {}}):
        with pytest.raises(CallbackRejected):
            check_token(payload, "tok")
