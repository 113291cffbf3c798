"""Where `approvals-bot directory sync` reads people from: Slack, Feishu or an HRIS CSV export.

Each source returns `SourceRow`s naming the row they came from, so a problem is reported
with its row; workflow/directory_sync.py validates them and writes the directory.

- Slack `users.list` (paged): email, name, time zone, title (one string, as the person wrote
  it: Slack keeps no title per language); the manager from a custom
  profile field (`--manager-field Xf…`, its value a Slack user id or an email) or from a
  CSV of `email,manager_email` (`--managers FILE`). Bots, deleted users and guests without
  an email are left out.
- Feishu contact API: departments (`departments/0/children?fetch_child=true`) and their
  people (`users/find_by_department`), with open ids and emails; the manager is the user's
  `leader_user_id`, else the leader of their first department; the team is that department,
  with its names in English and Chinese from its `i18n_name` when the tenant gives them (a
  user's `job_title` is one string: kept as written).
- CSV: a header row with `email,name` and any of `id, manager_email (or manager), team,
  team_name, team_name_zh, timezone, country, subdivision, locale, title, title_zh, roles
  (separated by ;), slack_user_id, feishu_open_id`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from workflow.directory_sync import SourceRow
from workflow.errors import ConfigError

CSV_COLUMNS = {
    "id",
    "email",
    "name",
    "manager",
    "manager_email",
    "team",
    "timezone",
    "country",
    "subdivision",
    "locale",
    "title",
    "title_zh",
    "team_name",
    "team_name_zh",
    "roles",
    "slack_user_id",
    "feishu_open_id",
}


def read_csv(text: str, source: str = "CSV") -> list[SourceRow]:
    """People from an HRIS export; `row N` is the line number in the file."""
    reader = csv.DictReader(io.StringIO(text))
    header = set(reader.fieldnames or ())
    if not {"email", "name"} <= header:
        raise ConfigError(
            f"{source}: the header needs `email` and `name` (it has {sorted(header)})"
        )
    if unknown := header - CSV_COLUMNS:
        raise ConfigError(
            f"{source}: unknown columns {sorted(unknown)}; the columns are {sorted(CSV_COLUMNS)}"
        )
    rows = []
    for n, r in enumerate(reader, start=2):

        def get(k: str, r: dict[str, str | None] = r) -> str:
            return (r.get(k) or "").strip()

        rows.append(
            SourceRow(
                where=f"{source} row {n}",
                email=get("email"),
                name=get("name"),
                manager=get("manager_email") or get("manager") or None,
                id=get("id") or None,
                timezone=get("timezone") or None,
                country=get("country").upper() or None,
                subdivision=get("subdivision") or None,
                locale=get("locale") or None,
                title=get("title"),
                title_zh=get("title_zh"),
                team=get("team") or None,
                team_name=get("team_name"),
                team_name_zh=get("team_name_zh"),
                roles=tuple(x.strip() for x in get("roles").split(";") if x.strip()),
                slack_user_id=get("slack_user_id") or None,
                feishu_open_id=get("feishu_open_id") or None,
            )
        )
    return rows


def managers_csv(path: Path) -> dict[str, str]:
    """`email,manager_email` rows: whom each person reports to."""
    out = {}
    for r in csv.DictReader(io.StringIO(path.read_text("utf-8"))):
        if r.get("email") and r.get("manager_email"):
            out[r["email"].strip().casefold()] = r["manager_email"].strip()
    return out


async def from_slack(
    token: str,
    *,
    base_url: str | None = None,
    manager_field: str | None = None,
    managers: Mapping[str, str] | None = None,
) -> list[SourceRow]:
    """Every active person of the workspace, from `users.list` a page at a time."""
    client = AsyncWebClient(token=token, **({"base_url": base_url} if base_url else {}))
    rows: list[SourceRow] = []
    cursor: str | None = None
    try:
        while True:
            page = await client.users_list(limit=200, **({"cursor": cursor} if cursor else {}))
            for u in page.get("members", []):
                if u.get("deleted") or u.get("is_bot") or u.get("id") == "USLACKBOT":
                    continue
                profile = u.get("profile") or {}
                email = profile.get("email") or ""
                manager = None
                if manager_field:
                    manager = ((profile.get("fields") or {}).get(manager_field) or {}).get("value")
                if not manager and managers:
                    manager = managers.get(email.casefold())
                rows.append(
                    SourceRow(
                        where=f"Slack user {u['id']}",
                        email=email,
                        name=u.get("real_name") or profile.get("real_name") or u.get("name", ""),
                        manager=manager or None,
                        timezone=u.get("tz") or None,
                        title=profile.get("title") or "",
                        slack_user_id=u["id"],
                    )
                )
            cursor = (page.get("response_metadata") or {}).get("next_cursor") or None
            if not cursor:
                return rows
    except SlackApiError as e:
        raise ConfigError(f"Slack users.list failed: {e.response.get('error')}") from e


class _Feishu:
    def __init__(self, session: aiohttp.ClientSession, base: str, token: str) -> None:
        self.session, self.base, self.token = session, base.rstrip("/"), token

    async def get(self, path: str, params: dict[str, Any]) -> dict[str, Any]:
        async with self.session.get(
            self.base + path, params=params, headers={"Authorization": f"Bearer {self.token}"}
        ) as resp:
            body = await resp.json(content_type=None)
        if body.get("code") != 0:
            raise ConfigError(f"Feishu {path} failed: {body.get('code')} {body.get('msg')}")
        return body.get("data") or {}

    async def pages(self, path: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        items, token = [], None
        while True:
            data = await self.get(path, {**params, **({"page_token": token} if token else {})})
            items += data.get("items") or []
            token = data.get("page_token")
            if not data.get("has_more") or not token:
                return items


async def from_feishu(base_url: str, app_id: str, app_secret: str) -> list[SourceRow]:
    """Every person of the tenant's departments, with their department leaders."""
    async with aiohttp.ClientSession() as session:
        async with session.post(
            base_url.rstrip("/") + "/open-apis/auth/v3/tenant_access_token/internal",
            json={"app_id": app_id, "app_secret": app_secret},
        ) as resp:
            auth = await resp.json(content_type=None)
        if auth.get("code") != 0:
            raise ConfigError(f"Feishu refused the app credentials: {auth.get('msg')}")
        api = _Feishu(session, base_url, auth["tenant_access_token"])
        ids = {"department_id_type": "open_department_id", "user_id_type": "open_id"}
        departments = await api.pages(
            "/open-apis/contact/v3/departments/0/children",
            {**ids, "fetch_child": "true", "page_size": 50},
        )
        by_id = {d["open_department_id"]: d for d in departments}
        rows: dict[str, SourceRow] = {}
        for dept in ["0", *by_id]:
            users = await api.pages(
                "/open-apis/contact/v3/users/find_by_department",
                {**ids, "department_id": dept, "page_size": 50},
            )
            for u in users:
                if u["open_id"] in rows:
                    continue
                first = next(iter(u.get("department_ids") or []), None)
                d = by_id.get(first or "")
                leader = u.get("leader_user_id") or (d or {}).get("leader_user_id")
                if leader == u["open_id"]:  # the department's own leader reports upwards
                    parent = by_id.get((d or {}).get("parent_department_id") or "")
                    leader = (parent or {}).get("leader_user_id")
                names = (d or {}).get("i18n_name") or {}  # {"zh_cn": …, "en_us": …, "ja_jp": …}
                rows[u["open_id"]] = SourceRow(
                    where=f"Feishu user {u['open_id']}",
                    email=u.get("enterprise_email") or u.get("email") or "",
                    name=u.get("name") or u.get("en_name") or "",
                    manager=leader or None,
                    timezone=u.get("time_zone") or None,
                    country=(u.get("country") or "").upper() or None,
                    title=u.get("job_title") or "",
                    team=(d or {}).get("name"),
                    team_name=names.get("en_us") or "",
                    # an empty zh_cn is common: the department's own name is the one people
                    # read in Chinese, never its English name
                    team_name_zh=names.get("zh_cn") or (d or {}).get("name") or "",
                    feishu_open_id=u["open_id"],
                )
        return list(rows.values())
