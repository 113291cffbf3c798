"""The edge of POST /feishu/events: the uniform answers to what is refused, and the shapes we accept.

Every refused callback gets the same answer for the same status, whatever the reason (the
reason goes to the log only): a client that cannot sign learns nothing from our answers.
An authenticated event whose shape its handler cannot read is acked (200) and dropped, with
one log line saying why; a card click is answered once per callback id.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Annotated, Any

from aiohttp import web
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Json,
    StringConstraints,
    ValidationError,
    model_validator,
)

from bot.conversation.buttons import SELF_ACTIONS
from bot.once import Answer

_MESSAGES = {400: "bad request", 401: "unauthorized", 429: "too many failed attempts"}


def rejected(status: int = 401) -> web.Response:
    """The one answer to a refused callback of this status (400 malformed, 401 not Feishu's)."""
    return web.json_response({"msg": _MESSAGES.get(status, "unauthorized")}, status=status)


def too_many() -> web.Response:
    """The answer once a client spent its budget of failed verifications."""
    return rejected(429)


# --- the shapes our handlers read --------------------------------------------------------------

Id = Annotated[str, StringConstraints(min_length=1, max_length=255)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Header(_Model):
    event_type: str = ""
    event_id: Id | None = None
    tenant_key: str | None = None


class SenderId(_Model):
    open_id: str | None = None


class Sender(_Model):
    sender_type: str = ""
    sender_id: SenderId | None = None


class Message(_Model):
    message_id: Id
    chat_id: str | None = None
    chat_type: str = ""
    message_type: str = ""
    content: str | None = None
    root_id: str | None = None
    mentions: list[dict[str, Any]] | None = None


class MessageEvent(_Model):
    sender: Sender
    message: Message


class Operator(_Model):
    open_id: str | None = None


class ButtonValue(_Model):
    """What our buttons carry: the action, and the pending id or the request and step it acts on."""

    action: Id
    pending_id: Id | None = None
    request_id: Id | None = None
    step: Annotated[int, Field(ge=0, le=999)] | None = None  # never a 5,000-digit int

    @model_validator(mode="after")
    def _fits(self) -> ButtonValue:
        if self.action in SELF_ACTIONS:  # a form's Submit (values in form_value), a calendar link
            return self
        wanted = "pending_id" if self.action.startswith("pending_") else "request_id"
        if getattr(self, wanted) is None or (wanted == "request_id" and self.step is None):
            raise ValueError(f"a {self.action} button without its {wanted}")
        return self


class CardAction(_Model):
    value: Json[ButtonValue] | ButtonValue
    form_value: dict[str, Any] | None = None


class Context(_Model):
    open_message_id: str | None = None


class CardEvent(_Model):
    operator: Operator
    action: CardAction
    context: Context | None = None
    token: str | None = None


def check_event(kind: str, header: dict[str, Any], event: dict[str, Any]) -> str | None:
    """Validate an authenticated event against what its handler reads; the click's id for `Once`.

    Raises:
        ValidationError: a shape the handler cannot act on (answer 200, do nothing).
    """
    head = Header.model_validate(header)
    if kind == "im.message.receive_v1":
        MessageEvent.model_validate(event)
        return None
    if kind == "card.action.trigger":
        card = CardEvent.model_validate(event)
        return head.event_id or card.token
    return None


def reason_of(e: ValidationError) -> str:
    """One short line for the log: where the shape broke and how."""
    err = e.errors()[0]
    return ".".join(str(p) for p in err["loc"]) + f": {err['type']}"


async def kept(answer: Awaitable[dict[str, Any]]) -> Answer:
    """A card callback's JSON answer, as `Once` keeps it."""
    return Answer(200, "application/json", json.dumps(await answer, ensure_ascii=False))
