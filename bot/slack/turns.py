"""One agent turn shown in a Slack thread: a status, the steps as thinking steps, the answer, the cards.

Streaming (chat.startStream/appendStream/stopStream with task_update chunks) is tried first;
where it fails, the same steps are a plan block of task cards in one message updated in place.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import structlog
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.models.messages.chunk import MarkdownTextChunk, TaskUpdateChunk
from slack_sdk.web.async_client import AsyncWebClient

from agent.events import FinalAnswer, Notice, ProposalReady, StepEvent, ToolFinished, ToolStarted
from agent.i18n import t
from bot.presentation.steps import step_output
from bot.slack.blocks import TaskLine, confirm_card, plan_message
from workflow.engine import Engine

log = structlog.get_logger("slack")
UPDATE_EVERY_S = 1.0  # chat.update is tier 3: one update a second per thread is well inside it


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
    # told of each confirm card posted (its ts): the core records it and retires what it replaces
    posted: Callable[[ProposalReady, str], Awaitable[None]] | None = None
    tasks: dict[str, TaskLine] = field(default_factory=dict)
    _stream: object | None = None
    _plan_ts: str | None = None
    _last_update: float = 0.0

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
            if self._stream is None:
                self._stream = await self.client.chat_stream(
                    channel=self.channel,
                    thread_ts=self.thread_ts,
                    recipient_team_id=self.team_id,
                    recipient_user_id=self.user_id,
                    task_display_mode="plan",
                )
            await self._stream.append(chunks=chunks)
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
        title = t(self.locale, "Working on it", "处理中")
        msg = plan_message(title, list(self.tasks.values()), final_text)
        if self._plan_ts is None:
            posted = await self.client.chat_postMessage(
                channel=self.channel, thread_ts=self.thread_ts, text=msg.text, blocks=msg.blocks
            )
            self._plan_ts = posted["ts"]
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
        msg = confirm_card(proposal, self.locale, engine=self.engine)
        posted = await self.client.chat_postMessage(
            channel=self.channel, thread_ts=self.thread_ts, text=msg.text, blocks=msg.blocks
        )
        if self.posted is not None:
            await self.posted(proposal, posted["ts"])

    async def finish(self, text: str) -> None:
        if self._stream is not None and self.streaming:
            try:
                await self._stream.stop(chunks=[MarkdownTextChunk(text=text)])
                return
            except (SlackApiError, SlackRequestError) as e:
                log.info("slack_stream_stop_failed", error=str(e)[:200])
                self.streaming = False
        if self.tasks:
            await self._plan(final_text=text, force=True)
        else:
            await self.client.chat_postMessage(
                channel=self.channel, thread_ts=self.thread_ts, text=text, mrkdwn=True
            )

    async def render(self, events: AsyncIterator[StepEvent]) -> FinalAnswer | None:
        """Show every event of a turn; returns its final answer."""
        await self.status(t(self.locale, "is thinking…", "正在思考…"))
        final = None
        try:
            async for event in events:
                match event:
                    case ToolStarted():
                        await self.task(event.call_id, event.title, "in_progress")
                    case ToolFinished():
                        output = step_output(event)
                        await self.task(
                            event.call_id, event.title, "complete" if event.ok else "error", output
                        )
                    case ProposalReady():
                        await self.card(event)
                    case Notice():
                        await self.client.chat_postMessage(
                            channel=self.channel, thread_ts=self.thread_ts, text=f"_{event.text}_"
                        )
                    case FinalAnswer():
                        final = event
                        await self.finish(event.text)
        finally:
            await asyncio.shield(self.status(""))
        return final
