"""Who a Slack user is: the directory person, from the directory's Slack id or the account's email."""

from __future__ import annotations

import redis.asyncio as aioredis
import structlog
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation.accounts import CACHE_S, person_for_account
from bot.slack.errors import SlackCallFailed
from workflow.config import Person
from workflow.directory import Directory
from workflow.keys import slack_dm_channel, slack_user

log = structlog.get_logger("slack")
PLATFORM = "slack"
# what users.info answers for someone we cannot map; any other failure is Slack failing
UNKNOWN_USER = frozenset(
    {"user_not_found", "users_not_found", "user_not_visible", "account_inactive"}
)


class SlackIdentity:
    """Maps Slack users to people and people to their DM channels; the platform says who, never the text."""

    def __init__(self, directory: Directory, redis: aioredis.Redis, client: AsyncWebClient) -> None:
        self.directory = directory
        self.redis = redis
        self.client = client

    async def person_for(self, team_id: str, user_id: str) -> Person | None:
        """The person behind a Slack user, or None for someone not in the directory.

        Raises:
            SlackCallFailed: users.info failed in any way other than "no such user".
        """
        key = slack_user(team_id, user_id)
        return await person_for_account(
            self.directory, self.redis, PLATFORM, user_id, key, self._email_of
        )

    async def _email_of(self, user_id: str) -> str | None:
        """users.info's email for the user ("" without one; None: no such user, as Slack says).

        Raises:
            SlackCallFailed: users.info failed in any way other than "no such user".
        """
        try:
            info = await self.client.users_info(user=user_id)
        except SlackApiError as e:
            failed = SlackCallFailed.of("users.info", e)
            if failed.code not in UNKNOWN_USER:
                raise failed from e  # Slack failed: not the same as "not in the directory"
            log.warning("slack_users_info_failed", user=user_id, error=failed.code)
            return None  # not remembered: the next message tries again
        user = info.get("user")
        profile = user.get("profile") if isinstance(user, dict) else None
        email = profile.get("email") if isinstance(profile, dict) else None
        return email if isinstance(email, str) else ""

    async def user_id_for(self, person: Person) -> str | None:
        """The Slack user id of a person: from the directory, else looked up by email.

        Raises:
            SlackCallFailed: the lookup failed other than "no such user" (the notifier
                retries the notice instead of dropping it as "not on Slack").
        """
        if person.slack_user_id:
            return person.slack_user_id
        try:
            found = await self.client.users_lookupByEmail(email=person.email)
        except SlackApiError as e:
            failed = SlackCallFailed.of("users.lookupByEmail", e)
            if failed.code not in UNKNOWN_USER:
                raise failed from e
            return None
        return (found.get("user") or {}).get("id")

    async def dm_channel(self, team_id: str, person: Person) -> str | None:
        """The DM channel with a person (conversations.open, remembered)."""
        key = slack_dm_channel(team_id, person.id)
        cached = await self.redis.get(key)
        if cached:
            return cached
        user_id = await self.user_id_for(person)
        if user_id is None:
            return None
        opened = await self.client.conversations_open(users=user_id)
        channel = opened["channel"]["id"]
        await self.redis.set(key, channel, ex=30 * CACHE_S)
        return channel
