"""Slack turns through the queue: the DM fast path behind the edge, and the runner's side of a turn.

A DM event, once the edge (bot/slack/edge.py) has verified and validated it, is de-duplicated
and queued in one Redis round trip, then acked: no Bolt dispatch, no Web API call, no blocks
built before the 200. If it cannot be queued in time the answer is 503, and Slack delivers
the event again. Anything else (commands, clicks, forms, other events) goes through Bolt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import structlog
from aiohttp import web
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError

from agent.i18n import detect_locale, t
from bot.queue import QueueUnavailable, Turn, TurnJournal, Turns
from bot.queue.journal import ANSWERED

if TYPE_CHECKING:
    from bot.slack.app import SlackBot
    from workflow.config import Person

log = structlog.get_logger("slack")
PLATFORM = "slack"
SEEN_TTL_S = 3600  # Slack retries within minutes; an hour of memory drops every retry
DM = "dm"
COMMAND = "command"


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


async def submit_dm(turns: Turns, body: dict[str, Any], event: dict[str, Any]) -> bool:
    """Queue the DM's turn; False for an empty DM or Slack's retry of a queued one.

    Raises:
        QueueUnavailable: it could not be queued in time (answer non-2xx).
    """
    text = (event.get("text") or "").strip()
    if not text or not isinstance(event.get("user"), str) or not event.get("channel"):
        return False
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
    return await turns.submit(
        PLATFORM, str(key), DM, slack_thread(team, channel, root), data, seen_ttl_s=SEEN_TTL_S
    )


async def submit_command(turns: Turns, team: str, user: str, text: str, trigger: str) -> bool:
    """Queue `/leave <text>`'s turn (its DM thread is opened by the runner)."""
    data = {"team": team, "user": user, "text": text}
    thread = f"slack:{team}:command:{user}"
    return await turns.submit(
        PLATFORM, f"cmd:{trigger}", COMMAND, thread, data, seen_ttl_s=SEEN_TTL_S
    )


class SlackIngress:
    """The fast path for DM events in front of Bolt (behind the edge, which verified them)."""

    def __init__(self, turns: Turns) -> None:
        self.turns = turns

    async def dm(self, request: web.Request) -> BoltResponse | None:
        """The answer to a verified DM event, or None: not a DM event, for Bolt."""
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
                text=t(
                    locale,
                    "Sorry — answering this message failed three times, so I have stopped trying. "
                    "Nothing was submitted. Please send it again; if it keeps failing, tell your admin "
                    "(it is kept for them: `approvals-bot turns list`).",
                    "抱歉，这条消息处理失败了三次，我已停止重试，没有提交任何内容。请重新发送；如果仍然失败，"
                    "请联系管理员（消息已保留：`approvals-bot turns list`）。",
                ),
            )
            await journal.put(ANSWERED, "1")
        except SlackApiError as e:
            log.error("slack_give_up_notice_failed", error=e.response.get("error"))
