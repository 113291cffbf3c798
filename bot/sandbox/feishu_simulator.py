"""Feishu's side of the callbacks: events and card clicks built, encrypted and signed as Feishu does.

The tests (and a sandbox) use it to drive the bot over HTTP: a person's message is added to
the stand-in and delivered as `im.message.receive_v1`; a click on a button of a card the
stand-in holds is delivered as `card.action.trigger`, and the card the bot answers with
replaces the clicked one, as in the Feishu client.
"""

from __future__ import annotations

import itertools
import json
import secrets
import time
from collections.abc import Callable
from typing import Any

import aiohttp

from bot.feishu import cards
from bot.feishu.crypto import NONCE_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, encrypt, signature
from bot.sandbox.standins.feishu.server import FeishuStandIn


class FeishuSimulator:
    """Posts what Feishu would post to the bot's /feishu/events."""

    def __init__(
        self,
        standin: FeishuStandIn,
        events_url: str,
        session: aiohttp.ClientSession,
        *,
        verification_token: str,
        encrypt_key: str | None = None,
        tenant_key: str = "tk_standin",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.standin = standin
        self.events_url = events_url
        self.session = session
        self.verification_token = verification_token
        self.encrypt_key = encrypt_key
        self.tenant_key = tenant_key
        self.clock = clock
        self._ids = itertools.count(1)

    # --- the wire ----------------------------------------------------------------------------

    def envelope(
        self, event_type: str, event: dict[str, Any], *, event_id: str | None = None
    ) -> dict[str, Any]:
        """A schema 2.0 envelope around `event`."""
        return {
            "schema": "2.0",
            "header": {
                "event_id": event_id or f"ev_{next(self._ids):06d}{secrets.token_hex(4)}",
                "token": self.verification_token,
                "create_time": str(int(self.clock() * 1000)),
                "event_type": event_type,
                "tenant_key": self.tenant_key,
                "app_id": self.standin.app_id,
            },
            "event": event,
        }

    def seal(self, payload: dict[str, Any]) -> str:
        """The body as sent: `{"encrypt": …}` when an Encrypt Key is set, else the JSON itself."""
        text = json.dumps(payload, ensure_ascii=False)
        if self.encrypt_key is None:
            return text
        return json.dumps({"encrypt": encrypt(text, self.encrypt_key)})

    def signed_headers(self, body: str, ts: int | None = None) -> dict[str, str]:
        """Content type, plus the signature headers when an Encrypt Key is set."""
        headers = {"Content-Type": "application/json; charset=utf-8"}
        if self.encrypt_key is not None:
            stamp, nonce = str(ts if ts is not None else int(self.clock())), secrets.token_hex(8)
            headers[TIMESTAMP_HEADER] = stamp
            headers[NONCE_HEADER] = nonce
            headers[SIGNATURE_HEADER] = signature(stamp, nonce, self.encrypt_key, body.encode())
        return headers

    async def post(
        self, body: str, headers: dict[str, str] | None = None
    ) -> aiohttp.ClientResponse:
        """POST a raw body (the caller signs it, or does not)."""
        async with self.session.post(
            self.events_url,
            data=body.encode(),
            headers=headers or {"Content-Type": "application/json"},
        ) as resp:
            await resp.read()
            return resp

    async def deliver(self, payload: dict[str, Any]) -> aiohttp.ClientResponse:
        """Seal, sign and POST a payload, as Feishu pushes it."""
        body = self.seal(payload)
        return await self.post(body, self.signed_headers(body))

    # --- what people do ------------------------------------------------------------------------

    async def url_verification(self, challenge: str = "ch-1") -> aiohttp.ClientResponse:
        """The challenge Feishu sends when the request URL is saved in the developer console."""
        return await self.deliver(
            {"challenge": challenge, "token": self.verification_token, "type": "url_verification"}
        )

    async def message(
        self, open_id: str, text: str, root_id: str | None = None, *, event_id: str | None = None
    ) -> tuple[aiohttp.ClientResponse, dict[str, Any]]:
        """The person writes to the bot (it appears in the stand-in) and Feishu delivers the event."""
        m = self.standin.user_says(open_id, text, root_id)
        event = {
            "sender": {
                "sender_id": {"open_id": open_id, "union_id": "on_" + open_id, "user_id": None},
                "sender_type": "user",
                "tenant_key": self.tenant_key,
            },
            "message": {
                "message_id": m.message_id,
                "root_id": m.root_id,
                "parent_id": m.parent_id,
                "thread_id": m.thread_id,
                "create_time": str(m.create_time),
                "chat_id": m.chat_id,
                "chat_type": "p2p",
                "message_type": "text",
                "content": m.content,
                "mentions": [],
            },
        }
        envelope = self.envelope("im.message.receive_v1", event, event_id=event_id)
        return await self.deliver(envelope), envelope

    async def menu(self, open_id: str, event_key: str) -> aiohttp.ClientResponse:
        """The person picks an item of the bot's menu (application.bot.menu_v6)."""
        event = {
            "operator": {
                "operator_id": {"open_id": open_id, "union_id": "on_" + open_id, "user_id": None},
                "operator_name": self.standin.tenant.person(open_id).name,
            },
            "event_key": event_key,
            "timestamp": int(self.clock()),
        }
        return await self.deliver(self.envelope("application.bot.menu_v6", event))

    async def redeliver(self, envelope: dict[str, Any]) -> aiohttp.ClientResponse:
        """Feishu pushes the same event again (same event_id), freshly signed."""
        return await self.deliver(envelope)

    def button(self, message_id: str, action: str) -> dict[str, Any]:
        """The button whose value names `action` on a card the stand-in holds."""
        card = self.standin.message(message_id).card or {}
        for b in cards.buttons_of(card):
            if (b.get("value") or {}).get("action") == action:
                return b
        raise LookupError(f"No {action} button on message {message_id}")

    async def click(
        self,
        open_id: str,
        message_id: str,
        action: str,
        *,
        form_value: dict[str, Any] | None = None,
        apply: bool = True,
    ) -> tuple[aiohttp.ClientResponse, dict[str, Any]]:
        """Click a button (after its confirm dialog); returns the response and its JSON answer.

        With `apply`, the card in the answer replaces the clicked card in the stand-in.
        """
        b = self.button(message_id, action)
        act: dict[str, Any] = {"value": b.get("value") or {}, "tag": "button"}
        if b.get("name"):
            act["name"] = b["name"]
        if form_value is not None:
            act["form_value"] = form_value
        event = {
            "operator": {"tenant_key": self.tenant_key, "open_id": open_id, "user_id": None},
            "token": "c-" + secrets.token_hex(8),
            "action": act,
            "host": "im_message",
            "context": {
                "open_message_id": message_id,
                "open_chat_id": self.standin.message(message_id).chat_id,
            },
        }
        resp = await self.deliver(self.envelope("card.action.trigger", event))
        answer = await resp.json() if resp.status == 200 else {}
        card = (answer.get("card") or {}).get("data")
        if apply and isinstance(card, dict):
            self.standin.apply_card(message_id, card)
        return resp, answer
