"""The directory: who people are, who manages whom, who holds a role, how to find someone."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cached_property
from zoneinfo import ZoneInfo

from workflow.clock import zone
from workflow.config import OrgConfig, Person
from workflow.errors import NotFound


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold().replace(" ", "")


class Directory:
    """Read-only lookups over the configured people."""

    def __init__(self, config: OrgConfig) -> None:
        self._people = {p.id: p for p in config.people}

    def __iter__(self):
        return iter(self._people.values())

    def __len__(self) -> int:
        return len(self._people)

    def get(self, person_id: str) -> Person:
        """The person with this id, or NotFound."""
        try:
            return self._people[person_id]
        except KeyError:
            raise NotFound(f"There is no person {person_id!r} in the directory.") from None

    def find(self, person_id: str) -> Person | None:
        return self._people.get(person_id)

    @cached_property
    def _by_account(self) -> dict[tuple[str, str], Person]:
        return {(platform, a): p for p in self for platform, a in p.accounts.items() if a}

    def by_account(self, platform: str, account: str) -> Person | None:
        """The person whose account on `platform` this is."""
        return self._by_account.get((platform, account))

    @cached_property
    def _by_email(self) -> dict[str, Person]:
        return {p.email.casefold(): p for p in self}

    def by_slack_id(self, slack_user_id: str) -> Person | None:
        return self.by_account("slack", slack_user_id)

    def by_feishu_id(self, open_id: str) -> Person | None:
        return self.by_account("feishu", open_id)

    def by_email(self, email: str) -> Person | None:
        return self._by_email.get(email.strip().casefold())

    def manager_of(self, person_id: str) -> Person | None:
        """The person's manager, or None at the top of the organisation."""
        manager = self.get(person_id).manager
        return self._people[manager] if manager else None

    def managers_above(self, person_id: str) -> list[Person]:
        """The management line above a person, nearest first."""
        line, cur = [], self.manager_of(person_id)
        while cur is not None:
            line.append(cur)
            cur = self.manager_of(cur.id)
        return line

    @cached_property
    def _by_role(self) -> dict[str, list[Person]]:
        out: dict[str, list[Person]] = {}
        for p in self:
            for role in p.roles:
                out.setdefault(role, []).append(p)
        return out

    @cached_property
    def _by_team(self) -> dict[str, list[Person]]:
        out: dict[str, list[Person]] = {}
        for p in self:
            out.setdefault(self.team_of(p.id), []).append(p)
        return out

    def with_role(self, role: str) -> list[Person]:
        return list(self._by_role.get(role, ()))

    def team_of(self, person_id: str) -> str:
        """A person's team name; people with no team form one with their manager's reports."""
        p = self.get(person_id)
        return p.team or f"reports-of-{p.manager or p.id}"

    def team_members(self, team: str) -> list[Person]:
        return list(self._by_team.get(team, ()))

    def timezone_of(self, person_id: str) -> ZoneInfo:
        return zone(self.get(person_id).timezone)

    def search(self, query: str, limit: int = 5) -> list[Person]:
        """People whose id, name, alias or email matches `query`, best matches first."""
        q = _fold(query)
        if not q:
            return []
        scored: list[tuple[int, str, Person]] = []
        for p in self:
            names = [p.id, p.name, *p.aliases, p.email.split("@")[0]]
            folded = [_fold(n) for n in names]
            if any(n == q for n in folded):
                rank = 0
            elif any(n.startswith(q) for n in folded):
                rank = 1
            elif any(q in n for n in folded) or q in _fold(p.email):
                rank = 2
            else:
                continue
            scored.append((rank, p.name, p))
        scored.sort(key=lambda t: (t[0], t[1]))
        return [p for _, _, p in scored[:limit]]

    def names(self, ids: Iterable[str]) -> list[str]:
        return [self.get(i).name for i in ids]
