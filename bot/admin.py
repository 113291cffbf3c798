"""`approvals-bot requests list|show|export`: HR's view of every request, from the server side.

Reasons are medical data: exports leave them out unless --with-reasons is given.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from agent.tools.describe import what, where_it_is
from workflow.engine import Engine
from workflow.errors import NotFound, ValidationFailed
from workflow.models import Request, RequestStatus
from workflow.store import hmget_record, versioned

EXPORT_COLUMNS = [
    "request_id",
    "process",
    "requester_id",
    "requester",
    "team",
    "status",
    "submitted_at",
    "decided_at",
    "leave_type",
    "start",
    "end",
    "working_days",
    "amount",
    "currency",
    "category",
    "destination",
    "approvers",
    "waiting_for",
    "decided_by",
]


async def find_requests(
    engine: Engine,
    *,
    since: date | None,
    until: date | None,
    status: str | None,
    process: str | None,
    limit: int = 10_000,
) -> list[Request]:
    """Submitted requests in a submission-date range, newest first, filtered by status and process."""
    if status is not None and status not in {s.value for s in RequestStatus}:
        raise ValidationFailed(
            f"Unknown status {status!r}; use one of {', '.join(s.value for s in RequestStatus)}."
        )
    if process is not None:
        engine.process(process)
    low = int(datetime.combine(since, time(0), UTC).timestamp() * 1000) if since else "-inf"
    high = (
        int(datetime.combine(until + timedelta(days=1), time(0), UTC).timestamp() * 1000)
        if until
        else "+inf"
    )
    [ids] = await engine.store.read(
        ("zrevrangebyscore", [engine.keys.all_requests, high, low, 0, limit])
    )
    requests = await engine._requests(list(ids))
    return [
        r
        for r in requests
        if (status is None or r.status.value == status)
        and (process is None or r.process == process)
    ]


async def get_request(engine: Engine, request_id: str) -> Request:
    [raw] = await engine.store.read(hmget_record(engine.keys.request(request_id)))
    req = versioned(Request, raw)
    if req is None:
        raise NotFound(f"There is no request {request_id}.")
    return req


def row(engine: Engine, r: Request, with_reasons: bool) -> dict[str, Any]:
    d, f = engine.directory, r.fields
    step = r.open_step()
    out = {
        "request_id": r.id,
        "process": r.process,
        "requester_id": r.requester,
        "requester": d.get(r.requester).name,
        "team": d.team_of(r.requester),
        "status": r.status.value,
        "submitted_at": r.submitted_at.isoformat() if r.submitted_at else "",
        "decided_at": r.decided_at.isoformat() if r.decided_at else "",
        "leave_type": f.get("leave_type", ""),
        "start": f.get("start", ""),
        "end": f.get("end", ""),
        "working_days": r.derived.get("working_days", ""),
        "amount": f.get("amount", f.get("estimated_cost", "")),
        "currency": f.get("currency", ""),
        "category": f.get("category", ""),
        "destination": f.get("destination", ""),
        "approvers": " → ".join(d.get(s.approver).name for s in r.steps),
        "waiting_for": d.get(step.assignee).name if step and step.assignee else "",
        "decided_by": ", ".join(d.get(s.decided_by).name for s in r.steps if s.decided_by),
    }
    if with_reasons:
        out["reason"] = f.get("reason") or f.get("description") or f.get("purpose") or ""
    return out


def export(engine: Engine, requests: Iterable[Request], fmt: str, with_reasons: bool) -> str:
    rows = [row(engine, r, with_reasons) for r in requests]
    if fmt == "json":
        return "\n".join(json.dumps(x, ensure_ascii=False) for x in rows) + ("\n" if rows else "")
    buf = io.StringIO()
    columns = EXPORT_COLUMNS + (["reason"] if with_reasons else [])
    writer = csv.DictWriter(buf, fieldnames=columns)
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def table(engine: Engine, requests: list[Request]) -> str:
    lines = [f"{'REQUEST':<11} {'STATUS':<10} {'REQUESTER':<14} WHAT"]
    for r in requests:
        lines.append(
            f"{r.id:<11} {r.status.value:<10} {engine.person(r.requester).name:<14} {what(r, engine.config, 'en')}"
        )
    lines.append(f"({len(requests)} request{'s' if len(requests) != 1 else ''})")
    return "\n".join(lines)


def details(engine: Engine, r: Request) -> str:
    d = engine.directory
    out = [
        f"{r.id} · {what(r, engine.config, 'en')}",
        f"requester: {d.get(r.requester).name} ({r.requester})",
        f"status: {where_it_is(r, d, 'en')}",
    ]
    for k, v in r.fields.items():
        out.append(f"  {k}: {v}")
    out.append("steps:")
    for s in r.steps:
        who = d.get(s.assignee or s.approver).name
        out.append(
            f"  {s.index + 1}. {s.name}: {who} — {s.status.value}"
            + (f" ({s.comment})" if s.comment else "")
        )
    out.append("history:")
    for h in r.history:
        actor = d.get(h.actor).name if h.actor else "system"
        out.append(
            f"  {h.at:%Y-%m-%d %H:%M} {actor}: {h.action}"
            + (f" — {h.comment}" if h.comment else "")
        )
    return "\n".join(out)
