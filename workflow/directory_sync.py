"""The directory kept in Redis: people synced from Slack, Feishu or an HRIS export.

A source (bot/directory_sources.py) yields one `SourceRow` per person. `build_people` turns
the rows into validated people: ids from the rows or their emails, managers resolved by
email, Slack id, Feishu open id or person id, each problem reported with its row (an unknown
manager, a manager loop, an email twice, a bad time zone). If there is any problem nothing
is written. `save` replaces the stored directory in one MULTI, so a reader sees the old
directory or the new one, never half. The organisation file keeps processes, leave types,
policy and `[[overrides]]` (roles, a manager or team to correct); `merged` combines them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import redis as sync_redis
import redis.asyncio as aioredis
from pydantic import ValidationError

from workflow.config import OrgConfig, Person, check_people
from workflow.errors import ConfigError, WorkflowError
from workflow.keys import OrgKeys

# What a zone implies when a source gives no country (holidays are counted by country).
COUNTRY_OF_ZONE = {
    "Asia/Shanghai": "CN",
    "Asia/Chongqing": "CN",
    "Asia/Hong_Kong": "HK",
    "Asia/Singapore": "SG",
    "Asia/Tokyo": "JP",
    "Europe/London": "GB",
    "Europe/Berlin": "DE",
    "Europe/Paris": "FR",
    "America/New_York": "US",
    "America/Chicago": "US",
    "America/Denver": "US",
    "America/Los_Angeles": "US",
}
_PERSON_FIELDS = set(Person.model_fields)


class DirectorySyncError(WorkflowError):
    """A sync found problems in its source; nothing was written."""

    def __init__(self, problems: list[str]) -> None:
        shown = problems[:20]
        more = f"\n…and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__(
            f"The directory was not changed: {len(problems)} problem"
            f"{'s' if len(problems) != 1 else ''} in the source.\n" + "\n".join(shown) + more
        )
        self.problems = problems


@dataclass
class SourceRow:
    """One person as a source describes them; `where` names the row in messages."""

    where: str
    email: str
    name: str
    manager: str | None = None  # an email, Slack id, Feishu open id or person id
    id: str | None = None
    timezone: str | None = None
    country: str | None = None
    subdivision: str | None = None
    locale: str | None = None
    title: str = ""
    title_zh: str = ""
    team: str | None = None
    team_name: str = ""  # the team's names per language, when the source has them
    team_name_zh: str = ""
    roles: tuple[str, ...] = ()
    slack_user_id: str | None = None
    feishu_open_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def slug(email: str) -> str:
    """A person id from an email's local part: lower case, letters, digits, `_.-`."""
    local = email.split("@", 1)[0].casefold()
    out = re.sub(r"[^a-z0-9_.-]+", "-", local).strip("-._") or "person"
    if not out[0].isalnum():
        out = "p" + out
    return out[:60]


def build_people(
    rows: Sequence[SourceRow], *, default_timezone: str, default_country: str | None = None
) -> list[Person]:
    """Validated people from the rows, or DirectorySyncError listing every problem with its row."""
    problems: list[str] = []
    ids: dict[str, str] = {}  # person id -> where
    ref: dict[str, str] = {}  # email / slack id / open id / person id -> person id
    chosen: list[tuple[SourceRow, str]] = []
    seen_email: dict[str, str] = {}
    for row in rows:
        email = row.email.strip()
        if not email:
            problems.append(f"{row.where}: no email, so the person cannot be matched")
            continue
        if (first := seen_email.get(email.casefold())) is not None:
            problems.append(f"{row.where}: email {email} is also used by {first}")
            continue
        seen_email[email.casefold()] = row.where
        pid = row.id or slug(email)
        base, n = pid, 2
        while pid in ids:  # two people whose emails start alike
            pid, n = f"{base}-{n}", n + 1
        ids[pid] = row.where
        chosen.append((row, pid))
        for key in (email.casefold(), row.slack_user_id, row.feishu_open_id, pid):
            if key:
                ref.setdefault(key, pid)
    people: dict[str, Person] = {}
    for row, pid in chosen:
        manager = None
        if row.manager:
            manager = ref.get(row.manager.strip()) or ref.get(row.manager.strip().casefold())
            if manager is None:
                problems.append(
                    f"{row.where}: manager {row.manager!r} matches nobody in the source"
                )
                continue
        tz = row.timezone or default_timezone
        country = row.country or COUNTRY_OF_ZONE.get(tz) or default_country
        if not country:
            problems.append(
                f"{row.where}: no country, and none follows from the time zone {tz}; "
                "give a country column or --default-country"
            )
            continue
        data = {
            "id": pid,
            "name": row.name.strip() or row.email,
            "email": row.email.strip(),
            "title": row.title,
            "title_zh": row.title_zh,
            "manager": manager,
            "team": row.team or None,
            "team_name": row.team_name,
            "team_name_zh": row.team_name_zh,
            "roles": row.roles,
            "timezone": tz,
            "country": country,
            "subdivision": row.subdivision or None,
            "locale": row.locale or ("zh" if country == "CN" else "en"),
            "slack_user_id": row.slack_user_id or None,
            "feishu_open_id": row.feishu_open_id or None,
        }
        try:
            people[pid] = Person.model_validate(data)
        except ValidationError as e:
            for err in e.errors():
                where = ".".join(str(x) for x in err["loc"])
                problems.append(f"{row.where}: {where}: {err['msg']}")
    if not problems:
        try:
            check_people(people)
        except ValueError as e:
            named = dict.fromkeys(re.findall(r"'([^']+)'", str(e)))
            rows_named = ", ".join(ids[n] for n in named if n in ids)
            problems.append(f"{rows_named}: {e}")
    if problems:
        raise DirectorySyncError(problems)
    return list(people.values())


@dataclass(frozen=True)
class Diff:
    """What a sync would change: people added, removed, and changed (with the fields)."""

    added: list[str]
    removed: list[str]
    changed: dict[str, list[str]]

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def lines(self, limit: int = 50) -> list[str]:
        out = [
            f"{len(self.added)} to add, {len(self.removed)} to remove, {len(self.changed)} to change"
        ]
        for pid in self.added[:limit]:
            out.append(f"+ {pid}")
        for pid in self.removed[:limit]:
            out.append(f"- {pid}")
        for pid, fields in list(self.changed.items())[:limit]:
            out.append(f"~ {pid}: {', '.join(fields)}")
        return out


def diff(old: Iterable[Person], new: Iterable[Person]) -> Diff:
    before, after = {p.id: p for p in old}, {p.id: p for p in new}
    changed = {}
    for pid in sorted(before.keys() & after.keys()):
        a, b = before[pid].model_dump(), after[pid].model_dump()
        if fields := [k for k in a if a[k] != b[k]]:
            changed[pid] = fields
    return Diff(
        added=sorted(after.keys() - before.keys()),
        removed=sorted(before.keys() - after.keys()),
        changed=changed,
    )


def _stored(p: Person) -> str:
    return p.model_dump_json(exclude_defaults=True)


async def load(redis: aioredis.Redis, keys: OrgKeys) -> list[Person]:
    """The people stored by the last sync (none when there was none)."""
    raw = await redis.hgetall(keys.directory)
    return [Person.model_validate_json(v) for _, v in sorted(raw.items())]


def load_sync(url: str, keys: OrgKeys) -> list[Person]:
    """The same, for start-up code that is not async (one HGETALL)."""
    if url.startswith(("redis+cluster://", "rediss+cluster://")):
        from redis.cluster import RedisCluster

        client: Any = RedisCluster.from_url(url.replace("+cluster", "", 1), decode_responses=True)
    else:
        client = sync_redis.Redis.from_url(url, decode_responses=True)
    try:
        raw = client.hgetall(keys.directory)
    finally:
        client.close()
    return [Person.model_validate_json(v) for _, v in sorted(raw.items())]


async def save(
    redis: aioredis.Redis, keys: OrgKeys, people: Sequence[Person], meta: Mapping[str, str]
) -> None:
    """Replace the stored directory with `people` in one transaction (all or nothing)."""
    mapping = {p.id: _stored(p) for p in people}
    async with redis.pipeline(transaction=True) as pipe:
        pipe.delete(keys.directory)
        items = list(mapping.items())
        for start in range(0, len(items), 1000):
            pipe.hset(keys.directory, mapping=dict(items[start : start + 1000]))
        pipe.delete(keys.directory_meta)
        pipe.hset(keys.directory_meta, mapping={**meta, "people": str(len(people))})
        await pipe.execute()


def merged(config: OrgConfig, synced: Sequence[Person]) -> OrgConfig:
    """The organisation with the synced people: the file's own people replace a synced person
    with the same id or email, then its `[[overrides]]` apply (roles, manager, team, ...)."""
    if not synced and not config.overrides:
        return config
    own_ids = {p.id for p in config.people}
    own_emails = {p.email.casefold() for p in config.people}
    people = [
        p for p in synced if p.id not in own_ids and p.email.casefold() not in own_emails
    ] + list(config.people)
    data = config.model_dump(mode="json", exclude={"people"})
    rows = [p.model_dump(mode="json", exclude_defaults=True) for p in people]
    by_id = {r["id"]: r for r in rows}
    by_email = {r["email"].casefold(): r for r in rows}
    problems = []
    for n, o in enumerate(config.overrides):
        target = by_id.get(o.id) if o.id is not None else by_email.get((o.email or "").casefold())
        if target is None:
            who = f"id {o.id}" if o.id is not None else f"email {o.email}"
            problems.append(f"overrides[{n}]: {who} matches nobody in the directory")
            continue
        target.update(o.changes())
    if problems:
        raise ConfigError("; ".join(problems))
    data["people"] = rows
    try:
        return OrgConfig.model_validate(data)
    except ValidationError as e:
        msg = "; ".join(f"{'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors()[:5])
        raise ConfigError(f"The synced directory and the organisation file disagree: {msg}") from e


def to_json_line(p: Person) -> str:
    return json.dumps(p.model_dump(mode="json"), ensure_ascii=False)


def with_synced(config: OrgConfig, redis_url: str | None) -> OrgConfig:
    """The organisation file's config with the directory last synced into Redis (if any)."""
    if redis_url is None:
        return merged(config, [])
    return merged(config, load_sync(redis_url, OrgKeys(config.organisation.id)))
