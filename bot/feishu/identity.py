"""Who a Feishu user is: the directory person, by the directory's open_id or the account's email.

As on Slack (`users.info`), someone whose directory entry has no Feishu account is matched
by email through the contact API, both ways: the sender of an event (open_id → email →
person) and the recipient of a notice (person → email → open_id). Answers are cached a day.
"""

from __future__ import annotations

import redis.asyncio as aioredis
import structlog

from bot.conversation.accounts import CACHE_S, NOBODY, person_for_account
from bot.feishu.client import FeishuClient
from bot.feishu.errors import FeishuError
from workflow.config import Person
from workflow.directory import Directory
from workflow.keys import platform_account, platform_person

log = structlog.get_logger("feishu")
PLATFORM = "feishu"


class FeishuIdentity:
    """Maps Feishu users to people and people to Feishu users; the platform says who, never the text."""

    def __init__(self, directory: Directory, redis: aioredis.Redis, client: FeishuClient) -> None:
        self.directory = directory
        self.redis = redis
        self.client = client

    async def person_for(self, open_id: str) -> Person | None:
        """The person behind a Feishu user, or None for someone not in the directory.

        Raises:
            FeishuError: the contact API failed other than in Feishu's own words (an HTML
                page, a 405, a 5xx, no answer): not the same as "not in the directory".
        """
        if not open_id:
            return None
        key = platform_person(PLATFORM, open_id)
        return await person_for_account(
            self.directory, self.redis, PLATFORM, open_id, key, self._email_of
        )

    async def _email_of(self, open_id: str) -> str | None:
        try:
            return await self.client.email_of(open_id) or ""
        except FeishuError as e:
            if not e.plain:
                raise  # Feishu failed: the turn says so
            log.warning("feishu_contact_lookup_failed", open_id=open_id, error=str(e))
            return None

    async def open_id_for(self, person: Person) -> str | None:
        """A person's open_id: from the directory, else looked up by email (None: not on Feishu).

        Raises:
            FeishuError: the contact API failed other than in Feishu's own words (the
                notifier retries the notice instead of dropping it).
        """
        if person.feishu_open_id:
            return person.feishu_open_id
        key = platform_account(PLATFORM, person.id)
        cached = await self.redis.get(key)
        if cached is not None:
            return None if cached == NOBODY else cached
        try:
            open_id = await self.client.open_id_by_email(person.email)
        except FeishuError as e:
            if not e.plain:
                raise
            log.warning("feishu_contact_lookup_failed", person=person.id, error=str(e))
            return None
        await self.redis.set(key, open_id or NOBODY, ex=CACHE_S)
        return open_id
