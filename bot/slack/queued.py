"""Slack turns through the queue: the DM fast path behind the edge, and the runner's side of a turn.

A DM event, once the edge (bot/slack/edge.py) has verified and validated it, is de-duplicated
and queued in one Redis round trip, then acked: no Bolt dispatch, no Web API call, no blocks
built before the 200. If it cannot be queued in time the answer is 503, and Slack delivers
the event again. Anything else (commands, clicks, forms, other events) goes through Bolt.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import orjson
import structlog
from aiohttp import web
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError

from agent.catalogue import say
from agent.i18n import detect_locale
from bot.budget import client_address
from bot.queue import QueueUnavailable, Turn, TurnJournal, Turns
from bot.queue.ingress import Submitted
from bot.queue.journal import ANSWERED
from bot.slack.edge import MAX_DEPTH, Refused, SlackEdge, depth

if TYPE_CHECKING:
    from bot.slack.app import SlackBot
    from workflow.config import Person

log = structlog.get_logger("slack")
PLATFORM = "slack"
SEEN_TTL_S = 3600  # Slack retries within minutes; an hour of memory drops every retry
DM = "dm"
MAX_ID = 255  # the edge's limit on an id (bot/slack/edge.py's Id)
COMMAND = "command"
ACKED = (200, "")


def slack_thread(team: str, channel: str, thread_ts: str) -> str:
    """The conversation key of a Slack thread (the agent's memory and the queue's order)."""
    return f"slack:{team}:{channel}:{thread_ts}"


def wanted_dm(event: dict[str, Any]) -> bool:
    """A person's DM to the bot (not the bot's own, not an edit or a join)."""
    return (
        event.get("type") == "message"
        and event.get("channel_type") == "im"
        and not event.get("bot_id")
        and not event.get("subtype")
    )


def dm_turn(body: dict[str, Any], event: dict[str, Any]) -> Turn | None:
    """The DM's turn as it is queued (keyed by its event id), or None for an empty DM."""
    text = (event.get("text") or "").strip()
    if not text or not isinstance(event.get("user"), str) or not event.get("channel"):
        return None
    team = body.get("team_id") or event.get("team") or ""
    channel = str(event["channel"])
    root = str(event.get("thread_ts") or event.get("ts") or "")
    key = body.get("event_id") or event.get("client_msg_id") or f"{channel}:{event.get('ts')}"
    data = {
        "team": team,
        "channel": channel,
        "user": event["user"],
        "thread_ts": root,
        "text": text,
    }
    return Turn("", PLATFORM, DM, slack_thread(team, channel, root), data, str(key))


async def submit_dm(turns: Turns, body: dict[str, Any], event: dict[str, Any]) -> bool:
    """Queue the DM's turn; False for an empty DM or Slack's retry of a queued one.

    Raises:
        QueueUnavailable: it could not be queued in time (answer non-2xx).
    """
    turn = dm_turn(body, event)
    if turn is None:
        return False
    return await turns.submit(PLATFORM, turn.key, DM, turn.thread, turn.data, seen_ttl_s=SEEN_TTL_S)


def _acked(answer: asyncio.Future[tuple[int, str]], queued: Submitted) -> None:
    """The front's answer once the DM is queued (or recognised): 200, or 503 and why."""
    if not answer.done():
        answer.set_result((503, str(queued)) if isinstance(queued, QueueUnavailable) else ACKED)


async def submit_command(turns: Turns, team: str, user: str, text: str, trigger: str) -> bool:
    """Queue `/leave <text>`'s turn (its DM thread is opened by the runner)."""
    data = {"team": team, "user": user, "text": text}
    thread = f"slack:{team}:command:{user}"
    return await turns.submit(
        PLATFORM, f"cmd:{trigger}", COMMAND, thread, data, seen_ttl_s=SEEN_TTL_S
    )


def _id(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_ID


def _plain_dm(body: Any) -> dict[str, Any] | None:
    """The DM event of a body the fast path may queue as it is; None: leave it to the edge.

    The same fields the edge's DirectMessage model insists on, checked by hand; anything
    unusual (not a person's DM, a field of the wrong type, a deep body) takes the slow path,
    which answers it exactly as before.
    """
    if not isinstance(body, dict) or body.get("type") != "event_callback":
        return None
    event = body.get("event")
    if not isinstance(event, dict) or not wanted_dm(event):
        return None
    if not (_id(event.get("channel")) and _id(event.get("user")) and _id(event.get("ts"))):
        return None
    if not isinstance(event.get("text", ""), str) or not isinstance(body.get("team_id", ""), str):
        return None
    thread_ts, event_id = event.get("thread_ts"), body.get("event_id")
    if (thread_ts is not None and not _id(thread_ts)) or not isinstance(event_id, str | None):
        return None
    return event


class SlackIngress:
    """POST /slack/events: a person's DM is verified, queued and acked right here.

    Verify (the edge's own check and failure budget), parse the envelope with orjson, one
    Redis script (batched with the burst's others), 200. Nothing else — no Bolt, no
    pydantic, no Web API call — stands between a DM and its ack. Anything that is not a
    plain, correctly signed DM goes to `slow` (the edge, then Bolt) untouched, and is
    answered there exactly as before; so is a DM the fast path is unsure of.

    serve's front (bot/front.py) calls `quick` before aiohttp parses anything; a request it
    hands to aiohttp comes back here through `handle`: the same checks, the same answers.
    """

    def __init__(self, turns: Turns, edge: SlackEdge) -> None:
        self.turns = turns
        self.edge = edge

    async def handle(
        self, request: web.Request, slow: Callable[[web.Request], Awaitable[web.Response]]
    ) -> web.Response:
        """The aiohttp route's fast path (bot/front.py's is `quick`: the same checks, the same answer)."""
        if not self.wanted(request.headers, request.remote):
            return await slow(request)
        raw = await request.read()  # kept by aiohttp: `slow` reads the same bytes
        found = self.plain_dm(raw, request.headers)
        if found is None:
            return await slow(request)
        status, text = await self.ack(*found)
        return web.Response(status=status, text=text or None)

    def quick(
        self, raw: bytes, headers: Mapping[str, str], remote: str | None
    ) -> asyncio.Future[tuple[int, str]] | None:
        """bot/front.py's route: the DM's (status, text) to come, or None: aiohttp answers it.

        Answered from the enqueue's callback: no task or coroutine per DM (that was a good
        part of an ack's CPU in a burst); the same answers as `ack`.
        """
        if not self.wanted(headers, remote):
            return None
        found = self.plain_dm(raw, headers)
        if found is None:
            return None
        answer: asyncio.Future[tuple[int, str]] = asyncio.get_running_loop().create_future()
        turn = dm_turn(*found)
        if turn is None:
            answer.set_result(ACKED)
        else:
            self.turns.submit_then(turn, SEEN_TTL_S, partial(_acked, answer))
        return answer

    def wanted(self, headers: Mapping[str, str], remote: str | None) -> bool:
        """A JSON body (no charset) from a client that has not used up its verification budget."""
        kind = headers.get("Content-Type", "")
        if kind.split(";")[0].strip().lower() != "application/json" or "charset" in kind:
            return False
        return not self.edge.budget.client_blocked(client_address(remote))

    def plain_dm(
        self, raw: bytes, headers: Mapping[str, str]
    ) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The body and DM event of a correctly signed plain DM; None: the edge answers it."""
        # not a DM at all: the edge verifies it (once) on its own path; a byte search is no read
        if b'"event_callback"' not in raw or b'"im"' not in raw:
            return None
        try:  # the signature before anything parses the body
            self.edge.verify(raw, headers)
        except Refused:
            return None  # refused by the edge, and counted there, as it always was
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return None
        if raw.count(b"{") + raw.count(b"[") > MAX_DEPTH and depth(body) > MAX_DEPTH:
            return None
        event = _plain_dm(body)
        return None if event is None else (body, event)

    async def ack(self, body: dict[str, Any], event: dict[str, Any]) -> tuple[int, str]:
        """Queue the DM: 200, or 503 and why (Slack delivers it again)."""
        try:
            await submit_dm(self.turns, body, event)
        except QueueUnavailable as e:
            return 503, str(e)
        return ACKED

    async def dm(self, request: web.Request) -> BoltResponse | None:
        """Behind the edge (verified and validated): a DM event's answer, or None (for Bolt)."""
        if request.content_type != "application/json":
            return None
        raw = await request.read()
        if b'"event_callback"' not in raw or b'"im"' not in raw:
            return None
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return None
        event = body.get("event") if isinstance(body, dict) else None
        if body.get("type") != "event_callback" or not isinstance(event, dict):
            return None
        if not wanted_dm(event):
            return None
        try:
            await submit_dm(self.turns, body, event)
        except QueueUnavailable as e:
            return BoltResponse(status=503, body=str(e))
        return BoltResponse(status=200, body="")


class SlackTurnHandler:
    """The runner's side of a Slack turn."""

    def __init__(self, bot: SlackBot) -> None:
        self.bot = bot

    async def run_turn(self, turn: Turn, journal: TurnJournal) -> None:
        if journal.answered:  # an earlier run answered; it died before it could say so
            return
        d = turn.data
        if turn.kind == COMMAND:
            person = await self.bot.identity.person_for(d["team"], d["user"])
            await self._command(d["team"], d["user"], person, d["text"], journal)
        else:  # the turn looks the person up itself, and says so if Slack fails it
            await self.bot.dm_turn(
                d["team"], d["channel"], d["user"], d["thread_ts"], d["text"], None, journal=journal
            )

    async def _command(
        self, team: str, user: str, person: Person | None, text: str, journal: TurnJournal
    ) -> None:
        bot = self.bot
        if person is None:
            return
        channel = await bot.identity.dm_channel(team, person)
        if channel is None:
            return
        opener = journal.get("opener")
        if opener is None:
            posted = await bot.client.chat_postMessage(channel=channel, text=f"/leave {text}")
            opener = str(posted["ts"])
            await journal.put("opener", opener)
        await bot.dm_turn(team, channel, user, opener, text, person, journal=journal)

    async def give_up(self, turn: Turn, journal: TurnJournal) -> None:
        """Tell the person, in the thread, that this message will not be answered."""
        d = turn.data
        channel, thread_ts = d.get("channel"), d.get("thread_ts") or journal.get("opener")
        if not channel or not thread_ts or journal.answered:
            return
        locale = detect_locale(d.get("text") or "")
        try:
            await self.bot.client.chat_postMessage(
                channel=channel,
                thread_ts=thread_ts,
                text=say("turn.gave_up", locale),
            )
            await journal.put(ANSWERED, "1")
        except SlackApiError as e:
            log.error("slack_give_up_notice_failed", error=e.response.get("error"))
