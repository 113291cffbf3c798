"""What the planner says: its sentences are the catalogue's `planner.*` codes, in English and Chinese.

Questions end with a question mark: the planner reads its own earlier question back from the
history that way, to know that the next message answers it.
"""

from __future__ import annotations

from typing import Any

from agent.catalogue import CATALOGUE, say
from agent.planner._context import Context, Lang


def text(key: str, lang: Lang, **values: Any) -> str:
    """The planner's sentence `key` (catalogue code `planner.<key>`) in `lang`, values filled in."""
    return say(f"planner.{key}", lang, **values)


def capabilities(ctx: Context, lang: Lang) -> str:
    """What the planner can do for this user, approvals only for approvers (or when unknown)."""
    name = ctx.first_name
    lines = [
        say("planner.hello", lang, name=name) if name else say("planner.hello.anonymous", lang),
        say("planner.capabilities", lang),
    ]
    if ctx.is_approver is not False:
        code = "approver" if ctx.is_approver else "approver_maybe"
        lines.append(say(f"planner.capabilities.{code}", lang))
    lines.append(say("planner.capabilities.end", lang))
    return "\n".join(lines)


def _or_list(names: list[str], lang: Lang) -> str:
    """'a, b or c' / 'a、b、c'."""
    if len(names) < 2:
        return "".join(names)
    items = say("word.list_sep", lang).join(names[:-1])
    return say("planner.or_last", lang, items=items, last=names[-1])


def join_ids(ids: list[str], lang: Lang) -> str:
    """Request ids as a list in running text."""
    return _or_list(ids, lang)


_LABEL_KEYS = (
    ("requester_name", "requester"),
    ("process_name", "process"),
    ("leave_type_name", "leave_type"),
)


def item_line(item: dict[str, Any]) -> str:
    """One request of a list result as a short line: id, who, what, when, status."""
    request_id = str(item.get("request_id") or item.get("id") or "")
    if isinstance(item.get("summary"), str) and item["summary"]:
        return f"• {request_id} — {item['summary']}" if request_id else f"• {item['summary']}"
    if item.get("what"):
        who = f"{item['requester']}: " if item.get("requester") else ""
        return f"• {request_id} {who}{item['what']}"
    parts: list[str] = []
    for keys in _LABEL_KEYS:
        for key in keys:
            if item.get(key):
                parts.append(str(item[key]))
                break
    fields = item.get("fields") if isinstance(item.get("fields"), dict) else item
    start, end = fields.get("start"), fields.get("end")
    if start:
        parts.append(f"{start}–{end}" if end and end != start else str(start))
    if item.get("status"):
        parts.append(str(item["status"]))
    label = ", ".join(parts)
    return f"• {request_id} — {label}" if label else f"• {request_id}"


def _type_word(key: str, lang: Lang) -> str | None:
    """The catalogue's word for a leave type ('annual' / '年假'), None for a type it lacks."""
    code = f"planner.type.{key}"
    return say(code, lang) if code in CATALOGUE else None


def leave_name(key: str, lang: Lang) -> str:
    """A leave type as running text: 'annual leave' / '年假'; plain 'leave' / '假' if unknown."""
    if (word := _type_word(key, lang)) is None:
        return say("planner.leave_unnamed", lang)
    return say("planner.leave_named", lang, kind=word)


def type_list(keys: tuple[str, ...], lang: Lang) -> str:
    """The organisation's leave types in running text: 'annual, sick or unpaid' / '年假、病假、无薪假'."""
    return _or_list([_type_word(k, lang) or k for k in keys], lang)
