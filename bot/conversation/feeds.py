"""The team calendar feed, once for every surface: a new secret link, or the link turned off.

Slack's Home tab buttons, Feishu's menu and card, and the terminal's `/calendar` call these
and show the `Answer` their own way; the feed itself is served by bot/calendar_route.py.
"""

from __future__ import annotations

import structlog

from bot.conversation.interactions import Answer
from bot.wording import say
from workflow.config import Person
from workflow.engine import Engine
from workflow.feed import FeedTokens

log = structlog.get_logger("calendar_feed")


class CalendarFeeds:
    """Each person's calendar-feed link over one engine; links start with `base_url`."""

    def __init__(self, engine: Engine, base_url: str) -> None:
        self.engine = engine
        self.tokens = FeedTokens(engine.store, engine.keys)
        self.base_url = base_url.rstrip("/")

    async def create(self, person: Person, locale: str | None = None) -> Answer:
        """A new link for the person (their last one stops working), with how to subscribe."""
        locale = locale or person.locale
        token = await self.tokens.create(person.id)
        url = f"{self.base_url}/calendar/{token}.ics"
        log.info("calendar_feed_created", person=person.id)  # never the token
        return Answer(True, say("feed.created", locale, url=url), "success", locale=locale)

    async def revoke(self, person: Person, locale: str | None = None) -> Answer:
        """Turn the person's link off; the next fetch of it is answered 404."""
        locale = locale or person.locale
        if not await self.tokens.revoke(person.id):
            return Answer(False, say("feed.none", locale), "info", locale=locale)
        log.info("calendar_feed_revoked", person=person.id)
        return Answer(True, say("feed.revoked", locale), "success", locale=locale)

    async def active(self, person: Person) -> bool:
        return await self.tokens.active(person.id)
