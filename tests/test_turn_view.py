"""`show_turn`, once for every surface: which step lines a thread shows, and when."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agent.events import (
    FinalAnswer,
    ModelStep,
    StepEvent,
    StopReason,
    ToolFinished,
    ToolStarted,
)
from bot.conversation.turn_view import show_turn

BALANCE = "Your balances for 2026: Annual leave: 25 of 25 days left."
DAYS = "Mon 14 Dec 2026 – Wed 16 Dec 2026: 3 working days"


class Recorded:
    """A surface that records what it was told to draw."""

    def __init__(self, redraws: bool) -> None:
        self.redraws = redraws
        self.drawn: list[tuple[str, str, str | None]] = []

    async def task(self, call_id, title, status, output=None) -> None:
        self.drawn.append((call_id, status, output))

    async def card(self, proposal) -> None: ...

    async def notice(self, text: str) -> None: ...

    async def finish(self, text: str) -> None:
        self.drawn.append(("answer", "", text))


async def turn(answer: str) -> AsyncIterator[StepEvent]:
    """Two read steps, then an answer: the offline planner's and a model's turn alike."""
    for n, (tool, summary) in enumerate((("working_days", DAYS), ("my_balances", BALANCE))):
        yield ToolStarted(n, f"c{n}", tool, tool, {})
        yield ToolFinished(n, f"c{n}", tool, tool, True, summary, 1.0)
    yield ModelStep(3, "m", None, 0, 0, 0, 1.0)
    yield FinalAnswer(answer, StopReason.FINAL, 3, 3, 0, 0, 1.0, 0.0)


async def test_a_step_line_the_answer_repeats_is_not_shown_on_any_surface():
    """The balance step's line is the answer itself: shown once, as the answer; the working
    days step's line adds to it and stays. A surface that redraws shows each step done at
    once; one that prints (the terminal) prints each step once, when its line is known."""
    answer = f"**{BALANCE}**"  # markdown marks do not make it another sentence
    live, printed = Recorded(redraws=True), Recorded(redraws=False)
    for view in (live, printed):
        final = await show_turn(turn(answer), view)
        assert final is not None and final.text == answer
    assert live.drawn == [
        ("c0", "in_progress", None),
        ("c0", "complete", None),
        ("c0", "complete", DAYS),  # its line, once the next step shows it is not the answer
        ("c1", "in_progress", None),
        ("c1", "complete", None),
        ("answer", "", answer),
    ]
    assert printed.drawn == [
        ("c0", "in_progress", None),
        ("c0", "complete", DAYS),
        ("c1", "in_progress", None),
        ("c1", "complete", None),
        ("answer", "", answer),
    ]
    other = Recorded(redraws=False)
    await show_turn(turn("You have 25 days of annual leave."), other)
    assert ("c1", "complete", BALANCE) in other.drawn  # said otherwise: the line adds to it


async def test_a_finished_steps_line_is_shown_when_the_turn_then_fails():
    """A step that failed ("You can't read that."), then the turn raises (Redis, Slack, a lost
    lease): the terminal still prints the step with its line and Slack/Feishu show its line
    under the ✗; the turn's own error is raised, not one the surface hits drawing the line."""

    async def failing() -> AsyncIterator[StepEvent]:
        yield ToolStarted(0, "c0", "get_request", "get_request", {})
        yield ToolFinished(
            0, "c0", "get_request", "get_request", False, "You can't read that.", 1.0
        )
        raise RuntimeError("redis went away")

    class Broken(Recorded):
        async def task(self, call_id, title, status, output=None) -> None:
            if output is not None:
                raise ConnectionError("slack went away")
            await super().task(call_id, title, status, output)

    for view in (Recorded(redraws=True), Recorded(redraws=False), Broken(redraws=True)):
        with pytest.raises(RuntimeError, match="redis went away"):
            await show_turn(failing(), view)
        if not isinstance(view, Broken):
            assert view.drawn[-1] == ("c0", "error", "You can't read that."), view.drawn


def test_a_step_line_is_said_by_the_answer_only_as_whole_words():
    """ "3 waiting for your approval" is not said by "13 waiting for your approval", nor
    "Found: Li." by "Found: Li Na and Li Wei.": the line that shows the difference stays. The
    same line as a whole, or in Chinese (no spaces between words), is said."""
    from bot.presentation.steps import said_by

    for line, answer, said in (
        ("3 waiting for your approval", "You have 13 waiting for your approval.", False),
        ("3 waiting for your approval", "You have 3 waiting for your approval.", True),
        ("Found: Li.", "Found: Li Na and Li Wei.", False),
        ("Found: Li.", "**Found: Li.** Shall I look further?", True),
        ("Found: Li.", "Found: Li, in Finance.", True),
        ("Asked Li", "Asked Lina in Finance.", False),
        ("3 条待你审批", "你有 13 条待你审批。", False),
        ("条待你审批", "你有 3 条待你审批。", True),  # Chinese words: contained
        ("找到：李娜。", "已找到：李娜。", True),
    ):
        assert said_by(line, answer) is said, (line, answer)
