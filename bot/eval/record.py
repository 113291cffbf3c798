"""What a scenario run leaves for its checks: the turns' step events, the clicks, the engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.events import FinalAnswer, ProposalReady, StepEvent, ToolFinished, ToolStarted
from agent.memory import ThreadMemory
from workflow.engine import Engine
from workflow.models import PendingAction, PendingStatus, Request, RequestStatus
from workflow.store import hmget_record, versioned


@dataclass
class ClickRecord:
    """A button pressed on a card: what it was and what the engine answered."""

    action: str  # confirm | cancel
    pending_id: str | None
    outcome: str  # confirmed | repeated | cancelled | refused:<code> | no_card


@dataclass
class TurnRecord:
    """One user message and the step events of the agent's turn."""

    text: str
    events: list[StepEvent] = field(default_factory=list)
    seconds: float = 0.0
    clicks: list[ClickRecord] = field(default_factory=list)
    before: dict[str, Any] = field(default_factory=dict)  # the state when the message arrived

    @property
    def proposals(self) -> list[ProposalReady]:
        return [e for e in self.events if isinstance(e, ProposalReady)]

    @property
    def tools_started(self) -> list[ToolStarted]:
        return [e for e in self.events if isinstance(e, ToolStarted)]

    @property
    def tools_finished(self) -> list[ToolFinished]:
        return [e for e in self.events if isinstance(e, ToolFinished)]

    @property
    def final(self) -> FinalAnswer | None:
        last = self.events[-1] if self.events else None
        return last if isinstance(last, FinalAnswer) else None


@dataclass
class ScenarioRun:
    """Everything a check may look at."""

    engine: Engine
    memory: ThreadMemory
    thread: str
    person: str
    labels: dict[str, str] = field(default_factory=dict)  # setup label → request id
    before: dict[str, Any] = field(default_factory=dict)  # the state after setup
    turns: list[TurnRecord] = field(default_factory=list)

    async def snapshot(self) -> dict[str, Any]:
        return await state_snapshot(self.engine)

    async def is_open(self, pending_id: str) -> bool:
        """Whether a proposal still awaits its click (a corrected draft is cancelled by its successor)."""
        key = self.engine.keys.pending(pending_id)
        [raw] = await self.engine.store.read(hmget_record(key))
        pending = versioned(PendingAction, raw, id=pending_id)
        return pending is not None and pending.status is PendingStatus.OPEN


async def state_snapshot(engine: Engine) -> dict[str, Any]:
    """Every workflow key of the organisation, except what a proposal writes (pending actions, drafts).

    Two equal snapshots mean nothing was submitted, decided, withdrawn, reminded or delegated.
    Scanning is fine here: each scenario has a fakeredis of its own.
    """
    redis, keys = engine.store.redis, engine.keys
    pending_prefix = keys.pending("")
    request_prefix = keys.request("")
    snap: dict[str, Any] = {}
    async for key in redis.scan_iter(match=keys.tag + ":*", count=500):
        if key.startswith(pending_prefix):
            continue
        kind = await redis.type(key)
        if kind == "hash":
            value: Any = await redis.hgetall(key)
            if key.startswith(request_prefix):
                req = versioned(Request, [value.get("v"), value.get("d"), value.get("data")])
                if req is not None and req.status is RequestStatus.DRAFT:
                    continue
        elif kind == "zset":
            value = await redis.zrange(key, 0, -1, withscores=True)
        elif kind == "set":
            value = sorted(await redis.smembers(key))
        elif kind == "list":
            value = await redis.lrange(key, 0, -1)
        elif kind == "stream":
            value = [fields for _, fields in await redis.xrange(key)]
        else:
            value = await redis.get(key)
        snap[key] = value
    return snap


def diff_keys(before: dict[str, Any], after: dict[str, Any], tag: str) -> list[str]:
    """The keys that differ, without the organisation's tag, for a readable failure."""
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    return [k.removeprefix(tag + ":") for k in changed]
