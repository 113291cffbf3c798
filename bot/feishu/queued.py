"""Feishu turns through the queue: a message is queued before the ack; the runner's side of a turn.

Every reply of a turn carries a uuid derived from the inbound event and its place in the
turn (bot/feishu/turns.py), and Feishu sends one message per uuid: a turn run again after
its runner died lands on the same messages. Its confirm card is then patched to the new
run's card, so the person sees one card with buttons that work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import structlog

from agent.catalogue import say
from agent.i18n import detect_locale
from bot.feishu.errors import FeishuError
from bot.feishu.turns import CardThread
from bot.queue import Turn, TurnJournal, Turns
from bot.queue.journal import ANSWERED

if TYPE_CHECKING:
    from bot.feishu.app import FeishuBot

log = structlog.get_logger("feishu")
PLATFORM = "feishu"
SEEN_TTL_S = 86_400  # Feishu retries for hours (15 s, 5 min, 1 h, 6 h): remember ids for a day
MESSAGE = "message"


async def submit_message(
    turns: Turns,
    *,
    event_id: str,
    open_id: str,
    root_id: str,
    thread: str,
    text: str | None,
) -> bool:
    """Queue a message's turn; False for Feishu's retry of a queued one.

    Raises:
        QueueUnavailable: it could not be queued in time (answer non-2xx so Feishu retries).
    """
    data: dict[str, Any] = {
        "open_id": open_id,
        "root_id": root_id,
        "thread": thread,
        "text": text,
        "origin": event_id,
    }
    return await turns.submit(PLATFORM, event_id, MESSAGE, thread, data, seen_ttl_s=SEEN_TTL_S)


class FeishuTurnHandler:
    """The runner's side of a Feishu turn."""

    def __init__(self, bot: FeishuBot) -> None:
        self.bot = bot

    async def run_turn(self, turn: Turn, journal: TurnJournal) -> None:
        if journal.answered:
            return
        d = turn.data
        await self.bot.turn(
            d["open_id"], d["root_id"], d["thread"], d.get("text"), d["origin"], journal=journal
        )

    async def give_up(self, turn: Turn, journal: TurnJournal) -> None:
        d = turn.data
        locale = detect_locale(d.get("text") or "", "zh")
        view = CardThread(self.bot.client, d["root_id"], d["thread"], locale, f"{d['origin']}:dead")
        try:
            await view.say(say("turn.gave_up", locale))
            await journal.put(ANSWERED, "1")
        except FeishuError as e:
            log.error("feishu_give_up_notice_failed", error=str(e))
