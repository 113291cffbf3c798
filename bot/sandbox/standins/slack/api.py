"""The stand-in's Web API methods: request parameters in, Slack's response body out.

Each handler takes the workspace and the normalized parameters (form, query or JSON, with
JSON-encoded fields decoded) and returns the `ok: true` body or raises `StandInError`.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from bot.sandbox.standins.slack.common import (
    MARKDOWN_MAX,
    TEXT_MAX,
    StandInError,
    check_blocks,
    check_chunks,
    invalid_arguments,
)
from bot.sandbox.standins.slack.state import Workspace, ts_key

Params = dict[str, Any]
Handler = Callable[[Workspace, Params], dict[str, Any]]

HISTORY_LIMIT_MAX = 999


def _req(params: Params, name: str) -> Any:
    value = params.get(name)
    if value is None or value == "":
        raise invalid_arguments(f"missing required field: {name}")
    return value


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes")
    return bool(value)


def _public(message: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(message)


def _content(params: Params) -> tuple[str, list[dict[str, Any]] | None]:
    """The text and (checked) blocks of a message; `no_text` when it has neither."""
    text = params.get("text")
    markdown = params.get("markdown_text")
    blocks = params.get("blocks")
    if markdown and (text or blocks):
        raise StandInError("markdown_text_conflict")
    if not text and not markdown and not blocks and not params.get("attachments"):
        raise StandInError("no_text")
    text = str(text or markdown or "")
    if len(text) > TEXT_MAX:
        raise StandInError("msg_too_long")
    if blocks is not None and blocks != []:
        check_blocks(blocks)
    return text, (blocks if blocks else None)


# -- auth, users, conversations ---------------------------------------------------------


def auth_test(ws: Workspace, params: Params) -> dict[str, Any]:
    return {
        "ok": True,
        "url": ws.url,
        "team": ws.team_name,
        "user": ws.bot_name,
        "team_id": ws.team_id,
        "user_id": ws.bot_user_id,
        "bot_id": ws.bot_id,
        "is_enterprise_install": False,
    }


def _user_out(user: dict[str, Any], include_locale: bool) -> dict[str, Any]:
    if not include_locale:
        user.pop("locale", None)
    return user


def users_info(ws: Workspace, params: Params) -> dict[str, Any]:
    user = ws.user(_req(params, "user"))
    return {"ok": True, "user": _user_out(user, _flag(params.get("include_locale")))}


def users_list(ws: Workspace, params: Params) -> dict[str, Any]:
    """Every member, the bot included, `limit` a page with a `next_cursor` (as Slack pages)."""
    members = [ws.user(ws.bot_user_id), *ws.users()]
    limit = max(1, min(int(params.get("limit") or 200), 1000))
    cursor = str(params.get("cursor") or "")
    start = int(cursor.removeprefix("dXNlcjo")) if cursor else 0
    page = [
        _user_out(u, _flag(params.get("include_locale"))) for u in members[start : start + limit]
    ]
    more = start + limit < len(members)
    return {
        "ok": True,
        "members": page,
        "cache_ts": int(ws.clock()),
        "response_metadata": {"next_cursor": f"dXNlcjo{start + limit}" if more else ""},
    }


def users_lookup_by_email(ws: Workspace, params: Params) -> dict[str, Any]:
    return {"ok": True, "user": _user_out(ws.user_by_email(_req(params, "email")), False)}


def conversations_open(ws: Workspace, params: Params) -> dict[str, Any]:
    users = [u.strip() for u in str(params.get("users") or "").split(",") if u.strip()]
    if params.get("channel"):
        conv, existed = ws.conversation(params["channel"]), True
    elif len(users) == 1:
        conv, existed = ws.open_dm(users[0])
    elif not users:
        raise StandInError("users_list_not_supplied")
    else:
        raise StandInError("not_supported", ["[ERROR] multi-person DMs are not simulated"])
    channel = ws.im_object(conv) if _flag(params.get("return_im")) else {"id": conv.id}
    body: dict[str, Any] = {"ok": True, "channel": channel}
    if existed:
        body |= {"no_op": True, "already_open": True}
    return body


def _page(messages: list[dict[str, Any]], params: Params, default_limit: int) -> dict[str, Any]:
    limit = min(int(params.get("limit") or default_limit), HISTORY_LIMIT_MAX) or default_limit
    start = 0
    if params.get("cursor"):
        try:
            start = int(base64.b64decode(params["cursor"]).decode().removeprefix("offset:"))
        except ValueError as e:
            raise StandInError("invalid_cursor") from e
    page = messages[start : start + limit]
    more = start + limit < len(messages)
    cursor = base64.b64encode(f"offset:{start + limit}".encode()).decode() if more else ""
    return {
        "ok": True,
        "messages": page,
        "has_more": more,
        "response_metadata": {"next_cursor": cursor},
    }


def _in_range(messages: list[dict[str, Any]], params: Params) -> list[dict[str, Any]]:
    inclusive = _flag(params.get("inclusive"))
    oldest = ts_key(str(params["oldest"])) if params.get("oldest") else None
    latest = ts_key(str(params["latest"])) if params.get("latest") else None

    def keep(ts: Decimal) -> bool:
        if oldest is not None and (ts < oldest or (ts == oldest and not inclusive)):
            return False
        return latest is None or ts < latest or (ts == latest and inclusive)

    return [m for m in messages if keep(ts_key(m["ts"]))]


def conversations_history(ws: Workspace, params: Params) -> dict[str, Any]:
    messages = _in_range(ws.history(_req(params, "channel")), params)
    messages.reverse()  # newest first, as Slack answers
    body = _page(messages, params, 100)
    return body | {"pin_count": 0, "channel_actions_ts": None, "channel_actions_count": 0}


def conversations_replies(ws: Workspace, params: Params) -> dict[str, Any]:
    thread = ws.thread(_req(params, "channel"), _req(params, "ts"))
    parent, replies = thread[0], _in_range(thread[1:], params)
    return _page([parent, *replies], params, 1000)


# -- messages -------------------------------------------------------------------------


def chat_post_message(ws: Workspace, params: Params) -> dict[str, Any]:
    conv = ws.resolve_channel(_req(params, "channel"))
    text, blocks = _content(params)
    message = ws.post(
        conv,
        text=text,
        blocks=blocks,
        thread_ts=params.get("thread_ts") or None,
        metadata=params.get("metadata") or None,
        attachments=params.get("attachments") or None,
        reply_broadcast=_flag(params.get("reply_broadcast")),
    )
    return {"ok": True, "channel": conv.id, "ts": message["ts"], "message": _public(message)}


def chat_update(ws: Workspace, params: Params) -> dict[str, Any]:
    conv = ws.conversation(_req(params, "channel"))
    ts = _req(params, "ts")
    ws.message_in(conv, ts)
    _content(params)
    changes = {k: params[k] for k in ("text", "blocks", "attachments", "metadata") if k in params}
    if params.get("markdown_text"):
        changes["text"] = params["markdown_text"]
    message = ws.update(conv, ts, changes)
    return {
        "ok": True,
        "channel": conv.id,
        "ts": ts,
        "text": message["text"],
        "message": _public(message),
    }


def chat_delete(ws: Workspace, params: Params) -> dict[str, Any]:
    conv = ws.conversation(_req(params, "channel"))
    ts = _req(params, "ts")
    ws.delete(conv, ts)
    return {"ok": True, "channel": conv.id, "ts": ts}


def chat_post_ephemeral(ws: Workspace, params: Params) -> dict[str, Any]:
    conv = ws.conversation(_req(params, "channel"))
    user = _req(params, "user")
    text, blocks = _content(params)
    ephemeral = ws.post_ephemeral(
        conv, user, text=text, blocks=blocks, thread_ts=params.get("thread_ts") or None
    )
    return {"ok": True, "message_ts": ephemeral["ts"]}


def chat_get_permalink(ws: Workspace, params: Params) -> dict[str, Any]:
    conv = ws.conversation(_req(params, "channel"))
    link = ws.permalink(conv, _req(params, "message_ts"))
    return {"ok": True, "channel": conv.id, "permalink": link}


# -- streaming ------------------------------------------------------------------------


def _stream_chunks(params: Params) -> list[dict[str, Any]]:
    chunks = check_chunks(params.get("chunks"))
    if params.get("markdown_text"):
        chunks.insert(0, {"type": "markdown_text", "text": str(params["markdown_text"])})
    if sum(len(c.get("text", "")) for c in chunks if c["type"] == "markdown_text") > MARKDOWN_MAX:
        raise StandInError("msg_too_long")
    return chunks


def chat_start_stream(ws: Workspace, params: Params) -> dict[str, Any]:
    conv = ws.conversation(_req(params, "channel"))
    thread_ts = _req(params, "thread_ts")
    if not conv.is_im and not (params.get("recipient_user_id") and params.get("recipient_team_id")):
        raise invalid_arguments("recipient_user_id and recipient_team_id are required outside DMs")
    mode = params.get("task_display_mode")
    if mode not in (None, "timeline", "plan"):
        raise invalid_arguments("task_display_mode must be timeline or plan")
    message = ws.start_stream(conv, thread_ts, _stream_chunks(params), mode)
    return {"ok": True, "channel": conv.id, "ts": message["ts"]}


def chat_append_stream(ws: Workspace, params: Params) -> dict[str, Any]:
    conv = ws.conversation(_req(params, "channel"))
    ts = _req(params, "ts")
    chunks = _stream_chunks(params)
    if not chunks:
        raise invalid_arguments("one of markdown_text or chunks is required")
    ws.append_stream(conv, ts, chunks)
    return {"ok": True, "channel": conv.id, "ts": ts}


def chat_stop_stream(ws: Workspace, params: Params) -> dict[str, Any]:
    conv = ws.conversation(_req(params, "channel"))
    ts = _req(params, "ts")
    blocks = params.get("blocks") or None
    if blocks is not None:
        check_blocks(blocks)
    message = ws.stop_stream(
        conv, ts, _stream_chunks(params), blocks, params.get("metadata") or None
    )
    return {"ok": True, "channel": conv.id, "ts": ts, "message": _public(message)}


# -- assistant threads ------------------------------------------------------------------


def assistant_set_status(ws: Workspace, params: Params) -> dict[str, Any]:
    conv = ws.conversation(_req(params, "channel_id"))
    if params.get("status") is None:
        raise invalid_arguments("missing required field: status")
    loading = params.get("loading_messages")
    if isinstance(loading, str):
        loading = [m for m in loading.split(",") if m]
    ws.set_status(conv, _req(params, "thread_ts"), str(params["status"]), loading)
    return {"ok": True}


def assistant_set_title(ws: Workspace, params: Params) -> dict[str, Any]:
    conv = ws.conversation(_req(params, "channel_id"))
    ws.set_title(conv, _req(params, "thread_ts"), str(_req(params, "title")))
    return {"ok": True}


def assistant_set_suggested_prompts(ws: Workspace, params: Params) -> dict[str, Any]:
    conv = ws.conversation(_req(params, "channel_id"))
    prompts = _req(params, "prompts")
    if not isinstance(prompts, list) or not 1 <= len(prompts) <= 4:
        raise invalid_arguments("prompts must be an array of 1 to 4 items")
    if not all(isinstance(p, dict) and p.get("title") and p.get("message") for p in prompts):
        raise invalid_arguments("each prompt needs a title and a message")
    ws.set_suggested_prompts(conv, params.get("thread_ts") or "", prompts, params.get("title"))
    return {"ok": True}


# -- views ----------------------------------------------------------------------------


def views_open(ws: Workspace, params: Params) -> dict[str, Any]:
    view = ws.views.open(
        params.get("trigger_id") or params.get("interactivity_pointer"), params.get("view")
    )
    return {"ok": True, "view": view}


def views_push(ws: Workspace, params: Params) -> dict[str, Any]:
    view = ws.views.push(
        params.get("trigger_id") or params.get("interactivity_pointer"), params.get("view")
    )
    return {"ok": True, "view": view}


def views_update(ws: Workspace, params: Params) -> dict[str, Any]:
    view = ws.views.update(
        params.get("view"),
        view_id=params.get("view_id"),
        external_id=params.get("external_id"),
        hash=params.get("hash"),
    )
    return {"ok": True, "view": view}


def views_publish(ws: Workspace, params: Params) -> dict[str, Any]:
    view = ws.views.publish(params.get("user_id") or "", params.get("view"), params.get("hash"))
    return {"ok": True, "view": view}


HANDLERS: dict[str, Handler] = {
    "auth.test": auth_test,
    "users.info": users_info,
    "users.lookupByEmail": users_lookup_by_email,
    "users.list": users_list,
    "conversations.open": conversations_open,
    "conversations.history": conversations_history,
    "conversations.replies": conversations_replies,
    "chat.postMessage": chat_post_message,
    "chat.update": chat_update,
    "chat.delete": chat_delete,
    "chat.postEphemeral": chat_post_ephemeral,
    "chat.getPermalink": chat_get_permalink,
    "chat.startStream": chat_start_stream,
    "chat.appendStream": chat_append_stream,
    "chat.stopStream": chat_stop_stream,
    "assistant.threads.setStatus": assistant_set_status,
    "assistant.threads.setTitle": assistant_set_title,
    "assistant.threads.setSuggestedPrompts": assistant_set_suggested_prompts,
    "views.open": views_open,
    "views.push": views_push,
    "views.update": views_update,
    "views.publish": views_publish,
}
"""Every Web API method the stand-in answers; anything else is `unknown_method`."""
