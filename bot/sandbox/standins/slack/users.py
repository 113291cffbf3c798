"""The user objects `users.info` answers with, for people and for the bot."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def person_object(
    team_id: str,
    user_id: str,
    name: str,
    *,
    real_name: str | None,
    email: str | None,
    tz: str,
    locale: str,
    display_name: str,
    title: str,
    is_admin: bool,
    now: float,
) -> dict[str, Any]:
    """A person as Slack describes them (`locale` is stripped unless `include_locale`)."""
    if user_id[:1] not in ("U", "W"):
        raise ValueError(f"Slack user ids start with U or W, not {user_id!r}")
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError) as e:
        raise ValueError(f"Unknown timezone {tz!r}; use an IANA name such as Asia/Shanghai") from e
    local = datetime.fromtimestamp(now, zone)
    offset = local.utcoffset()
    real_name = real_name or name
    first, _, last = real_name.partition(" ")
    profile: dict[str, Any] = {
        "title": title,
        "phone": "",
        "skype": "",
        "real_name": real_name,
        "real_name_normalized": real_name,
        "display_name": display_name,
        "display_name_normalized": display_name,
        "status_text": "",
        "status_emoji": "",
        "avatar_hash": hashlib.sha1(user_id.encode()).hexdigest()[:12],
        "first_name": first,
        "last_name": last,
        "team": team_id,
    }
    if email is not None:
        profile["email"] = email
    return {
        "id": user_id,
        "team_id": team_id,
        "name": name,
        "deleted": False,
        "color": hashlib.sha1(user_id.encode()).hexdigest()[-6:],
        "real_name": real_name,
        "tz": tz,
        "tz_label": local.tzname() or tz,
        "tz_offset": int(offset.total_seconds()) if offset is not None else 0,
        "profile": profile,
        "is_admin": is_admin,
        "is_owner": False,
        "is_primary_owner": False,
        "is_restricted": False,
        "is_ultra_restricted": False,
        "is_bot": False,
        "is_app_user": False,
        "updated": int(now),
        "is_email_confirmed": email is not None,
        "who_can_share_contact_card": "EVERYONE",
        "locale": locale,
    }


def bot_object(
    team_id: str, bot_user_id: str, bot_id: str, app_id: str, name: str, *, now: float
) -> dict[str, Any]:
    """The bot's own user (what `users.info` says about the app's bot user)."""
    return {
        "id": bot_user_id,
        "team_id": team_id,
        "name": name,
        "deleted": False,
        "real_name": name,
        "tz": "America/Los_Angeles",
        "tz_label": "Pacific Standard Time",
        "tz_offset": -28800,
        "profile": {
            "real_name": name,
            "display_name": "",
            "bot_id": bot_id,
            "api_app_id": app_id,
            "always_active": True,
            "team": team_id,
        },
        "is_admin": False,
        "is_owner": False,
        "is_bot": True,
        "is_app_user": False,
        "updated": int(now),
        "locale": "en-US",
    }
