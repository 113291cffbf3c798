"""One agent turn shown in a Slack thread: a status, the steps as thinking steps, the answer, the cards.

Streaming (chat.startStream/appendStream/stopStream with task_update chunks) is tried first;
where it fails, the same steps are a plan block of task cards in one message updated in place.
What is posted is written to the turn's journal (bot/queue/journal.py): a turn run again after
its runner died continues the same stream or plan message and replaces its cards in place.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import ClassVar

import structlog
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.models.messages.chunk import MarkdownTextChunk, TaskUpdateChunk
from slack_sdk.web.async_client import AsyncWebClient

from agent.events import FinalAnswer, ProposalReady, StepEvent
from bot.conversation.turn_view import show_turn
from bot.presentation.confirm import proposal_card
from bot.queue.journal import TurnJournal
from bot.slack.blocks import TaskLine, confirm_card, plan_message
from bot.slack.blocks_cards import render
from bot.wording import say
from workflow.engine import Engine
from workflow.errors import WorkflowError
from workflow.transactions import Group

log = structlog.get_logger("slack")
UPDATE_EVERY_S = 1.0  # chat.update is tier 3: one update a second per thread is well inside it


@dataclass
class ResumedStream:
    """A streamed message an earlier run of the turn started: appended to and stopped by its ts."""

    client: AsyncWebClient
    channel: str
    ts: str

    async def append(self, *, chunks: list) -> None:
        await self.client.chat_appendStream(channel=self.channel, ts=self.ts, chunks=chunks)

    async def stop(self, *, chunks: list) -> None:
        await self.client.chat_stopStream(channel=self.channel, ts=self.ts, chunks=chunks)


@dataclass
class ThreadView:
    """Renders step events into one Slack thread."""

    client: AsyncWebClient
    channel: str
    thread_ts: str
    team_id: str
    user_id: str
    locale: str
    streaming: bool = True
    engine: Engine | None = None  # names leave types on cards in the person's language
    # told of each confirm card posted (its ts): the core records it and retires what it replaces,
    # sending the journal's record of the card with its own (one round trip)
    posted: Callable[[ProposalReady, str, Group | None], Awaitable[None]] | None = None
    redraws: ClassVar[bool] = True  # the stream or the plan message redraws a step in place
    journal: TurnJournal = field(default_factory=TurnJournal.none)
    actor: str | None = None  # the person whose superseded pending actions a re-run cancels
    tasks: dict[str, TaskLine] = field(default_factory=dict)
    _stream: object | None = None
    _plan_ts: str | None = None
    _last_update: float = 0.0
    _cards: int = 0
    _notices: int = 0
    # this run posted a message in the thread: Slack cleared the status then, so no call to clear it
    _replied: bool = False

    async def status(self, text: str) -> None:
        """The 'thinking…' status; it must never block the reply, so failures are only logged."""
        try:
            await self.client.assistant_threads_setStatus(
                channel_id=self.channel,
                thread_ts=self.thread_ts,
                status=text,
                loading_messages=[text] if text else None,
            )
        except (SlackApiError, SlackRequestError) as e:
            log.info("slack_status_failed", error=str(e)[:200])

    async def _stream_chunks(self, chunks: list) -> bool:
        if not self.streaming:
            return False
        try:
            started = self._stream is None
            if started and (ts := self.journal.get("stream")):
                self._stream, started = ResumedStream(self.client, self.channel, ts), False
            elif started:
                self._stream = await self.client.chat_stream(
                    channel=self.channel,
                    thread_ts=self.thread_ts,
                    recipient_team_id=self.team_id,
                    recipient_user_id=self.user_id,
                    task_display_mode="plan",
                )
            await self._stream.append(chunks=chunks)
            if started and (ts := getattr(self._stream, "ts", None)):
                self._replied = True
                await self.journal.put("stream", ts)
            return True
        except (SlackApiError, SlackRequestError) as e:
            log.info("slack_streaming_unavailable", error=str(e)[:200])
            self.streaming = False
            return False

    async def _plan(self, final_text: str | None = None, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_update < UPDATE_EVERY_S:
            return
        self._last_update = now
        title = say("steps.working", self.locale)
        msg = plan_message(title, list(self.tasks.values()), final_text)
        if self._plan_ts is None:
            self._plan_ts = self.journal.get("plan")
        if self._plan_ts is None:
            posted = await self.client.chat_postMessage(
                channel=self.channel, thread_ts=self.thread_ts, text=msg.text, blocks=msg.blocks
            )
            self._plan_ts = posted["ts"]
            self._replied = True
            await self.journal.put("plan", posted["ts"])
        else:
            await self.client.chat_update(
                channel=self.channel, ts=self._plan_ts, text=msg.text, blocks=msg.blocks
            )

    async def task(self, call_id: str, title: str, status: str, output: str | None = None) -> None:
        self.tasks[call_id] = TaskLine(call_id, title, status, output)
        chunk = TaskUpdateChunk(id=call_id, title=title, status=status, output=output)
        if not await self._stream_chunks([chunk]):
            await self._plan(force=status != "in_progress")

    async def card(self, proposal: ProposalReady) -> None:
        """Post the confirm card; on a re-run, the earlier run's card becomes this one, in place."""
        if self.engine is not None:  # the request it is about, as the engine has it now
            msg = render(await proposal_card(proposal, self.locale, self.engine))
        else:
            msg = confirm_card(proposal, self.locale)
        self._cards += 1
        slot = f"card:{self._cards}"
        earlier = self.journal.get(slot)
        if earlier:  # a re-run: the card the dead run posted becomes this one
            ts, _, old_pending = earlier.partition("|")
            await self.client.chat_update(
                channel=self.channel, ts=ts, text=msg.text, blocks=msg.blocks
            )
            if proposal.replaces == old_pending:  # the engine superseded it; its card is this one
                proposal = dataclasses.replace(proposal, replaces=None)
            else:
                await self._supersede(old_pending, proposal.pending_id)
        else:
            posted = await self.client.chat_postMessage(
                channel=self.channel, thread_ts=self.thread_ts, text=msg.text, blocks=msg.blocks
            )
            ts = posted["ts"]
            self._replied = True
        if self.posted is None:
            await self.journal.put(slot, f"{ts}|{proposal.pending_id}")
        else:
            await self.posted(
                proposal, ts, self.journal.record(slot, f"{ts}|{proposal.pending_id}")
            )

    async def _supersede(self, old: str, new: str) -> None:
        """The earlier run's pending action is replaced by this run's: cancel it (if still open)."""
        if not old or old == new or self.engine is None or self.actor is None:
            return
        try:
            await self.engine.cancel(old, self.actor)
        except WorkflowError as e:  # confirmed, superseded or expired meanwhile
            log.info("slack_superseded_pending_kept", pending_id=old, error=e.message)

    async def notice(self, text: str) -> None:
        self._notices += 1
        slot = f"notice:{self._notices}"
        if self.journal.get(slot):
            return
        await self.client.chat_postMessage(
            channel=self.channel, thread_ts=self.thread_ts, text=f"_{text}_"
        )
        self._replied = True
        await self.journal.put(slot, "1")

    async def finish(self, text: str) -> None:
        if self._stream is None and self.streaming and (ts := self.journal.get("stream")):
            self._stream = ResumedStream(self.client, self.channel, ts)  # end the earlier run's
        if self._stream is not None and self.streaming:
            try:
                await self._stream.stop(chunks=[MarkdownTextChunk(text=text)])
                return
            except (SlackApiError, SlackRequestError) as e:
                log.info("slack_stream_stop_failed", error=str(e)[:200])
                self.streaming = False
        if self.tasks or self.journal.get("plan"):
            await self._plan(final_text=text, force=True)
        else:
            await self.client.chat_postMessage(
                channel=self.channel, thread_ts=self.thread_ts, text=text, mrkdwn=True
            )
            self._replied = True

    async def render(self, events: AsyncIterator[StepEvent]) -> FinalAnswer | None:
        """Show every event of a turn; returns its final answer."""
        await self.status(say("steps.is_thinking", self.locale))
        try:
            return await show_turn(events, self, self.journal)
        finally:
            # Slack clears a thread's status when the app replies in it; a run that only
            # continued an earlier run's messages (or posted nothing) clears it itself
            if not self._replied:
                await asyncio.shield(self.status(""))
