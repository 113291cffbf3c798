"""One agent turn shown on a surface: which step event becomes which part of the thread, decided once.

A surface (a Slack thread, a Feishu thread) says how it shows a step, a confirm card, a notice
and the answer; `show_turn` feeds it a turn's events in order.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from agent.events import FinalAnswer, Notice, ProposalReady, StepEvent, ToolFinished, ToolStarted
from bot.presentation.steps import TaskStatus, step_output


class TurnView(Protocol):
    async def task(
        self, call_id: str, title: str, status: TaskStatus, output: str | None = None
    ) -> None:
        """A tool call started, finished or failed: its step line."""
        ...

    async def card(self, proposal: ProposalReady) -> None:
        """A pending action to confirm: its confirm card."""
        ...

    async def notice(self, text: str) -> None:
        """Something said in passing (a retry, a fallback)."""
        ...

    async def finish(self, text: str) -> None:
        """The answer, once."""
        ...


async def show_turn(events: AsyncIterator[StepEvent], view: TurnView) -> FinalAnswer | None:
    """Show every event of a turn; returns its final answer (None: the turn gave none)."""
    final = None
    async for event in events:
        match event:
            case ToolStarted():
                await view.task(event.call_id, event.title, "in_progress")
            case ToolFinished():
                status: TaskStatus = "complete" if event.ok else "error"
                await view.task(event.call_id, event.title, status, step_output(event))
            case ProposalReady():
                await view.card(event)
            case Notice():
                await view.notice(event.text)
            case FinalAnswer():
                final = event
                await view.finish(event.text)
    return final
