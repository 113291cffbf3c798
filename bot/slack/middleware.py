"""Bolt middleware that runs before every listener: Slack's retries dropped, the person in the context.

`drop_retries` answers an event Slack delivers again (same `event_id`) with 200 and runs no
listener; `person_in_context` maps the Slack user who sent the request to a directory person
(`context["person"]`, None for someone not in the directory). Listeners never look either up.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions
import structlog
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot.slack.errors import SlackCallFailed
from bot.slack.identity import SlackIdentity
from workflow.keys import event_seen

log = structlog.get_logger("slack")
SEEN_TTL_S = 3600  # Slack retries within minutes; an hour of memory drops every retry
PERSON = "person"

Next = Callable[[], Awaitable[None]]


def drop_retries(store: aioredis.Redis) -> Callable[..., Awaitable[BoltResponse | None]]:
    """Middleware: an event id seen before is acked and dropped (a retry must not run twice)."""

    async def middleware(
        body: dict[str, Any], req: AsyncBoltRequest, next: Next
    ) -> BoltResponse | None:
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        if not event_id:
            await next()
            return None
        try:
            first = bool(
                await store.set(event_seen("slack", event_id), "1", nx=True, ex=SEEN_TTL_S)
            )
        except (redis.exceptions.RedisError, OSError) as e:
            # a retry of an event we already took must not run a second turn; a first
            # delivery goes ahead, so the person is answered (if only that the store is down)
            retried = bool((req.headers or {}).get("x-slack-retry-num"))
            log.error("slack_dedupe_unavailable", error=repr(e)[:200], retry=retried)
            first = not retried
        if not first:
            log.info("slack_event_duplicate", event_id=event_id)
            return BoltResponse(status=200, body="")
        await next()
        return None

    return middleware


def person_in_context(identity: SlackIdentity) -> Callable[..., Awaitable[None]]:
    """Middleware: `context["person"]`, the directory person behind the Slack user (or None)."""

    async def middleware(body: dict[str, Any], context: AsyncBoltContext, next: Next) -> None:
        event = body.get("event") if isinstance(body.get("event"), dict) else {}
        user = context.user_id if isinstance(context.user_id, str) else None
        if user and not event.get("bot_id"):  # the bot's own messages are nobody's
            try:
                context[PERSON] = await identity.person_for(context.team_id or "", user)
            except SlackCallFailed as e:  # the listener's turn asks again, and says so if it fails
                log.warning("slack_identity_unavailable", user=user, error=e.code)
                context[PERSON] = None
        else:
            context[PERSON] = None
        await next()

    return middleware
