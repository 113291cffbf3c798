"""What the page may send to /sandbox/… (Slack and Feishu): one pydantic model per action, read at the edge.

A body that is not a JSON object, or whose fields are missing or of the wrong type, is a
400 with a sentence naming the field — before anything is posted to a stand-in or a bot,
so a refused request changes nothing. Both halves of the page API (`bot.sandbox.api`,
`bot.sandbox.feishu`) read their bodies and answer their refusals here.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, TypeVar

import structlog
from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

log = structlog.get_logger("sandbox")
TEXT_MAX = 4000
Id = Annotated[str, StringConstraints(min_length=1, max_length=255)]
Text = Annotated[str, StringConstraints(max_length=TEXT_MAX)]
Said = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=TEXT_MAX)]
STATUS_CLASSES: dict[int, type[web.HTTPException]] = {
    400: web.HTTPBadRequest,
    404: web.HTTPNotFound,
    409: web.HTTPConflict,
}


def refused(status: int, message: str) -> web.HTTPException:
    """The page API's answer to a request it will not act on: `{"ok": false, "error": …}`."""
    return STATUS_CLASSES[status](
        text=json.dumps({"ok": False, "error": message}), content_type="application/json"
    )


class Body(BaseModel):
    """A page request: strict types (no "5" for 5, no true for 1), unknown keys ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class SlackPerson(Body):
    user: Id


class MessageBody(SlackPerson):
    text: Said
    thread_ts: Id | None = None


class CommandBody(SlackPerson):
    command: Said
    text: Text = ""
    thread_ts: Id | None = None


class ClickBody(SlackPerson):
    action_id: Id
    block_id: Id | None = None
    value: Text | None = None
    view_id: Id | None = None
    channel: Id | None = None
    ts: Id | None = None
    # the ticked checkboxes of the message or view, as Slack's state.values
    values: dict[str, Any] = Field(default_factory=dict)


class ViewSubmitBody(SlackPerson):
    view_id: Id
    values: dict[str, Any] = Field(default_factory=dict)


class ViewCloseBody(SlackPerson):
    view_id: Id


class DismissBody(SlackPerson):
    ts: Id


class FeishuMessageBody(Body):
    open_id: Id
    text: Said
    root_id: Id | None = None


class FeishuMenuBody(Body):
    open_id: Id
    event_key: Id


class FeishuClickBody(Body):
    open_id: Id
    message_id: Id
    button: int = Field(ge=0, le=1000)
    value: Any = None  # when sent: must equal the button's value (the card did not change)
    form_value: dict[str, Any] | None = None


B = TypeVar("B", bound=Body)


def _sentence(error: ValidationError) -> str:
    """The first problem as a sentence naming the field ("text is required")."""
    first = error.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "the body"
    kind = first["type"]
    if kind == "missing":
        return f"{field} is required"
    if kind == "string_too_short":
        return f"{field} is required"
    if kind == "string_too_long":
        return f"{field} is longer than {TEXT_MAX} characters"
    return f"{field}: {first['msg']}"


async def read_body(request: web.Request, model: type[B]) -> B:
    """The request's JSON body as `model`.

    Raises:
        HTTPBadRequest: not a JSON object (not UTF-8, not JSON, nested too deep), or a field
            missing or of the wrong type; logged once with the reason.
    """
    raw = await request.read()
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        data = None
    if not isinstance(data, dict):
        log.info("sandbox_body_refused", path=request.path, reason="not a JSON object")
        raise refused(400, "the body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as e:
        reason = _sentence(e)
        log.info("sandbox_body_refused", path=request.path, reason=reason)
        raise refused(400, reason) from None
