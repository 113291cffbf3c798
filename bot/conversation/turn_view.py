"""One agent turn shown on a surface: which step event becomes which part of the thread, decided once.

A surface (a Slack thread, a Feishu thread, the terminal) says how it shows a step, a confirm
card, a notice and the answer; `show_turn` feeds it a turn's events in order, and records in
the queue's journal, for every surface alike, that the answer went out.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Protocol

from agent.events import (
    FinalAnswer,
    ModelStep,
    Notice,
    ProposalReady,
    StepEvent,
    ToolFinished,
    ToolStarted,
)
from agent.loop import Agent
from bot.presentation.steps import TaskStatus, said_by, step_output
from bot.queue.journal import ANSWERED, TurnJournal


class TurnView(Protocol):
    # True: a step is drawn again in place (Slack's stream or plan, Feishu's steps card), so it
    # shows done at once and gets its line a moment later; False: each step is printed once
    # (the terminal), when its line is known
    redraws: bool

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


def agent_turn(
    agent: Agent, thread: str, actor: str, text: str, journal: TurnJournal | None
) -> AsyncIterator[StepEvent]:
    """The agent's turn, for `show_turn`. `journal`: the queue's record of the turn (its runner
    holds the thread's lease, so the memory lock is not taken), whose staged records go out
    in the round trip that saves the turn to memory; None: a turn run outside the queue."""
    if journal is None:
        return agent.run(thread, actor, text)
    return agent.run(thread, actor, text, leased=True, save_with=journal.staged)


async def show_turn(
    events: AsyncIterator[StepEvent], view: TurnView, journal: TurnJournal | None = None
) -> FinalAnswer | None:
    """Show every event of a turn; returns its final answer (None: the turn gave none).

    `journal`: the queue's record of the turn. That the answer was shown is staged there and
    sent with the turn's save to memory, which follows at once (`agent_turn`): one round trip
    for both, so a runner that dies after the save leaves a turn the next runner ends
    silently. A turn that ends without a save sends it on its own, at the end.
    """
    journal = journal or TurnJournal.none()
    final = None
    # finished steps whose line waits for what comes next: a line the answer repeats is not shown
    held: list[tuple[ToolFinished, TaskStatus, str | None]] = []

    async def lines(answer: str | None = None) -> None:
        waiting = held.copy()
        held.clear()  # each line is drawn once at most, even when drawing one fails
        for done, status, output in waiting:
            shown = None if output and answer and said_by(output, answer) else output
            if shown is not None or not view.redraws:  # a redrawn step shows done already
                await view.task(done.call_id, done.title, status, shown)

    try:
        async for event in events:
            if not isinstance(event, ToolFinished | ModelStep | FinalAnswer):
                await lines()  # not the answer: the steps before it keep their lines
            match event:
                case ToolStarted():
                    await view.task(event.call_id, event.title, "in_progress")
                case ToolFinished():
                    status: TaskStatus = "complete" if event.ok else "error"
                    if view.redraws:
                        await view.task(event.call_id, event.title, status)
                    held.append((event, status, step_output(event)))
                case ProposalReady():
                    await view.card(event)
                case Notice():
                    await view.notice(event.text)
                case FinalAnswer():
                    final = event
                    await lines(event.text)
                    await view.finish(event.text)
                    journal.stage(ANSWERED, "1")
        await lines()  # a turn that ended without an answer
    except BaseException:
        # the turn failed (Redis, Slack, a lease lost): the steps it finished keep their lines,
        # as far as the surface can still draw them; the turn's own error is what is raised
        with contextlib.suppress(Exception):
            await lines()
        raise
    finally:
        await asyncio.shield(journal.flush())
    return final
