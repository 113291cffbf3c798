"""One agent turn shown in a Feishu thread: one steps card updated in place, confirm cards, the answer.

Every message is a reply in the thread of the person's message. The steps card is posted at
once (Feishu has no "typing" status, so it is the sign the bot is working), patched as tools
start and finish (at most once a second while in progress: PATCH is limited per message),
and ends with the answer. Each send carries a uuid derived from the inbound event, so a
retried request never doubles a message.
"""

from __future__ import annotations

import time
import uuid as uuid_lib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import ClassVar

import structlog

from agent.events import FinalAnswer, ProposalReady, StepEvent
from bot.conversation.turn_view import show_turn
from bot.feishu import cards
from bot.feishu.client import FeishuClient
from bot.feishu.errors import FeishuError
from bot.presentation.confirm import proposal_card
from bot.presentation.steps import TaskLine, TaskStatus
from bot.queue.journal import TurnJournal
from workflow.engine import Engine

log = structlog.get_logger("feishu")
UPDATE_EVERY_S = 1.0
_UUIDS = uuid_lib.UUID("6f1d8a52-3c1e-4b7a-9a57-2f4c0e1b9d33")


def send_uuid(*parts: str) -> str:
    """A stable uuid for one message: the same parts, the same uuid (Feishu dedupes on it for an hour)."""
    return str(uuid_lib.uuid5(_UUIDS, "\x1f".join(parts)))


@dataclass
class CardThread:
    """Renders step events into one Feishu thread, replying to `root_id`."""

    client: FeishuClient
    root_id: str
    thread: str  # the conversation key, carried in the confirm cards' buttons
    locale: str
    origin: str  # the inbound event id: the seed of every send's uuid
    engine: Engine | None = None
    # told of each confirm card posted (its message id): the core records it, retires what it replaces
    posted: Callable[[ProposalReady, str], Awaitable[None]] | None = None
    redraws: ClassVar[bool] = True  # the steps card is patched in place
    rerun: bool = False  # an earlier run of this turn sent the same uuids: its cards are patched
    tasks: dict[str, TaskLine] = field(default_factory=dict)
    _card_id: str | None = None
    _sent: int = 0
    _last_update: float = 0.0

    async def reply(self, msg_type: str, content: dict) -> str | None:
        """Reply in the thread; returns the new message id."""
        self._sent += 1
        data = await self.client.reply(
            self.root_id, msg_type, content, uuid=send_uuid(self.origin, str(self._sent))
        )
        return data.get("message_id")

    async def say(self, text: str) -> None:
        await self.reply("text", cards.text_content(text))

    async def _steps(self, final_text: str | None = None, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_update < UPDATE_EVERY_S:
            return
        self._last_update = now
        card = cards.steps_card(
            self.locale, list(self.tasks.values()), final_text, done=final_text is not None
        )
        if self._card_id is None:
            self._card_id = await self.reply("interactive", card)
        else:
            await self.client.patch_card(self._card_id, card)

    async def task(
        self, call_id: str, title: str, status: TaskStatus, output: str | None = None
    ) -> None:
        self.tasks[call_id] = TaskLine(call_id, title, status, output)
        await self._steps(force=status != "in_progress")

    async def finish(self, text: str) -> None:
        try:
            await self._steps(text, force=True)
        except FeishuError as e:  # the card could not be updated: the answer still gets through
            log.warning("feishu_steps_card_failed", error=str(e))
            await self.say(text)

    async def card(self, proposal: ProposalReady) -> None:
        """Post the confirm card; on a re-run, the earlier run's card becomes this one, in place."""
        if self.engine is not None:  # the request it is about, as the engine has it now
            drawn = await proposal_card(proposal, self.locale, self.engine)
            card = cards.render(drawn, thread=self.thread)
        else:
            card = cards.confirm_card(proposal, self.locale, thread=self.thread)
        message_id = await self.reply("interactive", card)
        if self.rerun and message_id:  # the uuid found the earlier run's card
            await self.client.patch_card(message_id, card)
        if self.posted is not None and message_id:
            await self.posted(proposal, message_id)

    async def notice(self, text: str) -> None:
        await self.say(text)

    async def render(
        self, events: AsyncIterator[StepEvent], journal: TurnJournal | None = None
    ) -> FinalAnswer | None:
        """Show every event of a turn; returns its final answer. `journal`: the queue's (show_turn)."""
        await self._steps(force=True)
        return await show_turn(events, self, journal)
