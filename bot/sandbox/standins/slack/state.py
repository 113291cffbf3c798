"""The stand-in's workspace: users, conversations, messages, ephemerals, statuses and streams.

Pure state, no HTTP: `api` turns Web API parameters into calls here, and the
sandbox calls it directly (a person typing, a modal closing). Every change is published to
subscribers as a small JSON-able record. Views live in `views`.
"""

from __future__ import annotations

import asyncio
import copy
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from bot.sandbox.standins.slack.changes import CHANGE_QUEUE_SIZE, ChangeFeed
from bot.sandbox.standins.slack.common import StandInError, slack_id
from bot.sandbox.standins.slack.streams import apply_chunks, new_stream
from bot.sandbox.standins.slack.users import bot_object, person_object
from bot.sandbox.standins.slack.views import Views


def ts_key(ts: str) -> Decimal:
    """A Slack timestamp as an exact number, for ordering and ranges."""
    try:
        return Decimal(ts)
    except (InvalidOperation, TypeError) as e:
        raise StandInError("invalid_ts_latest" if ts else "invalid_arguments") from e


@dataclass
class Conversation:
    """A DM (`D…`, with `user`) or a channel (`C…`); messages keyed by ts, oldest first."""

    id: str
    is_im: bool
    created: int
    user: str | None = None
    name: str | None = None
    members: set[str] = field(default_factory=set)
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)


class Workspace:
    """One Slack workspace as the bot sees it, kept in memory."""

    def __init__(
        self,
        *,
        team_id: str = "T0STANDIN1",
        team_name: str = "Approvals Sandbox",
        team_domain: str = "approvals-sandbox",
        bot_user_id: str = "U0APPROVALS",
        bot_id: str = "B0APPROVALS",
        app_id: str = "A0APPROVALS",
        bot_name: str = "approvals",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.team_id = team_id
        self.team_name = team_name
        self.team_domain = team_domain
        self.bot_user_id = bot_user_id
        self.bot_id = bot_id
        self.app_id = app_id
        self.bot_name = bot_name
        self.clock = clock
        self._ts_sec = 0
        self._ts_seq = 0
        self._users: dict[str, dict[str, Any]] = {}
        self._conversations: dict[str, Conversation] = {}
        self._dm_by_user: dict[str, str] = {}
        self._ephemerals: dict[str, list[dict[str, Any]]] = {}
        self._statuses: dict[tuple[str, str], dict[str, Any]] = {}
        self._titles: dict[tuple[str, str], str] = {}
        self._prompts: dict[tuple[str, str], dict[str, Any]] = {}
        self.feed = ChangeFeed(clock)
        self.views = Views(self)
        self._users[bot_user_id] = bot_object(
            team_id, bot_user_id, bot_id, app_id, bot_name, now=clock()
        )

    # -- time and ids ---------------------------------------------------------------

    def next_ts(self) -> str:
        """A message timestamp strictly greater than every one issued before."""
        sec = int(self.clock())
        if sec <= self._ts_sec:
            sec, seq = self._ts_sec, self._ts_seq + 1
            if seq > 999_999:
                sec, seq = sec + 1, 0
        else:
            seq = 0
        self._ts_sec, self._ts_seq = sec, seq
        return f"{sec}.{seq:06d}"

    @property
    def url(self) -> str:
        """The workspace URL `auth.test` reports."""
        return f"https://{self.team_domain}.slack.com/"

    # -- users ------------------------------------------------------------------------

    def add_user(
        self,
        user_id: str,
        name: str,
        real_name: str | None = None,
        email: str | None = None,
        tz: str = "UTC",
        locale: str = "en-US",
        *,
        display_name: str = "",
        title: str = "",
        is_admin: bool = False,
        profile_fields: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """Register (or replace) a person; returns the user object `users.info` answers with.

        `profile_fields` are custom profile fields (field id → value), e.g. a manager's user id.
        """
        user = person_object(
            self.team_id,
            user_id,
            name,
            real_name=real_name,
            email=email,
            tz=tz,
            locale=locale,
            display_name=display_name,
            title=title,
            is_admin=is_admin,
            now=self.clock(),
        )
        if profile_fields:
            user["profile"]["fields"] = {
                k: {"value": v, "alt": ""} for k, v in profile_fields.items()
            }
        self._users[user_id] = user
        return copy.deepcopy(user)

    def user(self, user_id: str) -> dict[str, Any]:
        """The user object (a copy), or `user_not_found`."""
        if user_id not in self._users:
            raise StandInError("user_not_found")
        return copy.deepcopy(self._users[user_id])

    def users(self) -> list[dict[str, Any]]:
        """Every registered person (not the bot), in registration order."""
        return [copy.deepcopy(u) for u in self._users.values() if not u["is_bot"]]

    def user_by_email(self, email: str) -> dict[str, Any]:
        """The user with this email (case-insensitive), or `users_not_found`."""
        wanted = email.strip().lower()
        for user in self._users.values():
            if (user["profile"].get("email") or "").lower() == wanted:
                return copy.deepcopy(user)
        raise StandInError("users_not_found")

    # -- conversations ------------------------------------------------------------------

    def open_dm(self, user_id: str) -> tuple[Conversation, bool]:
        """The bot's DM with a person, created on first use; also whether it already existed."""
        if user_id not in self._users:
            raise StandInError("user_not_found")
        if user_id == self.bot_user_id:
            raise StandInError("cannot_dm_bot")
        if user_id in self._dm_by_user:
            return self._conversations[self._dm_by_user[user_id]], True
        conv = Conversation(
            id=slack_id("D", self.team_id, user_id),
            is_im=True,
            created=int(self.clock()),
            user=user_id,
            members={user_id, self.bot_user_id},
        )
        self._conversations[conv.id] = conv
        self._dm_by_user[user_id] = conv.id
        return conv, False

    def dm_channel(self, user_id: str) -> str:
        """The id of the bot's DM with this person (`D…`, stable per person)."""
        return self.open_dm(user_id)[0].id

    def add_channel(self, channel_id: str, name: str, members: tuple[str, ...] = ()) -> str:
        """Create a channel the bot is a member of; returns its id."""
        if channel_id[:1] not in ("C", "G"):
            raise ValueError(f"Slack channel ids start with C or G, not {channel_id!r}")
        self._conversations[channel_id] = Conversation(
            id=channel_id,
            is_im=False,
            created=int(self.clock()),
            name=name,
            members={*members, self.bot_user_id},
        )
        return channel_id

    def conversation(self, channel: str) -> Conversation:
        """A conversation by id, or `channel_not_found`."""
        conv = self._conversations.get(channel or "")
        if conv is None:
            raise StandInError("channel_not_found")
        return conv

    def resolve_channel(self, channel: str) -> Conversation:
        """Like `conversation`, but a user id means the bot's DM with them (as chat.postMessage does)."""
        if channel[:1] in ("U", "W") and channel in self._users:
            return self.open_dm(channel)[0]
        return self.conversation(channel)

    def im_object(self, conv: Conversation) -> dict[str, Any]:
        """The channel object `conversations.open` returns with `return_im`."""
        latest = next(reversed(conv.messages.values()), None)
        return {
            "id": conv.id,
            "created": conv.created,
            "is_im": conv.is_im,
            "is_org_shared": False,
            "user": conv.user,
            "is_user_deleted": False,
            "priority": 0,
            "last_read": "0000000000.000000",
            "latest": copy.deepcopy(latest),
            "unread_count": 0,
            "unread_count_display": 0,
            "is_open": True,
        }

    # -- messages ---------------------------------------------------------------------

    def _thread_root(self, conv: Conversation, thread_ts: str) -> dict[str, Any]:
        parent = conv.messages.get(thread_ts)
        if parent is None:
            raise StandInError("thread_not_found")
        root_ts = parent.get("thread_ts", parent["ts"])
        return conv.messages.get(root_ts, parent)

    def post(
        self,
        conv: Conversation,
        *,
        text: str,
        blocks: list[dict[str, Any]] | None = None,
        thread_ts: str | None = None,
        metadata: dict[str, Any] | None = None,
        attachments: list[dict[str, Any]] | None = None,
        reply_broadcast: bool = False,
        user: str | None = None,
        stream: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Store a message (the bot's unless `user` is a person); returns the stored dict."""
        parent = self._thread_root(conv, thread_ts) if thread_ts else None
        ts = self.next_ts()
        author = user or self.bot_user_id
        message: dict[str, Any] = {"type": "message", "user": author, "text": text, "ts": ts}
        if author == self.bot_user_id:
            message |= {
                "bot_id": self.bot_id,
                "app_id": self.app_id,
                "bot_profile": {
                    "id": self.bot_id,
                    "app_id": self.app_id,
                    "name": self.bot_name,
                    "deleted": False,
                    "team_id": self.team_id,
                },
            }
        else:
            message["client_msg_id"] = str(uuid.uuid4())
            if blocks is None:
                blocks = [_rich_text(text)]
        message["team"] = self.team_id
        if blocks is not None:
            message["blocks"] = blocks
        if attachments is not None:
            message["attachments"] = attachments
        if metadata is not None:
            message["metadata"] = metadata
        if parent is not None:
            message["thread_ts"] = parent["ts"]
            message["parent_user_id"] = parent["user"]
            if reply_broadcast:
                message["subtype"] = "thread_broadcast"
            parent["thread_ts"] = parent["ts"]
            parent["reply_count"] = parent.get("reply_count", 0) + 1
            reply_users = parent.setdefault("reply_users", [])
            if author not in reply_users:
                reply_users.append(author)
            parent["reply_users_count"] = len(reply_users)
            parent["latest_reply"] = ts
        if stream is not None:
            message["stream"] = stream
        conv.messages[ts] = message
        kind = "stream.started" if stream is not None else "message.posted"
        self._emit(kind, conv, ts=ts, thread_ts=message.get("thread_ts"), message=message)
        if parent is not None and author == self.bot_user_id:
            # Slack clears an assistant thread's status when the app replies in it.
            self._clear_status(conv, parent["ts"])
        return message

    def post_user_message(
        self, user_id: str, text: str, thread_ts: str | None = None
    ) -> dict[str, Any]:
        """A person writes to the bot in their DM; returns the message (with `channel`)."""
        conv, _ = self.open_dm(user_id)
        message = self.post(conv, text=text, thread_ts=thread_ts, user=user_id)
        return copy.deepcopy(message) | {"channel": conv.id, "channel_type": "im"}

    def message_in(self, conv: Conversation, ts: str) -> dict[str, Any]:
        """The stored message (not a copy), or `message_not_found`."""
        message = conv.messages.get(ts or "")
        if message is None:
            raise StandInError("message_not_found")
        return message

    def update(self, conv: Conversation, ts: str, changes: dict[str, Any]) -> dict[str, Any]:
        """Apply chat.update: given fields replace the old ones (an empty `blocks` removes them)."""
        message = self.message_in(conv, ts)
        if message["user"] != self.bot_user_id:
            raise StandInError("cant_update_message")
        for key in ("text", "blocks", "attachments", "metadata"):
            if key in changes:
                if key != "text" and not changes[key]:
                    message.pop(key, None)
                else:
                    message[key] = changes[key]
        message["edited"] = {"user": self.bot_user_id, "ts": self.next_ts()}
        self._emit(
            "message.updated", conv, ts=ts, thread_ts=message.get("thread_ts"), message=message
        )
        return message

    def delete(self, conv: Conversation, ts: str, *, by_bot: bool = True) -> None:
        """Apply chat.delete; a thread parent with replies leaves a tombstone, as in Slack."""
        message = self.message_in(conv, ts)
        if by_bot and message["user"] != self.bot_user_id:
            raise StandInError("cant_delete_message")
        thread_ts = message.get("thread_ts")
        if thread_ts and thread_ts != ts:
            del conv.messages[ts]
            parent = conv.messages.get(thread_ts)
            if parent is not None:
                replies = [
                    m
                    for m in conv.messages.values()
                    if m.get("thread_ts") == thread_ts and m["ts"] != thread_ts
                ]
                parent["reply_count"] = len(replies)
                parent["reply_users"] = list(dict.fromkeys(m["user"] for m in replies))
                parent["reply_users_count"] = len(parent["reply_users"])
                if replies:
                    parent["latest_reply"] = replies[-1]["ts"]
        elif message.get("reply_count"):
            keep = {
                k: message[k]
                for k in (
                    "ts",
                    "thread_ts",
                    "reply_count",
                    "reply_users",
                    "reply_users_count",
                    "latest_reply",
                )
            }
            conv.messages[ts] = {
                "type": "message",
                "subtype": "tombstone",
                "user": "USLACKBOT",
                "text": "This message was deleted.",
                "hidden": True,
                **keep,
            }
        else:
            del conv.messages[ts]
        self._emit("message.deleted", conv, ts=ts, thread_ts=thread_ts)

    def permalink(self, conv: Conversation, ts: str) -> str:
        """The message's permalink, in Slack's `/archives/<channel>/p<ts digits>` form."""
        message = self.message_in(conv, ts)
        link = f"{self.url}archives/{conv.id}/p{ts.replace('.', '')}"
        thread_ts = message.get("thread_ts")
        if thread_ts and thread_ts != ts:
            link += f"?thread_ts={thread_ts}&cid={conv.id}"
        return link

    def history(self, channel: str) -> list[dict[str, Any]]:
        """Top-level messages (and broadcast replies), oldest first, as copies."""
        conv = self.conversation(channel)
        return [
            copy.deepcopy(m)
            for m in conv.messages.values()
            if m.get("thread_ts", m["ts"]) == m["ts"] or m.get("subtype") == "thread_broadcast"
        ]

    def thread(self, channel: str, ts: str) -> list[dict[str, Any]]:
        """A thread: the parent then its replies, oldest first, as copies (`thread_not_found`)."""
        conv = self.conversation(channel)
        root = self._thread_root(conv, ts)
        return [
            copy.deepcopy(m)
            for m in conv.messages.values()
            if m["ts"] == root["ts"] or m.get("thread_ts") == root["ts"]
        ]

    def messages(self, channel: str) -> list[dict[str, Any]]:
        """Every message in a conversation, threads included, oldest first, as copies."""
        return [copy.deepcopy(m) for m in self.conversation(channel).messages.values()]

    def message(self, channel: str, ts: str) -> dict[str, Any]:
        """One message (a copy), or `message_not_found`."""
        return copy.deepcopy(self.message_in(self.conversation(channel), ts))

    # -- ephemerals -------------------------------------------------------------------

    def post_ephemeral(
        self,
        conv: Conversation,
        user_id: str,
        *,
        text: str,
        blocks: list[dict[str, Any]] | None = None,
        thread_ts: str | None = None,
    ) -> dict[str, Any]:
        """Store a message only `user_id` sees; returns it (its `ts` is the `message_ts`)."""
        if user_id not in self._users:
            raise StandInError("user_not_found")
        if user_id not in conv.members:
            raise StandInError("user_not_in_channel")
        ephemeral: dict[str, Any] = {
            "type": "message",
            "subtype": "bot_message",
            "ephemeral": True,
            "channel": conv.id,
            "user": user_id,
            "bot_id": self.bot_id,
            "text": text,
            "ts": self.next_ts(),
        }
        if blocks is not None:
            ephemeral["blocks"] = blocks
        if thread_ts:
            ephemeral["thread_ts"] = thread_ts
        self._ephemerals.setdefault(user_id, []).append(ephemeral)
        self._emit(
            "ephemeral.posted",
            conv,
            user=user_id,
            ts=ephemeral["ts"],
            thread_ts=thread_ts,
            message=ephemeral,
        )
        return ephemeral

    def ephemerals(self, user_id: str) -> list[dict[str, Any]]:
        """The ephemeral messages a person has been shown, oldest first, as copies."""
        return copy.deepcopy(self._ephemerals.get(user_id, []))

    def dismiss_ephemeral(self, user_id: str, ts: str) -> bool:
        """Remove an ephemeral (the person closed it, or a response_url replaced it)."""
        kept = [e for e in self._ephemerals.get(user_id, []) if e["ts"] != ts]
        if len(kept) == len(self._ephemerals.get(user_id, [])):
            return False
        self._ephemerals[user_id] = kept
        self.feed.publish("ephemeral.deleted", user=user_id, ts=ts)
        return True

    # -- assistant threads ----------------------------------------------------------------

    def set_status(
        self, conv: Conversation, thread_ts: str, status: str, loading_messages: list[str] | None
    ) -> None:
        """Set (or with "" clear) the "is thinking…" status of a thread."""
        key = (conv.id, thread_ts)
        if status:
            self._statuses[key] = {
                "thread_ts": thread_ts,
                "status": status,
                "loading_messages": list(loading_messages or []),
                "set_at": self.clock(),
            }
        elif self._statuses.pop(key, None) is None:
            return
        self._emit(
            "status.set",
            conv,
            thread_ts=thread_ts,
            status=status,
            loading_messages=list(loading_messages or []),
        )

    def _clear_status(self, conv: Conversation, thread_ts: str) -> None:
        if (conv.id, thread_ts) in self._statuses:
            self.set_status(conv, thread_ts, "", None)

    def status(self, channel: str, thread_ts: str) -> dict[str, Any] | None:
        """The thread's current status record, or None."""
        return copy.deepcopy(self._statuses.get((channel, thread_ts)))

    def set_title(self, conv: Conversation, thread_ts: str, title: str) -> None:
        """Name an assistant thread."""
        self._titles[(conv.id, thread_ts)] = title
        self._emit("title.set", conv, thread_ts=thread_ts, title=title)

    def set_suggested_prompts(
        self, conv: Conversation, thread_ts: str, prompts: list[dict[str, Any]], title: str | None
    ) -> None:
        """Offer prompt buttons in an assistant thread (thread_ts "" for the whole DM)."""
        record = {"title": title, "prompts": prompts}
        self._prompts[(conv.id, thread_ts)] = record
        self._emit("prompts.set", conv, thread_ts=thread_ts or None, **record)

    # -- streams ----------------------------------------------------------------------

    def start_stream(
        self,
        conv: Conversation,
        thread_ts: str,
        chunks: list[dict[str, Any]],
        task_display_mode: str | None,
    ) -> dict[str, Any]:
        """Begin a streamed reply in a thread; returns the stored message."""
        stream = new_stream(task_display_mode)
        apply_chunks(stream, chunks)
        return self.post(conv, text=stream["markdown_text"], thread_ts=thread_ts, stream=stream)

    def _streaming(self, conv: Conversation, ts: str) -> dict[str, Any]:
        message = self.message_in(conv, ts)
        stream = message.get("stream")
        if stream is None or stream["state"] != "in_progress":
            raise StandInError("message_not_in_streaming_state")
        return message

    def append_stream(
        self, conv: Conversation, ts: str, chunks: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """Add markdown and thinking-step chunks to a stream in progress."""
        message = self._streaming(conv, ts)
        apply_chunks(message["stream"], chunks)
        message["text"] = message["stream"]["markdown_text"]
        self._emit(
            "stream.appended",
            conv,
            ts=ts,
            thread_ts=message.get("thread_ts"),
            chunks=chunks,
            message=message,
        )
        return message

    def stop_stream(
        self,
        conv: Conversation,
        ts: str,
        chunks: list[dict[str, Any]],
        blocks: list[dict[str, Any]] | None,
        metadata: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """Finish a stream: last chunks, blocks at the bottom, metadata; no more appends."""
        message = self._streaming(conv, ts)
        stream = message["stream"]
        apply_chunks(stream, chunks)
        stream["state"] = "completed"
        message["text"] = stream["markdown_text"]
        if blocks:
            message["blocks"] = blocks
        if metadata:
            message["metadata"] = metadata
        self._emit(
            "stream.stopped",
            conv,
            ts=ts,
            thread_ts=message.get("thread_ts"),
            chunks=chunks,
            message=message,
        )
        return message

    # -- changes ------------------------------------------------------------------------

    def subscribe(self, maxsize: int = CHANGE_QUEUE_SIZE) -> asyncio.Queue[dict[str, Any]]:
        """A queue receiving a record for every state change from now on (see `ChangeFeed`)."""
        return self.feed.subscribe(maxsize)

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        """Stop delivering changes to this queue."""
        self.feed.unsubscribe(queue)

    def changes(self) -> AsyncIterator[dict[str, Any]]:
        """Iterate over change records as they happen."""
        return self.feed.changes()

    @property
    def change_seq(self) -> int:
        """The `seq` of the latest change record (0 before any)."""
        return self.feed.seq

    def _emit(self, kind: str, conv: Conversation, **fields: Any) -> None:
        fields.setdefault("user", conv.user)
        self.feed.publish(kind, channel=conv.id, **fields)

    # -- snapshot ---------------------------------------------------------------------

    def snapshot(self, user_id: str) -> dict[str, Any]:
        """Everything one person's client shows: their DM (threads nested), ephemerals, views, Home."""
        user = self.user(user_id)
        channel = self._dm_by_user.get(user_id)
        top: list[dict[str, Any]] = []
        statuses: list[dict[str, Any]] = []
        titles: dict[str, str] = {}
        prompts: dict[str, dict[str, Any]] = {}
        if channel is not None:
            conv = self._conversations[channel]
            by_ts: dict[str, dict[str, Any]] = {}
            for m in conv.messages.values():
                root = m.get("thread_ts", m["ts"])
                if root == m["ts"]:
                    item = copy.deepcopy(m) | {"replies": []}
                    by_ts[m["ts"]] = item
                    top.append(item)
                elif root in by_ts:
                    by_ts[root]["replies"].append(copy.deepcopy(m))
            statuses = [copy.deepcopy(s) for (c, _), s in self._statuses.items() if c == channel]
            titles = {t: v for (c, t), v in self._titles.items() if c == channel}
            prompts = {t: copy.deepcopy(v) for (c, t), v in self._prompts.items() if c == channel}
        return {
            "seq": self.feed.seq,
            "team": {"id": self.team_id, "name": self.team_name, "domain": self.team_domain},
            "bot": {"user_id": self.bot_user_id, "bot_id": self.bot_id, "name": self.bot_name},
            "user": user,
            "channel": channel,
            "messages": top,
            "ephemerals": self.ephemerals(user_id),
            "statuses": statuses,
            "titles": titles,
            "suggested_prompts": prompts,
            "views": self.views.stack(user_id),
            "home": self.views.home(user_id),
        }


def _rich_text(text: str) -> dict[str, Any]:
    """The rich_text block Slack attaches to a message a person typed."""
    return {
        "type": "rich_text",
        "block_id": secrets.token_hex(3),
        "elements": [{"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}],
    }
