"""What the planner knows about the speaker: read leniently from the system message."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from agent.messages import Message

Lang = str  # "en" | "zh"

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_REQUEST_ID = re.compile(r"\bR-[A-Z0-9]{8}\b", re.IGNORECASE)

_USER = re.compile(
    r"^\s*User\s*:\s*(?P<name>[^(,\n]+?)\s*(?:\(\s*(?:id\s*:?\s*)?(?P<id>[^)\s]+)\s*\))?\s*(?:,|$)",
    re.IGNORECASE | re.MULTILINE,
)
_MANAGER = re.compile(r"\bmanager\s*:?\s*(?P<manager>[^,\n]+)", re.IGNORECASE)
_TIMEZONE = re.compile(r"\btime\s?zone\s*:?\s*(?P<tz>[A-Za-z_]+(?:/[A-Za-z_+-]+)*)", re.IGNORECASE)
_LOCALE = re.compile(r"\blocale\s*:?\s*(?P<locale>[A-Za-z]{2})", re.IGNORECASE)
_ROLES = re.compile(r"\broles?\s*:?\s*(?P<roles>[a-z_]+(?:/[a-z_]+)*)", re.IGNORECASE)
_TODAY = re.compile(
    r"^\s*Today(?:\s+is|\s*:)[^\n]*?(?P<today>\d{4}-\d{2}-\d{2})", re.IGNORECASE | re.MULTILINE
)
_APPROVER = re.compile(
    r"^\s*(?:Approver|Approves for|Direct reports|Reports)\s*:\s*(?P<value>.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_LEAVE_TYPES = re.compile(r"\bleave\s+types?\s*:\s*(?P<types>[a-z_, ]+)", re.IGNORECASE)
DEFAULT_LEAVE_TYPES = ("annual", "sick", "personal", "unpaid")
_NO = re.compile(r"^\s*(?:no|none|false|-|—|无|没有)?\s*\.?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Context:
    """The acting user and today's date, as the system message states them.

    `is_approver` is None when the system message does not say.
    """

    today: date
    user_name: str = ""
    user_id: str = ""
    manager: str = ""
    timezone: str = ""
    locale: str = ""
    is_approver: bool | None = None
    leave_types: tuple[str, ...] = DEFAULT_LEAVE_TYPES
    roles: tuple[str, ...] = ()  # "hr" files leave for others
    # "process.field" dates of things already done, read as the nearest past day: the
    # propose_request schema says which; without one, the demo form's (as the reading assumes)
    past: frozenset[str] = frozenset({"expense.spent_on"})

    @property
    def first_name(self) -> str:
        """How to greet the user: the first word of an English name, a Chinese name whole."""
        if not self.user_name or _CJK.search(self.user_name):
            return self.user_name
        return self.user_name.split()[0]


def read_context(messages: Sequence[Message], fallback_today: date) -> Context:
    """The context from the first system message; missing parts keep their defaults."""
    text = "\n".join(m.content for m in messages if m.role == "system")
    today = fallback_today
    if found := _TODAY.search(text):
        with contextlib.suppress(ValueError):
            today = date.fromisoformat(found.group("today"))
    name = user_id = manager = timezone = locale = ""
    roles: tuple[str, ...] = ()
    if user := _USER.search(text):
        name = user.group("name").strip()
        user_id = (user.group("id") or "").strip()
        start = user.start("name")
        end = text.find("\n", start)
        line = text[start : end if end != -1 else len(text)]
        if found := _MANAGER.search(line):
            manager = found.group("manager").strip()
        if found := _TIMEZONE.search(line):
            timezone = found.group("tz")
        if found := _LOCALE.search(line):
            locale = found.group("locale").lower()
        if found := _ROLES.search(line):
            roles = tuple(r.lower() for r in found.group("roles").split("/"))
    is_approver: bool | None = None
    leave_types = DEFAULT_LEAVE_TYPES
    if found := _LEAVE_TYPES.search(text):
        named = tuple(k.strip().lower() for k in found.group("types").split(",") if k.strip())
        leave_types = named or DEFAULT_LEAVE_TYPES
    if found := _APPROVER.search(text):
        is_approver = not _NO.match(found.group("value"))
    return Context(
        today=today,
        user_name=name,
        user_id=user_id,
        manager=manager,
        timezone=timezone,
        locale=locale,
        is_approver=is_approver,
        leave_types=leave_types,
        roles=roles,
    )


def has_cjk(text: str) -> bool:
    """Whether `text` contains a Chinese character."""
    return bool(_CJK.search(text))


def language_of(texts: Sequence[str], locale: str = "") -> Lang:
    """The language to answer in: that of the newest text that shows one, else the locale.

    Any Chinese character means Chinese; Latin words (request ids aside) mean English.
    """
    for text in reversed(texts):
        if has_cjk(text):
            return "zh"
        if _LATIN_WORD.search(_REQUEST_ID.sub(" ", text)):
            return "en"
    return "zh" if locale.startswith("zh") else "en"
