"""Times as a reader reads them: in their time zone, with the zone named.

"Wed 2 Dec, 17:33 (London time)" / "12月2日 周三 17:33（伦敦时间）": the day written as the
product writes dates, the year only when it is not this year's (agent/i18n.py `fmt_moment`,
which refusals use too). A card stays in the chat and is read days later, so its day is always
named, never "today".
"""

from __future__ import annotations

from datetime import datetime

from agent.i18n import fmt_moment, zone_name
from bot.presentation.model import Reader

__all__ = ["at_text", "zone_name"]


def at_text(at: datetime | None, reader: Reader, now: datetime | None = None) -> str:
    """'Wed 2 Dec, 09:00 (London time)' / '12月2日 周三 15:57（北京时间）', in the reader's zone;
    the year named when `at` is not in `now`'s year there (or `now` is not given); '?' for None.
    """
    if at is None:
        return "?"
    return fmt_moment(reader.local(at), reader.locale, reader.local(now) if now else None)
