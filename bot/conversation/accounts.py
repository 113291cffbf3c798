"""Who sent a platform event: the directory person behind a chat account, the same way on every platform.

The directory's own account id decides first; otherwise the email the platform gives for the
account (Slack's `users.info`, Feishu's contact API) is matched to the directory, and the
answer, "nobody" included, is remembered a day. The platform only says how to ask for the email.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
import structlog

from workflow.config import Person
from workflow.directory import Directory

log = structlog.get_logger("identity")
CACHE_S = 86_400  # refreshed daily: an email changed on the platform is picked up the next day
NOBODY = "-"

# the account's email ("" when it has none); None when the platform could not say (not remembered)
EmailOf = Callable[[str], Awaitable[str | None]]


async def person_for_account(
    directory: Directory,
    redis: aioredis.Redis,
    platform: str,
    account: str,
    key: str,
    email_of: EmailOf,
) -> Person | None:
    """The person behind `account` on `platform`, or None for someone not in the directory.

    `key` is where the answer is remembered; whatever `email_of` raises is left to the caller.
    """
    person = directory.by_account(platform, account)
    if person is not None:
        return person
    cached = await redis.get(key)
    if cached is not None:
        return None if cached == NOBODY else directory.find(cached)
    email = await email_of(account)
    if email is None:
        return None  # not remembered: the next event asks again
    person = directory.by_email(email) if email else None
    await redis.set(key, person.id if person else NOBODY, ex=CACHE_S)
    log.info("account_mapped", platform=platform, account=account, person=person and person.id)
    return person
