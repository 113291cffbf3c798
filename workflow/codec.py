"""The compact layout of stored records: short field names, no defaults, history as rows.

A request is stored in its hash's field `d` as JSON with one- or two-letter names for the
record's own fields (never for the form's fields, which are the user's data), without any
value equal to its default, and with each history line as a row `[at, actor, action, step,
comment, reason]`. That halves a record (1,272 → ~600 bytes for a two-day leave). Records in the
older layout (the full JSON in field `data`) are still read, and rewritten in this layout
the next time they change (or by `approvals-bot migrate`). A pending action is stored the same
way, without its id (the key ends with it).
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel

from workflow.models import PendingAction, Request

R = TypeVar("R", bound=BaseModel)

# The hash fields of a stored record: its version, and its body in either layout.
VERSION_FIELD, COMPACT_FIELD, OLD_FIELD = "v", "d", "data"

_REQUEST = {
    "id": "i",
    "process": "p",
    "kind": "k",
    "requester": "r",
    "status": "s",
    "fields": "f",
    "derived": "x",
    "steps": "st",
    "current_step": "c",
    "created_at": "ca",
    "submitted_at": "sa",
    "decided_at": "da",
    "last_reminded_at": "la",
    "replaces": "rp",
    "filed_by": "fb",
    "counter": "co",
    "history": "h",
}
_STEP = {
    "index": "i",
    "name": "n",
    "name_zh": "z",
    "approver": "a",
    "assignee": "h",
    "status": "s",
    "routed_reason": "rr",
    "auto_approve": "aa",
    "sla_hours": "sl",
    "remind_after_hours": "ra",
    "max_reminders": "mr",
    "escalate_to": "e",
    "reminders": "rm",
    "escalations": "es",
    "assigned_at": "at",
    "decided_by": "by",
    "decided_at": "dt",
    "comment": "cm",
}
_PENDING = {
    "id": "i",
    "kind": "k",
    "schema_version": "sv",
    "actor": "a",
    "request_id": "r",
    "payload": "p",
    "digest": "g",
    "status": "s",
    "created_at": "ca",
    "expires_at": "ea",
    "result": "rs",
}
_HISTORY = ("at", "actor", "action", "step", "comment", "reason")
_BACK = {
    Request: {v: k for k, v in _REQUEST.items()},
    PendingAction: {v: k for k, v in _PENDING.items()},
}
_STEP_BACK = {v: k for k, v in _STEP.items()}


def _short(data: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    if unknown := set(data) - set(names):  # a new field must get a short name, never be lost
        raise ValueError(f"codec.py has no short name for {sorted(unknown)}")
    return {names[k]: v for k, v in data.items()}


def _row(entry: dict[str, Any]) -> list[Any]:
    if unknown := {k for k, v in entry.items() if v is not None} - set(_HISTORY):
        raise ValueError(f"codec.py has no history column for {sorted(unknown)}")
    row = [entry.get(k) for k in _HISTORY]
    while row and row[-1] is None:
        row.pop()
    return row


def dumps(record: BaseModel) -> str:
    """The record in the compact layout (Request and PendingAction), else its plain JSON."""
    return json.dumps(compact(record), separators=(",", ":"), ensure_ascii=False)


def compact(record: BaseModel) -> dict[str, Any]:
    """The record as the compact layout's JSON object (what `dumps` writes)."""
    plain = record.model_dump(mode="json", exclude_defaults=True, exclude={"version"})
    if isinstance(record, Request):
        plain = _short(plain, _REQUEST)
        # steps and history are written whole (a default inside them still needs no name)
        plain["st"] = [
            _short(s.model_dump(mode="json", exclude_defaults=True), _STEP) for s in record.steps
        ]
        if record.history:
            plain["h"] = [_row(h.model_dump(mode="json")) for h in record.history]
    elif isinstance(record, PendingAction):
        plain = _short(plain, _PENDING)
        # its id is its key's last part, which every reader has (`loads(..., id=…)`): a done
        # action's body stays under 64 bytes, so Redis keeps its hash as a listpack (~170
        # bytes in all) rather than a hash table (~330 more)
        del plain["i"]
    return plain


def head(text: str | bytes) -> dict[str, Any]:
    """A stored request's own fields before its steps (i, p, k, r, s, f, x): what a list line
    needs, parsed without the steps and history that are most of its bytes (2.5x faster);
    the whole record when the form has a field named like the steps."""
    # `dumps` writes the fields in the model's order, so the top-level `,"st":` ends them. An
    # earlier `,"st":` can only be a key nested in the form's fields (quotes inside strings
    # are escaped), and a cut there leaves a brace open, which orjson refuses: then the
    # whole record is parsed.
    cut = text.find(b',"st":' if isinstance(text, bytes) else ',"st":')
    if cut > 0:
        try:
            return orjson.loads(text[:cut] + (b"}" if isinstance(text, bytes) else "}"))
        except orjson.JSONDecodeError:
            pass
    return orjson.loads(text)


def loads(model: type[R], text: str, **known: Any) -> R:
    """A record from the compact layout; `known`: fields its key names (a pending action's id)."""
    data = json.loads(text)
    back = _BACK.get(model)
    if back is None:
        return model.model_validate({**known, **data})
    out = {**known, **{back[k]: v for k, v in data.items() if k in back}}
    if model is Request:  # one validation of the whole record (nested models in one pass)
        out["steps"] = [{_STEP_BACK[k]: v for k, v in s.items()} for s in out.get("steps", [])]
        out["history"] = [dict(zip(_HISTORY, row, strict=False)) for row in out.get("history", [])]
    return model.model_validate(out)
