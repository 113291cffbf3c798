"""The edge of POST /slack/events: verify, parse into typed models, answer repeats once, then hand to Bolt.

Nothing reaches Bolt that could crash it or our listeners:

- the signature headers are checked first (a non-numeric timestamp used to crash Bolt's own
  verification middleware with a traceback per request): malformed headers → 400, unsigned or
  a wrong or stale signature → 401, and each failure counts against the verification budget;
- the body is parsed exactly as Bolt parses it and then validated against the shape the
  listener for its kind relies on (a DM message has a user, a ts, a channel and text; a
  command has a user_id and a trigger_id; a click has a user and an action whose value
  fits; a form has the state and metadata its handler reads). A body that is not JSON (or a
  `payload=` that is not) is a 400; a signed request of a broken shape is acked with an
  empty 200 and nothing is done. Either way the log has one line with the reason;
- slash commands and view submissions, which are writes, are answered once (`bot.once`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Awaitable, Callable
from datetime import date
from typing import Annotated, Any, Literal

import redis.asyncio as aioredis
import structlog
from aiohttp import web
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.request.internals import parse_body
from slack_bolt.response import BoltResponse

from bot.budget import VerificationBudget, client_address
from bot.once import Answer, Once

log = structlog.get_logger("edge")
TIMESTAMP = re.compile(r"[0-9]{1,12}")
STALE_AFTER_S = 5 * 60  # Slack's own limit on a request's age (as slack_sdk's verifier)
MAX_DEPTH = 64  # Slack's own payloads nest about ten deep
Id = Annotated[str, StringConstraints(min_length=1, max_length=255)]
# `R…:<step>`: a request id and a step index of at most three digits (no 5,000-digit ints)
REQUEST_STEP = re.compile(r"[A-Za-z0-9_-]{1,64}:[0-9]{1,3}")
STEP_ACTIONS = frozenset({"request_approve", "request_reject"})
Obj = dict[str, Any]


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Team(_Model):
    id: str = ""


class User(_Model):
    id: Id


class DirectMessage(_Model):
    """A message event our DM listener acts on (in an IM, from a person, not an edit)."""

    channel: Id
    user: Id
    ts: Id
    text: str = ""
    thread_ts: Id | None = None


class HomeOpened(_Model):
    user: Id
    tab: str | None = None


class Event(_Model):
    type: str
    user: str | Obj | None = None  # Bolt takes the acting user from here
    message: Obj | None = None  # Bolt reads these of a message event with .get
    previous_message: Obj | None = None


class EventCallback(_Model):
    type: Literal["event_callback"]
    event: Event
    event_id: str | None = None
    team_id: str = ""


class SlashCommand(_Model):
    command: Id
    user_id: Id
    trigger_id: Id
    team_id: str = ""
    text: str = ""


class Action(_Model):
    action_id: Id
    value: str | None = None


class BlockActions(_Model):
    type: Literal["block_actions"]
    user: User
    team: Team | None = Field(default_factory=Team)
    actions: list[Action] = Field(min_length=1)
    trigger_id: str | None = None


class ViewState(_Model):
    values: dict[str, dict[str, dict[str, Any]]] = Field(default_factory=dict)


class View(_Model):
    id: Id
    type: str  # Bolt reads view.type of every submission
    callback_id: str = ""
    hash: str = ""
    private_metadata: str = ""
    state: ViewState = Field(default_factory=ViewState)


class ViewSubmission(_Model):
    type: Literal["view_submission"]
    user: User
    team: Team | None = Field(default_factory=Team)
    view: View


class RejectMetadata(BaseModel):
    """The reject modal's private_metadata."""

    request_id: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    step: int = Field(ge=0, le=999)


class Envelope(_Model):
    """What Bolt reads of any body before a listener runs (team, user, channel, event…)."""

    type: str | None = None
    event: Obj | None = None
    authorizations: list[Obj] | None = None
    enterprise: Obj | str | None = None
    team: Obj | str | None = None
    user: Obj | str | None = None
    channel: Obj | str | None = None
    view: Obj = Field(default_factory=dict)  # present means an object: Bolt reads it
    message: Obj | None = None
    previous_message: Obj | None = None
    container: Obj | None = None
    actions: list[Obj] | None = None
    is_ext_shared_channel: bool | None = None
    assistant_thread: Obj | None = None
    item: Obj | None = None
    team_id: str | None = None
    user_id: str | None = None
    channel_id: str | None = None
    enterprise_id: str | None = None
    thread_ts: str | None = None
    function_execution_id: str | None = None
    response_urls: list[Obj] | None = None

    @model_validator(mode="after")
    def _ids_are_text(self) -> Envelope:
        for part in (self.user, self.team, self.channel, self.enterprise):
            if isinstance(part, dict) and not isinstance(part.get("id", ""), str | None):
                raise ValueError("an id that is not text")
        # Bolt looks for the same ids inside these, all the way down (its extract_* recurse)
        inner = (self.event, self.item, self.assistant_thread, self.message, self.previous_message)
        for nested in (*inner, *(self.authorizations or [])[:1]):
            if nested is not None:
                Envelope.model_validate(nested)
        return self


# what reaches Bolt: events, the URL challenge, clicks, forms (None: a slash command)
KINDS = frozenset(
    {None, "event_callback", "url_verification", "block_actions", "view_submission", "view_closed"}
)


class Refused(Exception):
    """A request the edge answers itself: `status` 400/401 (not Slack's or malformed) or 200 (ignored)."""

    def __init__(self, status: int, reason: str) -> None:
        self.status = status
        self.reason = reason
        super().__init__(reason)


def depth(value: Any) -> int:
    """How deeply lists and objects nest in a parsed JSON value (iteratively: no recursion limit)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if deepest > MAX_DEPTH:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


def _reason(e: ValidationError) -> str:
    err = e.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "body"
    return f"{where}: {err['type']}"


def _iso_date(value: Any) -> bool:
    if value is None:
        return True
    try:
        date.fromisoformat(value)
    except (TypeError, ValueError):
        return False
    return True


def check_shape(body: dict[str, Any]) -> str | None:
    """Validate a parsed body against what its listener reads; returns its idempotency key (or None).

    Raises:
        Refused: (200) a signed request of a shape no listener can act on safely.
        ValidationError: the same, found by a model.
    """
    Envelope.model_validate(body)
    if "event" in body and not isinstance(body["event"], dict):
        raise Refused(200, "event: not an object")
    kind = body.get("type")
    if kind not in KINDS:
        raise Refused(200, f"type: {str(kind)[:40]!r} is not handled here")
    if kind == "event_callback":
        envelope = EventCallback.model_validate(body)
        event = envelope.event.model_dump()
        if event.get("type") == "message" and not (event.get("bot_id") or event.get("subtype")):
            if event.get("channel_type") == "im":
                DirectMessage.model_validate(event)
        elif event.get("type") == "app_home_opened":
            HomeOpened.model_validate(event)
        return None
    if "command" in body:
        command = SlashCommand.model_validate(body)
        return f"command:{command.trigger_id}"
    if kind == "block_actions":
        click = BlockActions.model_validate(body)
        first = click.actions[0]
        if first.action_id in STEP_ACTIONS and not REQUEST_STEP.fullmatch(first.value or ""):
            raise Refused(200, f"{first.action_id} value is not <request>:<step>")
        return None
    if kind == "view_submission":
        submission = ViewSubmission.model_validate(body)
        view = submission.view
        if view.callback_id == "reject_reason":
            RejectMetadata.model_validate_json(view.private_metadata or "{}")
        if view.callback_id == "delegation_form":
            for block in ("start", "end"):
                picked = view.state.values.get(block, {}).get(block, {}).get("selected_date")
                if not _iso_date(picked):
                    raise Refused(200, f"view.state.values.{block}: not a date")
        state = json.dumps(view.state.values, sort_keys=True, ensure_ascii=False)
        digest = hashlib.sha256(state.encode()).hexdigest()[:32]
        return f"view:{view.id}:{view.hash}:{digest}"
    return None


class SlackEdge:
    """What stands between the internet and Bolt."""

    def __init__(
        self,
        signing_secret: str,
        redis: aioredis.Redis,
        budget: VerificationBudget | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._secret = signing_secret.encode()
        self._clock = clock
        self.budget = budget if budget is not None else VerificationBudget()
        self.budget.share(redis)  # one total for every process on this Redis
        self.once = Once(redis, "slack")

    def verify(self, body: bytes | str, headers: Any) -> None:
        """Check the signature headers before anything else reads the body (text: as UTF-8).

        Slack's scheme (v0=HMAC-SHA256 of `v0:<timestamp>:<body>`), computed over the bytes
        as they came: slack_sdk's verifier wants text, and decoding then re-encoding a
        body was a third of the check's CPU on every ack.

        Raises:
            Refused: 400 malformed headers; 401 unsigned, or a wrong or stale signature.
        """
        ts = headers.get("X-Slack-Request-Timestamp")
        sig = headers.get("X-Slack-Signature")
        if ts and not TIMESTAMP.fullmatch(ts):
            raise Refused(400, "the timestamp is not a number")
        if not ts or not sig:
            raise Refused(401, "unsigned")
        try:
            data = body if isinstance(body, bytes) else body.encode()
            given = sig.encode()
        except UnicodeEncodeError:
            raise Refused(401, "the signature does not match or is stale") from None
        fresh = abs(self._clock() - int(ts)) <= STALE_AFTER_S
        mac = hmac.new(self._secret, b"v0:%s:%s" % (ts.encode(), data), hashlib.sha256)
        if not (fresh and hmac.compare_digest(b"v0=" + mac.hexdigest().encode(), given)):
            raise Refused(401, "the signature does not match or is stale")

    @staticmethod
    def parse(text: str, content_type: str | None) -> dict[str, Any]:
        """The body as Bolt will read it.

        Raises:
            Refused: (400) not JSON, a `payload=` that is not JSON, or not an object.
        """
        try:
            body = parse_body(text, content_type)
        except (ValueError, RecursionError):
            raise Refused(400, "the body is not JSON (or its payload is not)") from None
        if not isinstance(body, dict):
            raise Refused(400, "the body is not a JSON object")
        if depth(body) > MAX_DEPTH:
            raise Refused(400, f"the body nests deeper than {MAX_DEPTH}")
        return body

    async def handle(
        self, request: web.Request, dispatch: Callable[[web.Request], Awaitable[BoltResponse]]
    ) -> web.Response:
        """Verify, parse and validate; then dispatch to Bolt (once per write request)."""
        client = client_address(request.remote)
        if self.budget.client_blocked(client):
            return _answer(429, "too many failed attempts")
        unsigned = not (
            request.headers.get("X-Slack-Signature")
            and request.headers.get("X-Slack-Request-Timestamp")
        )
        if unsigned and await self.budget.exhausted():
            return _answer(429, "too many failed attempts")  # under attack: only signed ones
        raw = await request.read()
        try:
            text = raw.decode(request.charset or "utf-8")
        except (UnicodeDecodeError, LookupError):
            text = None
        try:
            if text is None:
                self.verify("", request.headers)  # unsigned or forged stays 401
                raise Refused(400, "the body is not text in its charset")
            try:
                self.verify(text, request.headers)
            except Refused:
                await self.budget.failed(client)
                raise
            body = self.parse(text, request.content_type)
            try:
                key = check_shape(body)
            except ValidationError as e:
                raise Refused(200, _reason(e)) from None
        except Refused as e:
            log.info("slack_request_refused", status=e.status, reason=e.reason, client=client)
            return _answer(e.status, "" if e.status == 200 else e.reason)
        if key is None:
            return await to_aiohttp_response(await dispatch(request))
        answer = await self.once.run(key, lambda: _kept(dispatch(request)))
        return web.Response(
            status=answer.status, body=answer.body.encode(), content_type=answer.content_type
        )


async def _kept(response: Awaitable[BoltResponse]) -> Answer:
    r = await response
    kind = (r.headers.get("content-type") or ["text/plain"])[0].split(";")[0].strip()
    return Answer(r.status, kind or "text/plain", r.body or "")


def _answer(status: int, text: str) -> web.Response:
    return web.Response(status=status, text=text)
