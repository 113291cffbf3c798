"""The surfaces the contract suite drives with the same scenarios: Slack, Feishu and the terminal chat.

Slack runs over signed HTTP against the Web API stand-in, Feishu over encrypted, signed
callbacks against its open-API stand-in, the terminal through `ChatSession`. Each driver
speaks, clicks and reads as a person would, and reports what that person sees: every card
(its words and the buttons still live on it) and the answers to their clicks.
"""

from __future__ import annotations

import copy
import io
import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent.events import ProposalReady
from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.model import ChatModel
from agent.planner import OfflinePlanner
from bot.chat import ChatSession
from bot.feishu import cards as feishu_cards
from bot.runtime import Runtime
from bot.settings import Settings
from tests.contract.checks import words
from tests.feishu import harness as feishu_harness
from tests.slack import harness as slack_harness
from workflow.engine import Engine

CONFIRM, CANCEL, APPROVE, REJECT = "confirm", "cancel", "approve", "reject"
_SLACK_ACTIONS = {
    "pending_confirm": CONFIRM,
    "pending_cancel": CANCEL,
    "request_approve": APPROVE,
    "request_reject": REJECT,
}
_FEISHU_ACTIONS = {
    feishu_cards.PENDING_CONFIRM: CONFIRM,
    feishu_cards.PENDING_CANCEL: CANCEL,
    feishu_cards.REQUEST_APPROVE: APPROVE,
    feishu_cards.REQUEST_REJECT: REJECT,
}


@dataclass
class Seen:
    """One card as its reader sees it: its words and its live buttons (and a copy to click later)."""

    text: str
    actions: set[str]
    handle: Any = None  # the platform's own record of the card, as it was when seen
    thread: str | None = None
    about: str | None = None  # the request its approve/reject buttons are for


def _strings(node: Any) -> list[str]:
    """Every human-readable string in Block Kit or Feishu card JSON (button values left out)."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [s for item in node for s in _strings(item)]
    if isinstance(node, dict):
        return [
            s
            for k, v in node.items()
            if k not in ("value", "action_id", "block_id")
            for s in _strings(v)
        ]
    return []


class Surface(Protocol):
    name: str
    engine: Engine

    async def say(self, person: str, text: str, thread: str | None = None) -> str: ...
    async def settle(self) -> None: ...
    def cards(self, person: str) -> list[Seen]: ...
    def transcript(self, person: str) -> str: ...
    def messages(self, person: str) -> list[str]: ...
    async def click(self, person: str, card: Seen, action: str, reason: str = "") -> str: ...
    async def close(self) -> None: ...


def live(cards: list[Seen], action: str, thread: str | None = None) -> list[Seen]:
    """The cards with a live `action` button (in one thread, if given)."""
    return [c for c in cards if action in c.actions and (thread is None or c.thread == thread)]


# --- Slack --------------------------------------------------------------------------------------


class SlackSurface:
    name = "slack"

    def __init__(self, h: slack_harness.SlackHarness) -> None:
        self.h = h
        self.engine = h.engine

    def _user(self, person: str) -> str:
        return self.engine.person(person).slack_user_id or ""

    async def say(self, person: str, text: str, thread: str | None = None) -> str:
        resp, envelope = await self.h.dm(self._user(person), text, thread)
        assert resp.status == 200
        await self.settle()
        return thread or envelope["event"]["ts"]

    async def settle(self) -> None:
        await self.h.settle()
        await self.h.bot.tasks.idle()

    def _messages(self, person: str) -> list[dict[str, Any]]:
        out = []
        for m in self.h.dm_messages(self._user(person)):
            out += [m, *m.get("replies", [])]
        return [m for m in out if m.get("bot_id")]

    def cards(self, person: str) -> list[Seen]:
        seen = []
        for m in self._messages(person):
            if not m.get("blocks"):
                continue
            actions = {
                _SLACK_ACTIONS[e["action_id"]]
                for b in m["blocks"]
                if b.get("type") == "actions"
                for e in b.get("elements", [])
                if e.get("action_id") in _SLACK_ACTIONS
            }
            text = "\n".join(_strings(m["blocks"]))
            about = next(
                (
                    e["value"].rpartition(":")[0]
                    for b in m["blocks"]
                    if b.get("type") == "actions"
                    for e in b.get("elements", [])
                    if e.get("action_id") == "request_approve"
                ),
                None,
            )
            seen.append(Seen(text, actions, copy.deepcopy(m), m.get("thread_ts"), about))
        return seen

    def transcript(self, person: str) -> str:
        parts = []
        for m in self._messages(person):
            parts.append(m.get("text") or "")
            parts += _strings(m.get("blocks") or [])
            parts.append((m.get("stream") or {}).get("markdown_text") or "")
        parts += [
            e.get("text") or "" for e in self.h.standin.workspace.ephemerals(self._user(person))
        ]
        return "\n".join(parts)

    def messages(self, person: str) -> list[str]:
        """Each message the person reads, as they read it: a card's words, a text, a stream.

        A stream is read as its steps (each title and its line) and then its answer.
        """
        out = []
        for m in self._messages(person):
            if m.get("blocks"):
                out.append("\n".join(words(m["blocks"])))
            elif stream := m.get("stream"):
                steps = [
                    s for t in stream.get("tasks", []) for s in (t.get("title"), t.get("output"))
                ]
                out.append("\n".join(s for s in (*steps, stream.get("markdown_text")) if s))
            else:
                out.append(m.get("text") or "")
        out += [
            e.get("text") or "" for e in self.h.standin.workspace.ephemerals(self._user(person))
        ]
        return [m for m in out if m]

    async def click(self, person: str, card: Seen, action: str, reason: str = "") -> str:
        user = self._user(person)
        action_id = {v: k for k, v in _SLACK_ACTIONS.items()}[action]
        before = len(self.h.standin.workspace.ephemerals(user))
        views = len(self.h.standin.calls("views.open"))
        resp = await self.h.click(user, card.handle, action_id)
        assert resp.status == 200
        await self.settle()
        if action == REJECT:
            opened = self.h.standin.calls("views.open")
            if len(opened) > views:
                view = opened[-1]["view"]
                value = {"reason": {"reason": {"type": "plain_text_input", "value": reason}}}
                resp = await self.h.submit_view(user, view, value)
                assert resp.status == 200
                body = await resp.text()
                await self.settle()
                if body and "errors" in body:
                    return json.loads(body)["errors"]["reason"]
        said = self.h.standin.workspace.ephemerals(user)[before:]
        if said:
            return "\n".join(e.get("text") or "" for e in said)
        now = self.h.standin.workspace.message(card.handle["channel"], card.handle["ts"])
        return "\n".join(_strings(now.get("blocks") or []))

    async def close(self) -> None:
        await slack_harness.stop_harness(self.h)


# --- Feishu -------------------------------------------------------------------------------------


class FeishuSurface:
    name = "feishu"

    def __init__(self, h: feishu_harness.FeishuHarness) -> None:
        self.h = h
        self.engine = h.engine
        self._toasts: dict[str, list[str]] = {}

    def _open_id(self, person: str) -> str:
        return self.engine.person(person).feishu_open_id or ""

    async def say(self, person: str, text: str, thread: str | None = None) -> str:
        resp, envelope = await self.h.sim.message(self._open_id(person), text, thread)
        assert resp.status == 200
        await self.settle()
        return thread or envelope["event"]["message"]["message_id"]

    async def settle(self) -> None:
        await self.h.settle()

    def cards(self, person: str) -> list[Seen]:
        seen = []
        for m in self.h.chat(self._open_id(person)):
            if m.sender_type != "app" or not m.card:
                continue
            actions = {
                _FEISHU_ACTIONS[(b.get("value") or {}).get("action")]
                for b in feishu_cards.buttons_of(m.card)
                if (b.get("value") or {}).get("action") in _FEISHU_ACTIONS
            }
            text = "\n".join(_strings(m.card))
            about = next(
                (
                    str(b["value"].get("request_id"))
                    for b in feishu_cards.buttons_of(m.card)
                    if (b.get("value") or {}).get("action") == feishu_cards.REQUEST_APPROVE
                ),
                None,
            )
            handle = (m.message_id, copy.deepcopy(m.card))
            seen.append(Seen(text, actions, handle, m.root_id, about))
        return seen

    def transcript(self, person: str) -> str:
        parts = []
        for m in self.h.chat(self._open_id(person)):
            if m.sender_type == "app":
                parts += _strings(m.card) if m.card else [m.text]
        return "\n".join(parts + self._toasts.get(person, []))

    def messages(self, person: str) -> list[str]:
        """Each message the person reads: a card's words, a text, the toasts their clicks got."""
        out = [
            "\n".join(words(m.card)) if m.card else m.text
            for m in self.h.chat(self._open_id(person))
            if m.sender_type == "app"
        ]
        return [m for m in out + self._toasts.get(person, []) if m]

    async def click(self, person: str, card: Seen, action: str, reason: str = "") -> str:
        open_id = self._open_id(person)
        message_id, as_seen = card.handle
        self.h.standin.apply_card(message_id, as_seen)  # the card as the person saw it
        name = {v: k for k, v in _FEISHU_ACTIONS.items()}[action]
        resp, answer = await self.h.sim.click(open_id, message_id, name)
        assert resp.status == 200, await resp.text()
        if action == REJECT and answer.get("card"):
            resp, answer = await self.h.sim.click(
                open_id,
                message_id,
                feishu_cards.REQUEST_REJECT_SUBMIT,
                form_value={feishu_cards.REASON_INPUT: reason},
            )
            assert resp.status == 200, await resp.text()
        await self.settle()
        toast = (answer.get("toast") or {}).get("content", "")
        self._toasts.setdefault(person, []).append(toast)
        return toast

    async def close(self) -> None:
        await feishu_harness.stop_harness(self.h)


# --- the terminal -------------------------------------------------------------------------------


@dataclass
class _Person:
    session: ChatSession
    out: io.StringIO
    answers: deque[str] = field(default_factory=deque)
    typed: list[str] = field(default_factory=list)  # the answers they gave, echoed in the output
    threads: dict[str, ChatSession] = field(default_factory=dict)


class TerminalSurface:
    """`approvals-bot chat`: the confirm card is a [y/N] prompt; the approver uses /pending."""

    name = "terminal"

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.engine = runtime.engine
        self.people: dict[str, _Person] = {}
        self.proposals: dict[str, list[tuple[ChatSession, ProposalReady]]] = {}

    def _person(self, person: str) -> _Person:
        if person not in self.people:
            out, answers = io.StringIO(), deque()
            session = ChatSession(
                self.runtime, person, read=lambda: answers.popleft() if answers else None, out=out
            )
            self.people[person] = _Person(session, out, answers)
        return self.people[person]

    async def say(self, person: str, text: str, thread: str | None = None) -> str:
        me = self._person(person)
        session = me.threads.get(thread or "")
        if session is None:
            session = ChatSession(self.runtime, person, read=me.session.read, out=me.out)
        session.say(f"{person}> {text}")
        # the prompt for each card is asked when the person clicks (`click`), not at once
        for event in await session.run_turn(text):
            mine = self.proposals.setdefault(person, [])
            if event.replaces:  # as `ChatSession.message` does: the old card is not asked
                mine[:] = [x for x in mine if x[1].pending_id != event.replaces]
            mine.append((session, event))
        me.threads[session.thread] = session
        return session.thread

    async def settle(self) -> None:
        return None

    def cards(self, person: str) -> list[Seen]:
        return [
            Seen(p.summary, {CONFIRM, CANCEL}, (session, p), session.thread)
            for session, p in self.proposals.get(person, [])
        ]

    def transcript(self, person: str) -> str:
        return self._person(person).out.getvalue()

    def messages(self, person: str) -> list[str]:
        """Each line the bot printed for the person (their own lines and answers left out)."""
        me = self._person(person)
        lines = [line.removeprefix("bot> ") for line in me.out.getvalue().splitlines()]
        return [
            line
            for line in lines
            if line.strip() and not line.startswith(f"{person}> ") and line not in me.typed
        ]

    async def click(self, person: str, card: Seen, action: str, reason: str = "") -> str:
        me = self._person(person)
        mark = len(me.out.getvalue())
        if action in (CONFIRM, CANCEL):
            session, proposal = card.handle
            me.answers.append("y" if action == CONFIRM else "n")
            me.typed.append(me.answers[-1])
            await session.confirm_card(proposal)
            self.proposals[person] = [x for x in self.proposals[person] if x[1] is not proposal]
        else:
            request_id = card.handle
            for req in (await self.engine.my_approvals(person)).requests:
                if req.id != request_id:
                    me.answers.append("s")
                elif action == APPROVE:
                    me.answers.append("a")
                else:
                    me.answers.extend(["r", reason])
            me.typed += me.answers
            await me.session.handle("/pending")
        return me.out.getvalue()[mark:]

    def approver_card(self, request_id: str) -> Seen:
        """The terminal has no approver card: /pending lists the request to decide."""
        return Seen(request_id, {APPROVE, REJECT}, request_id, None, request_id)

    async def close(self) -> None:
        await self.runtime.redis.aclose()


async def open_surface(
    name: str, engine: Engine, redis: Any, model: ChatModel | None = None
) -> Surface:
    if name == "slack":
        return SlackSurface(await slack_harness.start_harness(engine, redis, model))
    if name == "feishu":
        h = await feishu_harness.start_harness(
            engine, redis, encrypt_key=feishu_harness.ENCRYPT_KEY, model=model
        )
        return FeishuSurface(h)
    memory = ThreadMemory(redis)
    agent = Agent(model or OfflinePlanner(), engine, memory, fallback=OfflinePlanner())
    return TerminalSurface(Runtime(Settings(), redis, engine, memory, agent, agent.model))
