"""The ReAct loop: model → tool calls → observations → … → a final answer, bounded by code.

Every turn ends: a step limit, a repeated-call detector, format repair, per-tool timeouts and
a turn deadline are enforced here, each with a stop reason and a message the user understands.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import structlog
from pydantic import ValidationError

from agent.catalogue import say
from agent.errors import ContextTooLong, ModelError
from agent.events import (
    FinalAnswer,
    ModelStep,
    Notice,
    ProposalReady,
    StepEvent,
    StopReason,
    ToolFinished,
    ToolStarted,
    TurnStarted,
)
from agent.i18n import detect_locale
from agent.llm.trim import trim_for_context
from agent.memory import ThreadBusy, ThreadMemory
from agent.messages import Message, ModelResponse, ToolCall
from agent.metrics import AGENT_TURNS, MODEL_CALL_SECONDS, TOOL_CALLS
from agent.model import ChatModel
from agent.planner import reads_as_correction
from agent.prompt import person_prompt, stable_prompt
from agent.refusals import refusal_step, refusal_text, refused_fields
from agent.tools import Observation, ProposalInfo, ToolContext, ToolRegistry, default_tools
from agent.tools.base import enum_errors, failed, field_errors
from agent.tools.choose import MORE_TOOLS, Offer, choose_tools, offered_specs
from agent.tools.drafts import carry_live_draft
from workflow.engine import Engine
from workflow.errors import WorkflowError
from workflow.transactions import Group

log = structlog.get_logger("agent")

# Argument fields that may hold personal data (medical reasons, notes): masked in logs and traces.
MASKED_ARGS = frozenset({"reason", "comment", "note", "description", "purpose", "fields"})


@dataclass(frozen=True)
class Limits:
    """The bounds of one turn."""

    max_steps: int = 8
    tool_timeout_s: float = 5.0
    turn_deadline_s: float = 60.0
    observation_chars: int = 4000
    format_repairs: int = 2


def masked(arguments: dict[str, Any]) -> dict[str, Any]:
    return {k: ("***" if k in MASKED_ARGS and v else v) for k, v in arguments.items()}


def _signature(call: ToolCall) -> str:
    return call.name + json.dumps(call.arguments, sort_keys=True, ensure_ascii=False, default=str)


_STOP_CODES = {
    StopReason.MAX_STEPS: "stop.max_steps",
    StopReason.REPEATED_CALL: "stop.repeated_call",
    StopReason.DEADLINE: "stop.deadline",
    StopReason.MODEL_ERROR: "stop.model_error",
    StopReason.EMPTY_REPLY: "stop.empty_reply",
    StopReason.BUSY: "stop.busy",
}


def _stop_text(reason: StopReason, locale: str) -> str:
    return say(_STOP_CODES[reason], locale)


def _closing_text(proposals: list[ProposalInfo], locale: str) -> str:
    """The answer of a turn that prepared cards: what each one holds.

    What to click is each card's own line ("Nothing happens until you click Withdraw"), which
    goes when the card is clicked: said here too, it would stay, untrue, above a settled card.
    """
    summaries = "\n".join(p.summary for p in proposals if p.summary)
    return summaries or say("propose.prepared", locale)


class Agent:
    """Runs turns: (thread, acting user, text) in, step events out."""

    def __init__(
        self,
        model: ChatModel,
        engine: Engine,
        memory: ThreadMemory,
        *,
        fallback: ChatModel | None = None,
        tools: ToolRegistry | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.model = model
        self.fallback = fallback
        self.engine = engine
        self.memory = memory
        self.tools = tools or default_tools()
        self.limits = limits or Limits()

    async def run(
        self,
        thread: str,
        actor_id: str,
        text: str,
        *,
        leased: bool = False,
        save_with: Callable[[], Sequence[Group]] | None = None,
    ) -> AsyncIterator[StepEvent]:
        """One turn of a thread, yielding step events; the last event is always a FinalAnswer.

        `leased`: the caller holds the thread's turn-queue lease (bot/queue), which already
        runs the thread's turns one at a time; the memory lock is then not taken.
        `save_with`: asked, once the final answer has been shown, for the caller's writes to
        send in the round trip that saves the turn to memory (the queue's "answered" record).
        """
        person = self.engine.person(actor_id)
        locale = detect_locale(text, default=person.locale)
        if leased:
            async for event in self._turn(thread, person.id, text, locale, save_with):
                yield event
            return
        try:
            async with self.memory.lock(thread):
                async for event in self._turn(thread, person.id, text, locale, save_with):
                    yield event
        except ThreadBusy:
            AGENT_TURNS.labels(StopReason.BUSY.value).inc()
            yield FinalAnswer(
                _stop_text(StopReason.BUSY, locale), StopReason.BUSY, 0, 0, 0, 0, 0.0, 0.0
            )

    async def _turn(
        self,
        thread: str,
        actor_id: str,
        text: str,
        locale: str,
        save_with: Callable[[], Sequence[Group]] | None = None,
    ) -> AsyncIterator[StepEvent]:
        engine, limits = self.engine, self.limits
        loop = asyncio.get_running_loop()
        started = loop.time()
        deadline = started + limits.turn_deadline_s
        person = engine.person(actor_id)
        today = engine.today_for(actor_id)
        history, drafts = await self.memory.load_with_drafts(thread)
        ctx = ToolContext(
            engine=engine,
            actor=person,
            today=today,
            locale=locale,
            thread_key=thread,
            drafts=drafts,
        )
        # A correction typed as a new message is about the person's live draft in this DM;
        # the answer and the new card come here, under the message just typed.
        if (
            not history
            and reads_as_correction(text)
            and (draft_thread := await carry_live_draft(ctx)) is not None
        ):
            history = await self.memory.load(draft_thread)
        user = Message(role="user", content=text)
        new: list[Message] = [user]
        # Two system messages: the organisation's rules (a prefix identical for everyone, which
        # prompt caches serve again), then who is speaking and today's date.
        system = [
            Message(role="system", content=stable_prompt(engine.config)),
            Message(role="system", content=person_prompt(engine.directory, person, today)),
        ]
        all_specs = self.tools.specs(engine.config)
        offer = choose_tools([*system, *history, user], today)
        specs = offered_specs(all_specs, offer)
        model = self.model
        trace: list[dict[str, Any]] = []
        totals = {"calls": 0, "prompt": 0, "completion": 0, "model_s": 0.0, "tool_s": 0.0}
        last_sig, repeats, repairs, trimmed = "", 0, 0, False

        def emit(event: StepEvent) -> StepEvent:
            if isinstance(event, ModelStep):
                MODEL_CALL_SECONDS.labels(event.model).observe(event.latency_ms / 1000)
            elif isinstance(event, ToolFinished):
                TOOL_CALLS.labels(event.tool, "ok" if event.ok else (event.error or "error")).inc()
            elif isinstance(event, FinalAnswer):
                AGENT_TURNS.labels(event.stop_reason.value).inc()
            data = event.to_dict()
            trace.append(data)
            hidden = ("event", "thread", "actor", "text", "summary", "thought", "fields")
            log.info(
                "agent_step",
                thread=thread,
                actor=actor_id,
                step_kind=data["event"],
                **{k: v for k, v in data.items() if k not in hidden},
            )
            return event

        def final(text_: str, reason: StopReason, steps: int) -> FinalAnswer:
            elapsed = loop.time() - started
            overhead = max(0.0, elapsed - totals["model_s"] - totals["tool_s"])
            return FinalAnswer(
                text_,
                reason,
                steps,
                totals["calls"],
                totals["prompt"],
                totals["completion"],
                round(elapsed * 1000, 2),
                round(overhead * 1000, 3),
            )

        yield emit(TurnStarted(thread, actor_id, model.name))
        answer: FinalAnswer | None = None
        step = 0
        while answer is None:
            if step >= limits.max_steps:
                answer = final(_stop_text(StopReason.MAX_STEPS, locale), StopReason.MAX_STEPS, step)
                break
            remaining = deadline - loop.time()
            if remaining <= 0:
                answer = final(_stop_text(StopReason.DEADLINE, locale), StopReason.DEADLINE, step)
                break
            step += 1
            messages = [*system, *history, *new]
            t0 = time.perf_counter()
            try:
                async with asyncio.timeout(remaining):
                    response: ModelResponse = await model.complete(messages, specs)
            except TimeoutError:
                answer = final(_stop_text(StopReason.DEADLINE, locale), StopReason.DEADLINE, step)
                break
            except ContextTooLong:
                totals["model_s"] += time.perf_counter() - t0
                if not trimmed:
                    history, trimmed = trim_for_context([*history]), True
                    step -= 1
                    continue
                if self.fallback is not None and model is not self.fallback:
                    model = self.fallback
                    yield emit(Notice(say("notice.too_long", locale)))
                    step -= 1
                    continue
                answer = final(
                    _stop_text(StopReason.MODEL_ERROR, locale), StopReason.MODEL_ERROR, step
                )
                break
            except ModelError as e:
                totals["model_s"] += time.perf_counter() - t0
                log.warning(
                    "model_failed", thread=thread, model=model.name, error=str(e), status=e.status
                )
                if self.fallback is not None and model is not self.fallback:
                    model = self.fallback
                    yield emit(Notice(say("notice.unreachable", locale)))
                    step -= 1
                    continue
                answer = final(
                    _stop_text(StopReason.MODEL_ERROR, locale), StopReason.MODEL_ERROR, step
                )
                break
            model_s = time.perf_counter() - t0
            totals["model_s"] += model_s
            totals["calls"] += 1
            totals["prompt"] += response.usage.prompt_tokens
            totals["completion"] += response.usage.completion_tokens
            thought = response.content.strip() if response.tool_calls else None
            # The escape: a call of more_tools, or of a tool this turn was not offered, widens
            # the offer to every tool; for more_tools the model is simply asked again.
            asked_more = any(c.name == MORE_TOOLS for c in response.tool_calls)
            widen = not offer.full and any(
                c.name == MORE_TOOLS or (c.name not in offer.names and self.tools.get(c.name))
                for c in response.tool_calls
            )
            yield emit(
                ModelStep(
                    step,
                    model.name,
                    thought or None,
                    len(response.tool_calls),
                    response.usage.prompt_tokens,
                    response.usage.completion_tokens,
                    round(model_s * 1000, 2),
                    len(specs),
                    widen,
                )
            )
            if widen:
                log.info(
                    "tools_widened",
                    thread=thread,
                    intent=offer.intent,
                    asked=[c.name for c in response.tool_calls],
                )
                offer, specs = Offer(frozenset(self.tools.names), full=True), all_specs
                if asked_more:
                    continue

            if not response.tool_calls:
                content = response.content.strip()
                if content:
                    new.append(Message(role="assistant", content=content))
                    answer = final(content, StopReason.FINAL, step)
                    break
                if repairs >= limits.format_repairs:
                    answer = final(
                        _stop_text(StopReason.EMPTY_REPLY, locale), StopReason.EMPTY_REPLY, step
                    )
                    break
                repairs += 1
                new.append(
                    Message(
                        role="user",
                        content="(Your reply was empty. Answer the user, or call one of the tools.)",
                    )
                )
                continue

            new.append(response.to_message())
            stop, stop_reason = False, StopReason.REPEATED_CALL
            proposals: list[ProposalInfo | None] = []
            for call in response.tool_calls:
                if not call.name:  # a text-ReAct reply in the wrong format: repair, not a repeat
                    proposals.append(None)
                    repairs += 1
                    if repairs > limits.format_repairs:
                        stop = True
                        stop_reason = StopReason.EMPTY_REPLY
                    new.append(
                        Message.tool_result(
                            call,
                            failed("invalid_format", call.error or "Invalid format.").to_json(),
                        )
                    )
                    continue
                sig = _signature(call)
                repeats = repeats + 1 if sig == last_sig else 1
                last_sig = sig
                tool = self.tools.get(call.name)
                title = tool.title(_safe_args(tool, call), locale) if tool else call.name
                yield emit(ToolStarted(step, call.id, call.name, title, masked(call.arguments)))
                t1 = time.perf_counter()
                if repeats >= 3:
                    stop, stop_reason = True, StopReason.REPEATED_CALL
                    obs = failed(
                        "repeated_call", "Stopped: the same call was made three times in a row."
                    )
                elif repeats == 2:
                    obs = failed(
                        "repeated_call",
                        f"You already called {call.name} with exactly these arguments; its result is above. Use it to answer the user, or change the arguments.",
                    )
                else:
                    obs = await self._run_tool(call, ctx)
                tool_s = time.perf_counter() - t1
                totals["tool_s"] += tool_s
                yield emit(
                    ToolFinished(
                        step,
                        call.id,
                        call.name,
                        title,
                        obs.ok,
                        obs.summary,
                        round(tool_s * 1000, 2),
                        None if obs.ok else str(obs.data.get("error")),
                    )
                )
                if obs.proposal is not None:
                    p = obs.proposal
                    yield emit(
                        ProposalReady(
                            p.pending_id,
                            p.kind,
                            p.request_id,
                            p.confirm_by,
                            p.summary,
                            p.fields,
                            p.replaces,
                            p.actor,
                        )
                    )
                new.append(Message.tool_result(call, self._clip(obs.to_json())))
                proposals.append(obs.proposal if obs.ok else None)
            if stop:
                answer = final(_stop_text(stop_reason, locale), stop_reason, step)
            elif proposals and all(proposals):
                # Every call prepared a card: the card and a fixed sentence say all there is
                # to say, so the turn ends without asking the model to repeat it.
                closing = _closing_text([p for p in proposals if p], locale)
                new.append(Message(role="assistant", content=closing))
                answer = final(closing, StopReason.FINAL, step)

        if answer.stop_reason is not StopReason.FINAL:
            new.append(Message(role="assistant", content=answer.text))
        yield emit(answer)
        await self.memory.save(thread, new, trace, *(save_with() if save_with else ()))

    def _clip(self, content: str) -> str:
        budget = self.limits.observation_chars
        if len(content) <= budget:
            return content
        return (
            content[:budget]
            + f"… [truncated: the result had {len(content)} characters; ask for less if you need the rest]"
        )

    async def _run_tool(self, call: ToolCall, ctx: ToolContext) -> Observation:
        """Run one tool call; every failure becomes an observation the model can act on."""
        if call.error:
            return failed("invalid_arguments", call.error)
        tool = self.tools.get(call.name)
        if tool is None:
            return failed(
                "unknown_tool",
                f"There is no tool {call.name!r}. The tools are: {', '.join(self.tools.names)}.",
            )
        spec = self.tools.spec(call.name, ctx.engine.config)
        errors = enum_errors(spec, call.arguments) if spec else {}
        try:
            args = tool.parse(call.arguments)
        except ValidationError as e:
            errors = {**field_errors(e), **errors}
        if errors:
            return failed(
                "invalid_arguments",
                "Some arguments are wrong; fix them and try again.",
                field_errors=errors,
            )
        try:
            async with asyncio.timeout(self.limits.tool_timeout_s):
                return await tool.handler(ctx, args)
        except TimeoutError:
            return failed(
                "timeout",
                f"{call.name} took longer than {self.limits.tool_timeout_s:g} s and was stopped; tell the user to try again shortly.",
            )
        except WorkflowError as e:
            fields = refused_fields(e, ctx.locale)
            extra = {"field_errors": fields} if fields else {}
            # the step line says what happened in a few words; the message is the one sentence
            # the answer gives (dates a person reads, no ids: the model can look those up)
            return failed(
                e.code,
                refusal_text(e, ctx.locale),
                summary=refusal_step(e, ctx.locale),
                **extra,
            )


def _safe_args(tool, call: ToolCall):
    """Arguments for a step title; the raw dict's values when they do not validate."""
    try:
        return tool.parse(call.arguments)
    except ValidationError:
        return _Loose(call.arguments)


class _Loose:
    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getattr__(self, name: str) -> Any:
        return self._data.get(name, "?")
