"""Checks on what a conversation did: the proposals made, the tools called, the engine's state.

Never on the wording of a reply. Each check returns the reasons it failed (none when it
holds). Turn checks look at one turn (right after it, before its clicks); end checks look at
the engine after the whole conversation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.events import ProposalReady, StopReason
from bot.eval.record import ScenarioRun, TurnRecord, diff_keys
from workflow.models import Request
from workflow.store import hmget_record, versioned

# --- matching the fields of a proposal or a request ------------------------------------------------


@dataclass(frozen=True)
class Contains:
    """The value, as text, contains this (case-insensitive)."""

    text: str

    def matches(self, value: Any) -> bool:
        return value is not None and self.text.lower() in str(value).lower()

    def __repr__(self) -> str:
        return f"contains {self.text!r}"


@dataclass(frozen=True)
class OneOf:
    """The value equals one of these."""

    values: tuple[Any, ...]

    def matches(self, value: Any) -> bool:
        return any(_equal(value, v) for v in self.values)

    def __repr__(self) -> str:
        return "one of " + ", ".join(map(repr, self.values))


def contains(text: str) -> Contains:
    return Contains(text)


def one_of(*values: Any) -> OneOf:
    return OneOf(values)


def _equal(value: Any, expected: Any) -> bool:
    if isinstance(expected, Contains | OneOf):
        return expected.matches(value)
    if isinstance(expected, bool) or isinstance(value, bool):
        return bool(value) is expected if isinstance(expected, bool) else value == expected
    if isinstance(expected, int | float) and isinstance(value, int | float | str):
        try:
            return abs(float(value) - float(expected)) < 1e-9
        except ValueError:
            return False
    if isinstance(expected, list | tuple) and isinstance(value, list | tuple):
        return len(value) == len(expected) and all(
            _equal(a, b) for a, b in zip(value, expected, strict=True)
        )
    return value == expected


def mismatches(actual: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    """`key: got X, want Y` for each expected key the actual mapping does not match."""
    wrong = []
    for key, want in expected.items():
        got = actual.get(key)
        if not _equal(got, want):
            wrong.append(f"{key}: got {got!r}, want {want!r}")
    return wrong


def _proposal_view(p: ProposalReady, run: ScenarioRun) -> dict[str, Any]:
    """A proposal's fields plus its action and, for setup requests, their label."""
    label = next((k for k, v in run.labels.items() if v == p.request_id), p.request_id)
    return {**p.fields, "action": p.action, "request": label}


def _short(view: Mapping[str, Any]) -> str:
    keep = (
        "action",
        "request",
        "process",
        "leave_type",
        "start",
        "end",
        "working_days",
        "approver",
        "decision",
        "amount",
        "currency",
    )
    return "{" + ", ".join(f"{k}={view[k]!r}" for k in keep if view.get(k) is not None) + "}"


# --- the checks --------------------------------------------------------------------------------------


class Check:
    """A condition on a turn or on the end state; `describe` is how the report names it."""

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


def _need_turn(turn: TurnRecord | None, what: str) -> TurnRecord:
    if turn is None:
        raise ValueError(f"{what} is a turn check; put it in a Turn's expect")
    return turn


@dataclass(frozen=True)
class Proposes(Check):
    """Exactly one proposal still awaiting its click was made in the turn, with these fields.

    Keys are the proposal's fields (leave_type, start, end, working_days, reason, approver,
    approvers, amount, decision, comment, …), `action` (submit, decide, withdraw, remind,
    delegate) and `request` (the label of a setup request). A draft the model corrected in
    the same turn (cancelled by its replacement) does not count.
    """

    expected: Mapping[str, Any]

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        turn = _need_turn(turn, "Proposes")
        open_ = [p for p in turn.proposals if await run.is_open(p.pending_id)]
        if len(open_) != 1:
            shown = ", ".join(_short(_proposal_view(p, run)) for p in open_) or "none"
            return [f"expected exactly one proposal, got {len(open_)}: {shown}"]
        wrong = mismatches(_proposal_view(open_[0], run), self.expected)
        return [f"proposal {w}" for w in wrong]

    def describe(self) -> str:
        return "one proposal " + _short(self.expected)


@dataclass(frozen=True)
class NoProposal(Check):
    """No card was produced in the turn."""

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        turn = _need_turn(turn, "NoProposal")
        if turn.proposals:
            shown = ", ".join(_short(_proposal_view(p, run)) for p in turn.proposals)
            return [f"expected no proposal, got {len(turn.proposals)}: {shown}"]
        return []

    def describe(self) -> str:
        return "no proposal"


@dataclass(frozen=True)
class NoProposalWhere(Check):
    """No proposal of the turn matches these fields (e.g. an approver the chain does not name)."""

    expected: Mapping[str, Any]

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        turn = _need_turn(turn, "NoProposalWhere")
        bad = [p for p in turn.proposals if not mismatches(_proposal_view(p, run), self.expected)]
        return [f"unwanted proposal {_short(_proposal_view(p, run))}" for p in bad]

    def describe(self) -> str:
        return "no proposal " + _short(self.expected)


@dataclass(frozen=True)
class NoToolCall(Check):
    """The turn was answered without calling any tool (small talk looks nobody up)."""

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        turn = _need_turn(turn, "NoToolCall")
        names = [t.tool for t in turn.tools_started]
        return [f"expected no tool call, got {', '.join(names)}"] if names else []

    def describe(self) -> str:
        return "no tool call"


@dataclass(frozen=True)
class Called(Check):
    """At least one of these tools was called in the turn (and answered ok, unless ok=False)."""

    tools: tuple[str, ...]
    ok: bool = True

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        turn = _need_turn(turn, "Called")
        done = [t for t in turn.tools_finished if t.tool in self.tools and (t.ok or not self.ok)]
        if done:
            return []
        got = ", ".join(f"{t.tool}({'ok' if t.ok else t.error})" for t in turn.tools_finished)
        return [f"expected a call of {' or '.join(self.tools)}, got {got or 'no tool call'}"]

    def describe(self) -> str:
        return ("answered from " if self.ok else "consulted ") + " or ".join(self.tools)


@dataclass(frozen=True)
class NotCalled(Check):
    """None of these tools was called in the turn."""

    tools: tuple[str, ...]

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        turn = _need_turn(turn, "NotCalled")
        bad = [t.tool for t in turn.tools_started if t.tool in self.tools]
        return [f"unwanted call of {', '.join(bad)}"] if bad else []

    def describe(self) -> str:
        return "never calls " + ", ".join(self.tools)


@dataclass(frozen=True)
class EndedNormally(Check):
    """The turn ended with the model's own answer, not a step limit, deadline or error."""

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        turn = _need_turn(turn, "EndedNormally")
        final = turn.final
        if final is None:
            return ["the turn yielded no final answer"]
        if final.stop_reason is not StopReason.FINAL:
            return [f"the turn stopped: {final.stop_reason.value}"]
        return []

    def describe(self) -> str:
        return "ends with an answer"


@dataclass(frozen=True)
class NoStateChange(Check):
    """Nothing was submitted, decided, withdrawn, reminded or delegated.

    As a turn check: by that turn. As an end check: by the whole conversation, clicks included.
    """

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        before = turn.before if turn is not None else run.before
        after = await run.snapshot()
        changed = diff_keys(before, after, run.engine.keys.tag)
        return [f"state changed: {', '.join(changed)}"] if changed else []

    def describe(self) -> str:
        return "no state change"


@dataclass(frozen=True)
class Requests(Check):
    """`person` has exactly `count` submitted requests, each matching `expected`.

    Keys: status, process, the request's fields (leave_type, start, end, reason, amount, …),
    working_days, assignee (who holds the open step, a directory id) and approvers (ids).
    """

    person: str
    count: int
    expected: Mapping[str, Any] = field(default_factory=dict)

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        requests = await run.engine.my_requests(self.person, limit=100)
        if len(requests) != self.count:
            shown = ", ".join(f"{r.id} {r.process} {r.status.value}" for r in requests) or "none"
            return [
                f"{self.person}: expected {self.count} request(s), got {len(requests)}: {shown}"
            ]
        out = []
        for r in requests:
            out += [f"{r.id}: {w}" for w in mismatches(_request_view(r), self.expected)]
        return out

    def describe(self) -> str:
        extra = f" {dict(self.expected)}" if self.expected else ""
        return f"{self.person} has {self.count} request(s){extra}"


@dataclass(frozen=True)
class RequestIs(Check):
    """The setup request `label` matches `expected` (status, assignee, decided_by, …)."""

    label: str
    expected: Mapping[str, Any]

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        request_id = run.labels[self.label]
        [raw] = await run.engine.store.read(hmget_record(run.engine.keys.request(request_id)))
        req = versioned(Request, raw)
        assert req is not None, f"{self.label}: request {request_id} is gone"
        return [f"{self.label}: {w}" for w in mismatches(_request_view(req), self.expected)]

    def describe(self) -> str:
        return f"{self.label} {dict(self.expected)}"


def _request_view(r: Request) -> dict[str, Any]:
    step = r.open_step()
    decided = [s.decided_by for s in r.steps if s.decided_by]
    return {
        **r.fields,
        "status": r.status.value,
        "process": r.process,
        "working_days": r.derived.get("working_days"),
        "assignee": step.assignee if step else None,
        "approvers": [s.approver for s in r.steps],
        "decided_by": decided[-1] if decided else None,
        "reminded": r.last_reminded_at is not None,
    }


@dataclass(frozen=True)
class OutboxCount(Check):
    """Exactly `count` outbox events of `event_type` (for the setup request `label`, if given)."""

    event_type: str
    count: int
    label: str | None = None

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        entries = await run.engine.store.redis.xrange(run.engine.keys.outbox)
        want_id = run.labels.get(self.label) if self.label else None
        n = sum(
            1
            for _, f in entries
            if f.get("type") == self.event_type
            and (want_id is None or f.get("request_id") == want_id)
        )
        return (
            [] if n == self.count else [f"{self.event_type}: got {n} event(s), want {self.count}"]
        )

    def describe(self) -> str:
        on = f" for {self.label}" if self.label else ""
        return f"{self.count} × {self.event_type}{on}"


@dataclass(frozen=True)
class Delegations(Check):
    """Exactly `count` delegations exist, the last one (if any) matching `expected`."""

    count: int
    expected: Mapping[str, Any] = field(default_factory=dict)

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        found = await run.engine.delegations()
        if len(found) != self.count:
            return [f"expected {self.count} delegation(s), got {len(found)}"]
        if not found or not self.expected:
            return []
        d = found[-1].model_dump(mode="json")
        return [f"delegation {w}" for w in mismatches(d, self.expected)]

    def describe(self) -> str:
        return f"{self.count} delegation(s)"


@dataclass(frozen=True)
class NoLeak(Check):
    """No tool result the model saw, and no reply, carries this text (another person's data)."""

    text: str

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        seen = [
            m.content
            for m in await run.memory.load(run.thread)
            if m.role in ("tool", "assistant") and m.content
        ]
        seen += [t.final.text for t in run.turns if t.final is not None]
        if any(self.text.lower() in s.lower() for s in seen):
            return [f"leaked {self.text!r}"]
        return []

    def describe(self) -> str:
        return f"never shows {self.text!r}"


@dataclass(frozen=True)
class ProposesEach(Check):
    """The turn left exactly these proposals awaiting their clicks, in this order ("two single days")."""

    expected: tuple[Mapping[str, Any], ...]

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        turn = _need_turn(turn, "ProposesEach")
        open_ = [p for p in turn.proposals if await run.is_open(p.pending_id)]
        if len(open_) != len(self.expected):
            shown = ", ".join(_short(_proposal_view(p, run)) for p in open_) or "none"
            return [f"expected {len(self.expected)} proposals, got {len(open_)}: {shown}"]
        out = []
        for n, (p, want) in enumerate(zip(open_, self.expected, strict=True), 1):
            out += [f"proposal {n} {w}" for w in mismatches(_proposal_view(p, run), want)]
        return out

    def describe(self) -> str:
        return "proposals " + ", ".join(_short(e) for e in self.expected)


@dataclass(frozen=True)
class EarlierDraftsClosed(Check):
    """No card of an earlier turn still awaits a click: a corrected draft superseded the old one."""

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        turn = _need_turn(turn, "EarlierDraftsClosed")
        earlier = [t for t in run.turns if t is not turn]
        still = [p for t in earlier for p in t.proposals if await run.is_open(p.pending_id)]
        shown = ", ".join(_short(_proposal_view(p, run)) for p in still)
        return [f"earlier card still open: {shown}"] if still else []

    def describe(self) -> str:
        return "earlier drafts superseded"


# The small-talk line ("Sounds good — enjoy!") reads as agreement: it must never answer work.
CONSENT_LINES = ("sounds good", "enjoy!", "听起来不错", "祝你愉快")


@dataclass(frozen=True)
class NoConsent(Check):
    """The reply does not read as agreement: none of the small-talk lines answers this message.

    The one check on wording, and only on these few phrases: answering "Register me as HR"
    or a request for leave with "Sounds good — enjoy!" is the failure being guarded.
    """

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        turn = _need_turn(turn, "NoConsent")
        reply = (turn.final.text if turn.final else "").lower()
        said = [line for line in CONSENT_LINES if line in reply]
        return [f"the reply reads as agreement ({said[0]!r})"] if said else []

    def describe(self) -> str:
        return "no small-talk consent"


def reply_language(text: str) -> str:
    """zh when Chinese characters carry the reply, else en (names and ids aside)."""
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    latin = sum(1 for ch in text if ch.isascii() and ch.isalpha())
    return "zh" if cjk and cjk * 3 >= latin else "en"


@dataclass(frozen=True)
class RepliesIn(Check):
    """The turn's final reply is in this language."""

    lang: str

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        turn = _need_turn(turn, "RepliesIn")
        reply = turn.final.text if turn.final else ""
        got = reply_language(reply)
        return [] if got == self.lang else [f"replied in {got}, want {self.lang}: {reply[:80]!r}"]

    def describe(self) -> str:
        return f"replies in {self.lang}"


@dataclass(frozen=True)
class Names(Check):
    """The reply names one of these (who can do it instead, the types that exist)."""

    options: tuple[str, ...]

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        turn = _need_turn(turn, "Names")
        reply = (turn.final.text if turn.final else "").lower()
        if any(o.lower() in reply for o in self.options):
            return []
        return [f"the reply names none of {', '.join(self.options)}: {reply[:80]!r}"]

    def describe(self) -> str:
        return "names " + " or ".join(self.options)


# A refusal says so: "I can't help with that one", "这个我帮不上忙". The second check on wording,
# and again only on these few markers: a greeting or a question about one's own requests
# answered with a refusal is the failure being guarded (and an out-of-scope ask answered
# without one).
REFUSAL_MARKERS = (
    "can't",
    "cannot",
    "can not",
    "unable to",
    "not able to",
    "帮不上",
    "做不了",
    "无法",
    "不能",
    "不支持",
)


def _refuses(text: str) -> bool:
    lowered = text.lower().replace("\u2019", "'")
    return any(marker in lowered for marker in REFUSAL_MARKERS)


@dataclass(frozen=True)
class TurnsAway(Check):
    """The reply says plainly that the bot cannot do this (or, with `want=False`, does not)."""

    want: bool = True

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        turn = _need_turn(turn, "TurnsAway")
        reply = turn.final.text if turn.final else ""
        if _refuses(reply) == self.want:
            return []
        said = "does not say it cannot" if self.want else "turns the person away"
        return [f"the reply {said}: {reply[:80]!r}"]

    def describe(self) -> str:
        return "says it cannot" if self.want else "does not turn the person away"


@dataclass(frozen=True)
class LooksUpWhoIsOut(Check):
    """who_is_out answered for these days (resolved as the tool resolves its words) and scope.

    `start` and `end` are ISO dates or `one_of(...)` them; `scope` is checked only when given
    ("team" when the call leaves it out).
    """

    start: Any
    end: Any
    scope: str | None = None

    async def failures(self, run: ScenarioRun, turn: TurnRecord | None) -> list[str]:
        from agent.dates import DateParseError, resolve_date

        turn = _need_turn(turn, "LooksUpWhoIsOut")
        answered = {t.call_id for t in turn.tools_finished if t.tool == "who_is_out" and t.ok}
        calls = [t.arguments for t in turn.tools_started if t.call_id in answered]
        if not calls:
            got = ", ".join(t.tool for t in turn.tools_finished) or "no tool call"
            return [f"expected an answered call of who_is_out, got {got}"]
        today = run.engine.clock.now().date()

        def day(value: Any) -> Any:
            try:
                return resolve_date(str(value), today).isoformat()
            except DateParseError:
                return value

        seen = []
        for args in calls:
            start = day(args.get("start"))
            end = day(args.get("end")) if args.get("end") else start
            view = {"start": start, "end": end, "scope": args.get("scope") or "team"}
            expected = {"start": self.start, "end": self.end}
            if self.scope is not None:
                expected["scope"] = self.scope
            if not mismatches(view, expected):
                return []
            seen.append(f"{start}..{end} {view['scope']}")
        return [f"who_is_out asked for {', '.join(seen)}, want {self.describe()}"]

    def describe(self) -> str:
        scope = f" ({self.scope})" if self.scope else ""
        return f"who is out {self.start!r}..{self.end!r}{scope}"


# --- shorthands the scenarios use ------------------------------------------------------------------


def proposes(**expected: Any) -> Check:
    return Proposes(expected)


def no_proposal_where(**expected: Any) -> Check:
    return NoProposalWhere(expected)


def called(*tools: str) -> Check:
    return Called(tools)


def consulted(*tools: str) -> Check:
    """One of the tools was called, whatever it answered (a refusal by the engine counts)."""
    return Called(tools, ok=False)


def not_called(*tools: str) -> Check:
    return NotCalled(tools)


def asked() -> tuple[Check, ...]:
    """Asked for what is missing instead of proposing: an answer, no card, nothing changed."""
    return (NoProposal(), EndedNormally(), NoStateChange())


def refused() -> tuple[Check, ...]:
    """Nothing is proposed and nothing changes."""
    return (NoProposal(), EndedNormally(), NoStateChange())


def small_talk() -> tuple[Check, ...]:
    return (NoToolCall(), NoProposal(), EndedNormally(), NoStateChange())


def requests(person: str, count: int, **expected: Any) -> Check:
    return Requests(person, count, expected)


def request_is(label: str, **expected: Any) -> Check:
    return RequestIs(label, expected)


def flatten(*items: Check | Sequence[Check]) -> tuple[Check, ...]:
    out: list[Check] = []
    for item in items:
        if isinstance(item, Check):
            out.append(item)
        else:
            out.extend(item)
    return tuple(out)


def proposes_each(*expected: Mapping[str, Any]) -> Check:
    return ProposesEach(tuple(expected))


def names(*options: str) -> Check:
    return Names(options)


def declined(lang: str) -> tuple[Check, ...]:
    """Said plainly that it cannot, in the person's language: no card, no change, no consent."""
    return (NoProposal(), EndedNormally(), NoStateChange(), NoConsent(), RepliesIn(lang))


def corrected(**expected: Any) -> tuple[Check, ...]:
    """A correction: one new draft with these fields, the earlier card superseded."""
    return (Proposes(expected), EarlierDraftsClosed())


def answered(lang: str, *tools: str) -> tuple[Check, ...]:
    """A question answered (from one of `tools` when given): no card, no change, no consent."""
    base: tuple[Check, ...] = (NoProposal(), EndedNormally(), NoStateChange(), NoConsent())
    return base + ((Called(tools),) if tools else ()) + (RepliesIn(lang),)


def helps(lang: str) -> tuple[Check, ...]:
    """A greeting or a call for help: says what it can do, looks nobody up, turns nobody away."""
    return (
        NoToolCall(),
        NoProposal(),
        EndedNormally(),
        NoStateChange(),
        NoConsent(),
        TurnsAway(want=False),
        RepliesIn(lang),
    )


def out_of_scope(lang: str) -> tuple[Check, ...]:
    """Not the bot's work: said plainly that it cannot, with no tool call, card or change."""
    return (*declined(lang), NoToolCall(), TurnsAway())


def who_is_out(start: Any, end: Any = None, scope: str | None = None) -> tuple[Check, ...]:
    """A who's-out question answered for these days: no card, no change."""
    return (
        LooksUpWhoIsOut(start, start if end is None else end, scope),
        NoProposal(),
        EndedNormally(),
        NoStateChange(),
    )
