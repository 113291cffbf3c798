"""The offline planner: a rule-based ChatModel for when no LLM is configured or reachable."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date

from agent.messages import Message, ModelResponse, ToolCall, ToolSpec, Usage
from agent.planner._context import language_of, read_context
from agent.planner._conversation import current_task, split_turns
from agent.planner._draft import apply_correction
from agent.planner._forms import declared_names, declared_past
from agent.planner._plan import Batch, Call, Reply, decide
from agent.planner._replies import text

__all__ = ["OfflinePlanner"]

_CALL_ID = re.compile(r"^call_planner_(\d+)$")
# The agent's escape (agent/tools/choose.py) and the tools the planner's steps call.
_ESCAPE = "more_tools"
_PLANNED = frozenset(
    {
        "find_people",
        "list_processes",
        "my_balances",
        "my_pending_approvals",
        "my_requests",
        "propose_counter",
        "propose_decision",
        "propose_leave",
        "propose_reminder",
        "propose_request",
        "propose_withdraw",
        "request_details",
        "who_is_out",
        "working_days",
    }
)


class OfflinePlanner:
    """A ChatModel that follows rules instead of a language model, in English and Chinese.

    It reads the conversation like an LLM would (the system message for who is speaking and
    today's date, the user's messages, its own earlier tool calls and their results) and
    answers with one tool call or a final reply, so the agent loop runs unchanged. It only
    calls tools present in `tools`, never with another person's identity, and it has no
    way to approve anything: decisions are proposals the assignee confirms with a click.
    Deterministic: the same messages always give the same reply.
    """

    name = "offline-planner"

    def __init__(self, *, today: Callable[[], date] = date.today) -> None:
        # Only used when the system message carries no "Today:" line.
        self._today = today

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: str = "auto",
    ) -> ModelResponse:
        """The next step for this conversation: one tool call, or the answer to the user."""
        return self.respond(messages, tools, tool_choice=tool_choice)

    def respond(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: str = "auto",
    ) -> ModelResponse:
        """`complete` without the coroutine, for callers that are not async."""
        ctx = read_context(messages, self._today())
        if (past := declared_past(tools)) is not None:
            ctx = replace(ctx, past=past)
        turns = split_turns(messages)
        if not turns:
            return self._reply(text("cannot_finish", language_of([], ctx.locale)))
        lang = language_of([t.user for t in turns], ctx.locale)
        task = current_task(turns, ctx)
        task.declared = declared_names(tools)
        apply_correction(task, turns, ctx)
        offered = frozenset(spec.name for spec in tools) if tool_choice != "none" else frozenset()
        # With the escape offered every tool is one call away: plan as if all were there, and
        # ask for them (more_tools) when the plan needs one that is not.
        names = offered | _PLANNED if _ESCAPE in offered else offered
        step = decide(task, turns[-1], ctx, lang, names)
        if isinstance(step, Reply):
            return self._reply(step.text)
        if step.name not in offered:
            if _ESCAPE in offered:
                return self._call(Call(_ESCAPE, {}), messages)
            return self._reply(
                text("unavailable", lang)
            )  # pragma: no cover - decide() never offers one
        return self._call(step, messages)

    def _reply(self, content: str) -> ModelResponse:
        return ModelResponse(
            content=content, tool_calls=(), finish_reason="stop", usage=Usage(), model=self.name
        )

    def _call(self, step: Call | Batch, messages: Sequence[Message]) -> ModelResponse:
        first = _next_call_number(messages)
        steps = step.calls if isinstance(step, Batch) else (step,)
        calls = tuple(
            ToolCall(
                id=f"call_planner_{first + n}",
                name=one.name,
                arguments=one.arguments,
                raw_arguments=json.dumps(one.arguments, ensure_ascii=False),
            )
            for n, one in enumerate(steps)
        )
        return ModelResponse(
            content="",
            tool_calls=calls,
            finish_reason="tool_calls",
            usage=Usage(),
            model=self.name,
        )


def _next_call_number(messages: Sequence[Message]) -> int:
    """One more than the highest planner call number in the history, so ids never repeat."""
    highest = 0
    for message in messages:
        for call in message.tool_calls:
            if found := _CALL_ID.match(call.id):
                highest = max(highest, int(found.group(1)))
        if message.tool_call_id and (found := _CALL_ID.match(message.tool_call_id)):
            highest = max(highest, int(found.group(1)))
    return highest + 1
