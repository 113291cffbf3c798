"""`approvals-bot requests show` and `directory sync`, from the server side.

`requests list|export` read with bot/request_pages.py; their rows are made by bot/request_rows.py.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from agent.tools.describe import what, where_it_is
from bot.directory_sources import from_feishu, from_slack, managers_csv, read_csv
from bot.settings import Settings
from bot.wording import history_note
from workflow.config import OrgConfig
from workflow.directory_sync import Diff, SourceRow, build_people, diff, load, merged, save
from workflow.engine import Engine
from workflow.errors import NotFound, ValidationFailed
from workflow.keys import OrgKeys
from workflow.models import Request
from workflow.store import hmget_record, versioned


async def get_request(engine: Engine, request_id: str) -> Request:
    [raw] = await engine.store.read(hmget_record(engine.keys.request(request_id)))
    req = versioned(Request, raw)
    if req is None:
        raise NotFound(f"There is no request {request_id}.")
    return req


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
        note = history_note(h, engine, "en")
        out.append(f"  {h.at:%Y-%m-%d %H:%M} {actor}: {h.action}" + (f" — {note}" if note else ""))
    return "\n".join(out)


# --- directory sync -------------------------------------------------------------------------


async def directory_rows(source: str, settings: Settings, args: Any) -> list[SourceRow]:
    """The people of a source, as rows (see bot/directory_sources.py)."""
    if source == "csv":
        if not args.file:
            raise ValidationFailed("directory sync --from csv needs --file PATH (the HRIS export)")
        path = Path(args.file)
        return read_csv(await asyncio.to_thread(path.read_text, "utf-8"), path.name)
    if source == "slack":
        if settings.slack_bot_token is None:
            raise ValidationFailed("directory sync --from slack needs SLACK_BOT_TOKEN")
        return await from_slack(
            settings.slack_bot_token.get_secret_value(),
            base_url=settings.slack_api_url,
            manager_field=args.manager_field,
            managers=await asyncio.to_thread(managers_csv, Path(args.managers))
            if args.managers
            else None,
        )
    if settings.feishu_app_id is None or settings.feishu_app_secret is None:
        raise ValidationFailed(
            "directory sync --from feishu needs FEISHU_APP_ID and FEISHU_APP_SECRET"
        )
    return await from_feishu(
        settings.feishu_api_url,
        settings.feishu_app_id,
        settings.feishu_app_secret.get_secret_value(),
    )


async def directory_sync(
    redis: aioredis.Redis,
    config: OrgConfig,
    rows: list[SourceRow],
    *,
    source: str,
    default_timezone: str,
    default_country: str | None,
    dry_run: bool,
    now: datetime,
) -> Diff:
    """Validate the source's people against the organisation file, and store them unless dry_run.

    Nothing is written when any row has a problem (DirectorySyncError lists them all) or
    when the people and the file disagree (a role no one holds, an override matching nobody).
    """
    people = build_people(rows, default_timezone=default_timezone, default_country=default_country)
    merged(config, people)  # the processes' roles and the overrides must still hold
    keys = OrgKeys(config.organisation.id)
    change = diff(await load(redis, keys), people)
    if not dry_run:
        await save(redis, keys, people, {"source": source, "synced_at": now.isoformat()})
    return change
