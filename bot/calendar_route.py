"""GET /calendar/{token}.ics: a person's team leave as iCalendar, for calendar subscriptions.

Google Calendar, Outlook and Feishu fetch the URL on their own schedule, with no login: the
token is the only credential (see workflow/feed.py). Anything but a live token of someone in
the directory — malformed, unknown, revoked, or the person has left — is answered 404 with no
body, and counts against the client's budget of failed verifications (bot/budget.py), so
guessing is answered 429 without work. Subscribers poll: the answer carries an ETag and a
short private cache life, and an unchanged feed is a 304.
"""

from __future__ import annotations

import hashlib
import json

import structlog
from aiohttp import web

from bot.budget import VerificationBudget, client_address
from bot.wording import say, team_text
from workflow.engine import Engine
from workflow.feed import FeedTokens, team_leave, to_ical
from workflow.queries import OutEntry

log = structlog.get_logger("calendar_feed")
ROUTE = "/calendar/{token}.ics"
# Subscribing apps poll every few hours at best; a quarter of an hour spares a burst of refreshes.
CACHE_CONTROL = "private, max-age=900"
_PRIVATE = {"Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex, nofollow"}


def _etag(entries: list[OutEntry], locale: str, team: str) -> str:
    """A tag of what the feed says (not of its DTSTAMPs, which change on every fetch)."""
    facts = [
        (e.request_id, e.person, e.name, e.start.isoformat(), e.end.isoformat()) for e in entries
    ]
    digest = hashlib.sha256(json.dumps([locale, team, facts]).encode()).hexdigest()
    return f'"{digest[:32]}"'


class CalendarRoute:
    """The feed's handler over one engine and one budget of failed lookups."""

    def __init__(self, engine: Engine, budget: VerificationBudget) -> None:
        self.engine = engine
        self.tokens = FeedTokens(engine.store, engine.keys)
        self.budget = budget

    def add_to(self, app: web.Application) -> None:
        app.router.add_get(ROUTE, self.handle)

    async def handle(self, request: web.Request) -> web.Response:
        client = client_address(request.remote)
        if self.budget.client_blocked(client) or await self.budget.exhausted():
            return web.Response(status=429, headers={"Retry-After": "60", **_PRIVATE})
        person_id = await self.tokens.person_of(request.match_info["token"])
        person = self.engine.directory.find(person_id) if person_id else None
        if person is None:
            await self.budget.failed(client)
            log.info("calendar_feed_not_found", client=client)  # never the token
            return web.Response(status=404, headers=_PRIVATE)
        engine = self.engine
        entries = await team_leave(engine, person.id, engine.today_for(person.id))
        team = team_text(engine, person.id, person.locale)
        tag = _etag(entries, person.locale, team)
        headers = {"ETag": tag, "Cache-Control": CACHE_CONTROL, **_PRIVATE}
        if tag in request.headers.get("If-None-Match", ""):
            return web.Response(status=304, headers=headers)
        body = to_ical(
            entries,
            org=engine.keys.org,
            name=say("feed.calendar_name", person.locale, team=team),
            summary=lambda e: say("feed.event", person.locale, name=e.name),
            stamp=engine.clock.now(),
        )
        return web.Response(
            body=body, content_type="text/calendar", charset="utf-8", headers=headers
        )
