"""The team calendar feed: a secret URL per person, serving their team's approved leave as iCalendar.

A token is `secrets.token_urlsafe(32)` (256 random bits), shown once to its person and stored
only as its SHA-256: `keys.feed_tokens` maps the hash to the person, `keys.feed_of(person)`
holds the hash of their one live token. Creating a token revokes the previous one in the same
guarded write; revoking deletes it, so the very next fetch is answered 404. A lookup hashes
what it is given and reads one hash field: the secret is never compared byte by byte, so no
timing tells how much of a guess was right, and a leaked Redis dump holds no usable URL.

The feed holds names and dates only — never the type of leave or its reason (sick leave is
medical data: DESIGN.md, "Privacy") — and approved leave only, since a booking still awaiting
approval would read as a fact in someone's calendar. It reads the team's who's-out week
buckets for a window (WINDOW_BACK days back, WINDOW_AHEAD ahead) in one pipelined read,
however long the organisation's history.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta

from icalendar import Calendar, Event

from workflow.errors import StoreUnavailable
from workflow.keys import OrgKeys
from workflow.queries import OutEntry, Queries
from workflow.store import Conflict, Store, Tx

# What a token looks like (token_urlsafe(32)); anything else is refused before Redis is asked.
TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{43}")
WINDOW_BACK, WINDOW_AHEAD = 30, 180
PRODID = "-//approvals-bot//team calendar//EN"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class FeedTokens:
    """Each person's one calendar-feed token: create (replacing the last), revoke, look up."""

    def __init__(self, store: Store, keys: OrgKeys, *, max_attempts: int = 25) -> None:
        self.store = store
        self.keys = keys
        self.max_attempts = max_attempts

    async def _swap(self, person_id: str, new: str | None) -> str | None:
        """Replace the person's token hash by `new` (None: none); returns the old hash."""
        mine, tokens = self.keys.feed_of(person_id), self.keys.feed_tokens
        for _ in range(self.max_attempts):
            [(version, old)] = await self.store.read(("hmget", [mine, "v", "token"]))
            tx = Tx().expect(mine, int(version or 0)).hincrby(mine, "v", 1)
            if old:
                tx.hdel(tokens, old)
            if new is None:
                tx.hdel(mine, "token")
            else:
                tx.hset(mine, "token", new).hset(tokens, new, person_id)
            try:
                await self.store.apply(tx)
                return old
            except Conflict:  # the same person clicked twice at once: read again
                continue
        raise StoreUnavailable("The calendar link could not be changed just now. Try again.")

    async def create(self, person_id: str) -> str:
        """A new secret token for the person; their previous one stops working at once."""
        token = secrets.token_urlsafe(32)
        await self._swap(person_id, token_hash(token))
        return token

    async def revoke(self, person_id: str) -> bool:
        """Stop the person's feed; False when they had none."""
        return await self._swap(person_id, None) is not None

    async def active(self, person_id: str) -> bool:
        [found] = await self.store.read(("hexists", [self.keys.feed_of(person_id), "token"]))
        return bool(found)

    async def person_of(self, token: str) -> str | None:
        """Whose live token this is; None for anything else (malformed, unknown, revoked)."""
        if not TOKEN_RE.fullmatch(token):
            return None
        [person] = await self.store.read(("hget", [self.keys.feed_tokens, token_hash(token)]))
        return person


async def team_leave(queries: Queries, person_id: str, today: date) -> list[OutEntry]:
    """Approved leave of the person's team (as who's-out defines it), themselves included."""
    team = queries.directory.team_of(person_id)
    start, end = today - timedelta(days=WINDOW_BACK), today + timedelta(days=WINDOW_AHEAD)
    out = await queries.who_is_out(person_id, start, end, team)
    return [o for o in out.entries if not o.tentative]


def to_ical(
    entries: Iterable[OutEntry],
    *,
    org: str,
    name: str,
    summary: Callable[[OutEntry], str],
    stamp: datetime,
) -> bytes:
    """An iCalendar of all-day events, one per leave: UID from the request, DTEND the day after."""
    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    cal.add("x-wr-calname", name)
    cal.add("refresh-interval", timedelta(hours=1), parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", "PT1H")
    for e in entries:
        event = Event()
        event.add("uid", f"{e.request_id}@{org}.approvals-bot")
        event.add("dtstamp", stamp)
        event.add("dtstart", e.start)
        event.add("dtend", e.end + timedelta(days=1))  # exclusive, as RFC 5545 has it
        event.add("summary", summary(e))
        event.add("transp", "TRANSPARENT")  # a colleague's leave does not make the reader busy
        cal.add_component(event)
    return cal.to_ical()
