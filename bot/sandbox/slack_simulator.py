"""Slack's side of the wire: events, slash commands and interactions, signed and POSTed as Slack does.

The sandbox uses it for what a person does in the browser; the Slack tests use it to drive
the real Bolt app. Each request is built in Slack's shape (event envelopes, the form-encoded
slash command, `payload=` JSON for block_actions and view_submission), signed with the app's
signing secret (`v0:{timestamp}:{body}`, HMAC-SHA256) and sent to the bot's /slack/events URL.
What a person sees first (their typed message, a fresh trigger id) comes from the stand-in.

    sim = SlackSimulator(standin, "http://127.0.0.1:8000/slack/events", signing_secret)
    resp, envelope = await sim.dm("U0OLIVER", "annual leave next Monday")
    await sim.click("U0OLIVER", message_with_channel, "pending_confirm")
    await sim.close()
"""

from __future__ import annotations

import json
import secrets
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

import aiohttp
from slack_sdk.signature import SignatureVerifier

from bot.sandbox.standins.slack.server import SlackStandIn, StandInError

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
MESSAGE_ONLY_KEYS = ("channel", "replies", "channel_type")
"""Keys our snapshots add to a message that Slack's `message` in a payload does not carry."""


def slack_escape(text: str) -> str:
    """Text as Slack puts it in a message event: &, < and > as HTML entities."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class ButtonNotFound(LookupError):
    """The message or view has no interactive element with that action_id."""


def find_element(
    blocks: list[dict[str, Any]] | None, action_id: str, block_id: str | None = None
) -> tuple[str | None, dict[str, Any]] | None:
    """The (block_id, element) of the interactive element `action_id` in blocks, or None.

    Looks in actions blocks and in section accessories; with `block_id`, only in that block.
    When several match, the last one wins (the newest card's buttons come last).
    """
    found = None
    for block in blocks or []:
        if block_id is not None and block.get("block_id") != block_id:
            continue
        candidates: list[dict[str, Any]] = []
        if block.get("type") == "actions":
            candidates = list(block.get("elements") or [])
        elif isinstance(block.get("accessory"), dict):
            candidates = [block["accessory"]]
        for element in candidates:
            if element.get("action_id") == action_id:
                found = (block.get("block_id"), element)
    return found


def _action(block_id: str | None, element: dict[str, Any], value: str | None) -> dict[str, Any]:
    """One entry of a block_actions payload's `actions`, as Slack builds it for the element."""
    action: dict[str, Any] = {
        "action_id": element.get("action_id"),
        "block_id": block_id or "",
        "type": element.get("type", "button"),
        "action_ts": f"{time.time():.6f}",
    }
    if element.get("type", "button") == "button":
        action["text"] = element.get("text")
        action["value"] = value if value is not None else element.get("value", "")
        if element.get("style"):
            action["style"] = element["style"]
    elif value is not None:
        action["value"] = value
    return action


class SlackSimulator:
    """Sends what Slack would send to the bot, signed with the app's secret."""

    def __init__(
        self,
        standin: SlackStandIn,
        events_url: str,
        signing_secret: str,
        *,
        team_id: str | None = None,
        team_domain: str | None = None,
        api_app_id: str | None = None,
        session: aiohttp.ClientSession | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """Args:
        standin: the workspace people act in (their messages, trigger ids, views).
        events_url: the bot's Request URL (`…/slack/events`).
        signing_secret: the app's signing secret, shared with the bot.
        team_id, team_domain, api_app_id: what the payloads say; the stand-in's by default.
        session: the HTTP session to post with (one is made, and closed by `close`, if None).
        clock: epoch seconds for `X-Slack-Request-Timestamp` (Bolt rejects a skew over 5 min).
        """
        ws = standin.workspace
        self.standin = standin
        self.events_url = events_url
        self.signing_secret = signing_secret
        self.team_id = team_id or ws.team_id
        self.team_domain = team_domain or ws.team_domain
        self.api_app_id = api_app_id or ws.app_id
        self.clock = clock
        self._session = session
        self._own_session = session is None
        self._event_prefix = secrets.token_hex(3).upper()
        self.event_counter = 0

    # -- transport ----------------------------------------------------------------------

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession()
        return self._session

    async def close(self) -> None:
        """Close the HTTP session if this simulator made it."""
        if self._own_session and self._session is not None:
            await self._session.close()
            self._session = None

    def signed_headers(self, body: str, ts: int | None = None, **extra: str) -> dict[str, str]:
        """`X-Slack-Request-Timestamp` and `X-Slack-Signature` for `body` (plus any `extra`)."""
        ts = int(self.clock()) if ts is None else ts
        signature = SignatureVerifier(self.signing_secret).generate_signature(
            timestamp=str(ts), body=body
        )
        return {"X-Slack-Request-Timestamp": str(ts), "X-Slack-Signature": signature, **extra}

    async def post(
        self, body: str, content_type: str, headers: dict[str, str] | None = None
    ) -> aiohttp.ClientResponse:
        """POST a raw body to the bot (signed now unless `headers` are given); the body is read."""
        hdrs = headers if headers is not None else self.signed_headers(body)
        resp = await self.session.post(
            self.events_url, data=body.encode(), headers={**hdrs, "Content-Type": content_type}
        )
        await resp.read()
        return resp

    # -- events -------------------------------------------------------------------------

    def next_event_id(self) -> str:
        """A fresh event id (unique across runs, so a persisted dedupe key never collides)."""
        self.event_counter += 1
        return f"Ev{self._event_prefix}{self.event_counter:06d}"

    def envelope(self, event: dict[str, Any], event_id: str | None = None) -> dict[str, Any]:
        """The event_callback envelope Slack wraps an event in."""
        ws = self.standin.workspace
        return {
            "token": "legacy-verification-token",
            "team_id": self.team_id,
            "context_team_id": self.team_id,
            "api_app_id": self.api_app_id,
            "type": "event_callback",
            "event_id": event_id or self.next_event_id(),
            "event_time": int(self.clock()),
            "authorizations": [
                {
                    "enterprise_id": None,
                    "team_id": self.team_id,
                    "user_id": ws.bot_user_id,
                    "is_bot": True,
                    "is_enterprise_install": False,
                }
            ],
            "is_ext_shared_channel": False,
            "event": event,
        }

    async def send_event(
        self, envelope: dict[str, Any], retry: int | None = None, reason: str = "http_timeout"
    ) -> aiohttp.ClientResponse:
        """Deliver an envelope (again, with `retry` ≥ 1: Slack's retry headers)."""
        body = json.dumps(envelope)
        extra = {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": reason} if retry else {}
        return await self.post(body, JSON, self.signed_headers(body, **extra))

    async def dm(
        self,
        user: str,
        text: str,
        thread_ts: str | None = None,
        *,
        event_id: str | None = None,
        retry: int | None = None,
    ) -> tuple[aiohttp.ClientResponse, dict[str, Any]]:
        """The person types in their DM (it appears in the stand-in) and Slack delivers message.im."""
        message = self.standin.post_user_message(user, text, thread_ts=thread_ts)
        event: dict[str, Any] = {
            "type": "message",
            "channel": message["channel"],
            "user": user,
            "text": slack_escape(text),  # Slack sends &, < and > escaped; blocks carry them raw
            "ts": message["ts"],
            "event_ts": message["ts"],
            "channel_type": "im",
            "team": self.team_id,
            "client_msg_id": message.get("client_msg_id"),
            "blocks": message.get("blocks", []),
        }
        if message.get("thread_ts"):
            event["thread_ts"] = message["thread_ts"]
            event["parent_user_id"] = message.get("parent_user_id")
        envelope = self.envelope(event, event_id)
        return await self.send_event(envelope, retry), envelope

    async def redeliver(self, envelope: dict[str, Any], retry: int) -> aiohttp.ClientResponse:
        """Slack's retry of an event it thinks was not acked (same event_id, retry headers)."""
        return await self.send_event(envelope, retry)

    async def home_opened(
        self, user: str, *, event_id: str | None = None
    ) -> aiohttp.ClientResponse:
        """The person opens the app's Home tab: app_home_opened with their Home view, if any."""
        event: dict[str, Any] = {
            "type": "app_home_opened",
            "user": user,
            "channel": self.standin.dm_channel(user),
            "tab": "home",
            "event_ts": f"{self.clock():.6f}",
        }
        home = self.standin.workspace.views.home(user)
        if home is not None:
            event["view"] = home
        return await self.send_event(self.envelope(event, event_id))

    # -- slash commands -----------------------------------------------------------------

    async def command(
        self, user: str, text: str = "", command: str = "/leave", channel: str | None = None
    ) -> aiohttp.ClientResponse:
        """The person runs a slash command (in their DM with the bot unless `channel` is given)."""
        ws = self.standin.workspace
        person = ws.user(user)
        form = {
            "token": "legacy-verification-token",
            "team_id": self.team_id,
            "team_domain": self.team_domain,
            "channel_id": channel or self.standin.dm_channel(user),
            "channel_name": "directmessage",
            "user_id": user,
            "user_name": person["name"],
            "command": command,
            "text": text,
            "api_app_id": self.api_app_id,
            "is_enterprise_install": "false",
            "response_url": f"https://hooks.slack.com/commands/{self.team_id}/{self.next_event_id()}",
            "trigger_id": self.standin.issue_trigger_id(user),
        }
        return await self.post(urllib.parse.urlencode(form), FORM)

    # -- interactivity ------------------------------------------------------------------

    async def interact(self, payload: dict[str, Any]) -> aiohttp.ClientResponse:
        """POST an interaction payload (`payload=<json>`, form-encoded), signed."""
        body = urllib.parse.urlencode({"payload": json.dumps(payload)})
        return await self.post(body, FORM)

    def _who(self, user: str) -> dict[str, Any]:
        ws = self.standin.workspace
        try:
            name = ws.user(user)["name"]
        except StandInError:  # someone the workspace does not know
            name = user
        return {"id": user, "username": name, "name": name, "team_id": self.team_id}

    def _base(self, kind: str, user: str) -> dict[str, Any]:
        return {
            "type": kind,
            "user": self._who(user),
            "api_app_id": self.api_app_id,
            "token": "legacy-verification-token",
            "team": {"id": self.team_id, "domain": self.team_domain},
            "enterprise": None,
            "is_enterprise_install": False,
        }

    async def click(
        self,
        user: str,
        message: dict[str, Any],
        action_id: str,
        *,
        view: dict[str, Any] | None = None,
        block_id: str | None = None,
        value: str | None = None,
        state: dict[str, Any] | None = None,
    ) -> aiohttp.ClientResponse:
        """Click `action_id` on a message the stand-in holds (it must carry its `channel`).

        The element (its block_id and value) is found in the message's blocks; the payload has
        Slack's container, channel, message and a fresh trigger id. `state` is what the
        message's inputs hold (ticked checkboxes), as Slack's `state.values`.
        """
        found = find_element(message.get("blocks"), action_id, block_id)
        if found is None:
            raise ButtonNotFound(
                f"no element {action_id} on the message: {json.dumps(message)[:500]}"
            )
        channel = message["channel"]
        container: dict[str, Any] = {
            "type": "message",
            "message_ts": message["ts"],
            "channel_id": channel,
            "is_ephemeral": bool(message.get("ephemeral")),
        }
        if message.get("thread_ts"):
            container["thread_ts"] = message["thread_ts"]
        payload = self._base("block_actions", user) | {
            "container": container,
            "trigger_id": self.standin.issue_trigger_id(user),
            "channel": {"id": channel, "name": "directmessage"},
            "message": {k: v for k, v in message.items() if k not in MESSAGE_ONLY_KEYS},
            "state": {"values": state or {}},
            "response_url": f"https://hooks.slack.com/actions/{self.team_id}/{self.next_event_id()}",
            "actions": [_action(*found, value)],
        }
        if view is not None:
            payload["view"] = view
        return await self.interact(payload)

    async def click_in_view(
        self,
        user: str,
        view: dict[str, Any],
        action_id: str,
        *,
        block_id: str | None = None,
        value: str | None = None,
        values: dict[str, Any] | None = None,
    ) -> aiohttp.ClientResponse:
        """Click `action_id` in a Home tab or an open modal (container type `view`)."""
        found = find_element(view.get("blocks"), action_id, block_id)
        if found is None:
            raise ButtonNotFound(f"no element {action_id} in view {view.get('id')}")
        sent_view = {**view, "state": {"values": values or {}}}
        payload = self._base("block_actions", user) | {
            "container": {"type": "view", "view_id": view.get("id")},
            "trigger_id": self.standin.issue_trigger_id(user),
            "view": sent_view,
            "actions": [_action(*found, value)],
        }
        return await self.interact(payload)

    async def submit_view(
        self, user: str, view: dict[str, Any], values: dict[str, Any]
    ) -> aiohttp.ClientResponse:
        """Submit a modal: view_submission with `view.state.values[block_id][action_id]`.

        A view given as the bot built it (no id yet) is the person's open modal of that
        callback_id, with the id and hash Slack gave it.
        """
        if "id" not in view:
            opened = [
                v
                for v in self.standin.workspace.views.stack(user)
                if v.get("callback_id") == view.get("callback_id")
            ]
            if opened:
                view = {**view, "id": opened[-1]["id"], "hash": opened[-1].get("hash", "")}
        payload = self._base("view_submission", user) | {
            "trigger_id": self.standin.issue_trigger_id(user),
            "view": {**view, "state": {"values": values}},
            "response_urls": [],
        }
        return await self.interact(payload)

    async def close_view(
        self, user: str, view: dict[str, Any], values: dict[str, Any] | None = None
    ) -> aiohttp.ClientResponse:
        """The person pressed Close on a modal with `notify_on_close`: view_closed."""
        payload = self._base("view_closed", user) | {
            "view": {**view, "state": {"values": values or {}}},
            "is_cleared": False,
        }
        return await self.interact(payload)
