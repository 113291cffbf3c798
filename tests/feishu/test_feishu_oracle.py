"""The padding-oracle attack on POST /feishu/events, reproduced: it learns nothing, and the budget stops it.

The attack (Vaudenay's CBC padding oracle) takes a captured encrypted callback and flips
bytes of the block before the last one: a changed answer when the padding happens to be
valid reveals one plaintext byte per at most 256 requests. Against a server that decrypts
before checking the signature and words each failure differently, it read the verification
token back without the key. Here every failure is the same answer, a signed request is
checked before anything is decrypted, and a client that keeps failing is cut off.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

import pytest

import bot.feishu.crypto as crypto
from bot.budget import VerificationBudget
from bot.feishu.crypto import BLOCK, decrypt
from bot.feishu.errors import CallbackRejected
from tests.feishu.harness import ENCRYPT_KEY, FeishuHarness

ZHANG = "ou_zhangsan"


def _with_last_byte(blob: bytes, guess: int) -> bytes:
    """The ciphertext with the last byte of the second-to-last block XORed so that,
    if the last plaintext byte is `guess`, it decrypts to a valid one-byte padding."""
    tampered = bytearray(blob)
    tampered[-BLOCK - 1] ^= guess ^ 0x01
    return bytes(tampered)


def recover_last_byte(blob: bytes, answer: Callable[[bytes], object]) -> int | None:
    """The last plaintext byte, if the answers tell valid padding from invalid (the attack)."""
    answers = {guess: answer(_with_last_byte(blob, guess)) for guess in range(256)}
    counts: dict[object, list[int]] = {}
    for guess, a in answers.items():
        counts.setdefault(a, []).append(guess)
    rare = [guesses for guesses in counts.values() if len(guesses) <= 2]
    return rare[0][0] if len(counts) > 1 and rare else None


def _captured(h: FeishuHarness) -> tuple[bytes, str]:
    """A callback as Feishu sends it (the attacker recorded it): its ciphertext and plaintext."""
    payload = h.sim.envelope("im.message.receive_v1", {"message": {"chat_type": "p2p"}})
    body = h.sim.seal(payload)
    blob = base64.b64decode(json.loads(body)["encrypt"])
    return blob, decrypt(json.loads(body)["encrypt"], ENCRYPT_KEY)


def test_the_attack_works_against_a_server_that_words_each_failure_differently():
    """The attack itself is real: against the old, leaky answers it reads a byte without the key."""
    from bot.feishu.crypto import encrypt

    text = '{"header":{"token":"v-token-of-the-test-app"}}'
    # cut after the block holding the token: its last byte is now the one the padding check probes
    blob = base64.b64decode(encrypt(text, ENCRYPT_KEY))[: 3 * BLOCK]

    def leaky(ciphertext: bytes) -> str:
        try:
            plaintext = decrypt(base64.b64encode(ciphertext).decode(), ENCRYPT_KEY)
        except CallbackRejected as e:
            return e.reason
        try:
            json.loads(plaintext)
        except ValueError:
            return "the decrypted body is not JSON"
        return "the signature does not match"

    assert recover_last_byte(blob, leaky) == ord(text[2 * BLOCK - 1])  # a byte of the token


async def test_every_failure_is_the_same_answer_and_the_attack_learns_nothing(
    feishu: FeishuHarness,
):
    """256 tampered bodies, unsigned (the signature stripped): one answer for all of them."""
    h = feishu
    h.bot.budget = VerificationBudget(per_client=10_000, total=10_000)
    blob, _ = _captured(h)
    seen: dict[int, tuple[int, bytes]] = {}
    for guess in range(256):
        body = json.dumps({"encrypt": base64.b64encode(_with_last_byte(blob, guess)).decode()})
        async with h.http.post(
            h.sim.events_url, data=body, headers={"Content-Type": "application/json"}
        ) as resp:
            seen[guess] = (resp.status, await resp.read())
    assert len(set(seen.values())) == 1, "the answers differ: an oracle"
    assert next(iter(seen.values()))[0] == 401
    answers = dict(seen)
    assert recover_last_byte(blob, lambda c: answers[c[-BLOCK - 1] ^ blob[-BLOCK - 1] ^ 1]) is None


async def test_a_signed_request_is_checked_before_anything_is_decrypted(
    feishu: FeishuHarness, monkeypatch: pytest.MonkeyPatch
):
    """With the captured signature headers kept, a tampered body fails the signature: never decrypted."""
    h = feishu
    calls: list[str] = []
    real = crypto.decrypt

    def counting(ciphertext: str, key: str) -> str:
        calls.append(ciphertext)
        return real(ciphertext, key)

    monkeypatch.setattr(crypto, "decrypt", counting)
    blob, _ = _captured(h)
    original = json.dumps({"encrypt": base64.b64encode(blob).decode()})
    headers = h.sim.signed_headers(original)
    statuses = set()
    for guess in range(2, 20):  # 1 leaves the body as it was
        body = json.dumps({"encrypt": base64.b64encode(_with_last_byte(blob, guess)).decode()})
        statuses.add((await h.sim.post(body, headers)).status)
    assert statuses == {401} and calls == []  # to get past the signature, the attack needs the key


async def test_the_budget_cuts_off_a_client_that_keeps_failing(feishu: FeishuHarness):
    """After 30 failed verifications in a minute, the client gets 429 without any work done."""
    h = feishu
    blob, _ = _captured(h)
    statuses = []
    for guess in range(40):
        body = json.dumps({"encrypt": base64.b64encode(_with_last_byte(blob, guess)).decode()})
        statuses.append((await h.sim.post(body, {"Content-Type": "application/json"})).status)
    assert statuses[:30] == [401] * 30 and statuses[30:] == [429] * 10
    # 13,448 requests were needed for 96 bytes; at 30 a minute that is over seven hours
    ok = await h.sim.deliver(h.sim.envelope("im.message.receive_v1", {"message": {}}))
    assert ok.status == 429  # the same address is cut off, signed or not, until the window passes


async def test_the_global_budget_closes_the_unsigned_path_only():
    """Failures from many addresses together trip the process's budget."""
    now = [0.0]
    budget = VerificationBudget(per_client=5, total=20, window_s=60, clock=lambda: now[0])
    for i in range(20):
        assert not budget.client_blocked(f"10.0.0.{i}")
        await budget.failed(f"10.0.0.{i}")
    assert await budget.exhausted()
    now[0] = 61.0
    assert not await budget.exhausted()
