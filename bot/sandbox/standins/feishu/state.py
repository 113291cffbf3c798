"""The stand-in's state: people, their one-to-one chats with the bot, messages with threads, cards.

Plain data and rules, no HTTP: `FeishuStandIn` serves it. Cards are checked the way Feishu
refuses them (unknown tags, buttons without text, a non-object value, over 30 KB), so a
malformed card fails here as it would there.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

CARD_MAX_BYTES = 30 * 1024
UUID_WINDOW_S = 3600  # Feishu: the same uuid within an hour sends one message
PATCH_WINDOW_S = 14 * 86_400
ELEMENT_TAGS = frozenset(
    {"div", "hr", "note", "action", "markdown", "img", "column_set", "form", "input", "button"}
    | {"select_static", "multi_select_static", "date_picker"}
)
BUTTON_TYPES = frozenset({"default", "primary", "danger", "text", "primary_filled"})


class FeishuFault(Exception):
    """A Feishu error answer: `{"code", "msg"}` with an HTTP status."""

    def __init__(self, code: int, msg: str, status: int = 400) -> None:
        super().__init__(msg)
        self.code, self.msg, self.status = code, msg, status

    def body(self) -> dict[str, Any]:
        return {"code": self.code, "msg": self.msg, "data": {}}


@dataclass
class StoredMessage:
    """One message as Feishu keeps it."""

    message_id: str
    chat_id: str
    sender_type: str  # user | app
    sender_id: str  # the person's open_id, or the app id
    msg_type: str
    content: str  # a JSON string, as sent
    create_time: int  # ms
    update_time: int
    root_id: str | None = None
    parent_id: str | None = None
    thread_id: str | None = None
    updated: bool = False

    @property
    def body(self) -> dict[str, Any]:
        try:
            value = json.loads(self.content)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    @property
    def card(self) -> dict[str, Any] | None:
        return self.body if self.msg_type == "interactive" else None

    @property
    def text(self) -> str:
        """What the message says, as one string (a card's texts joined) for assertions."""
        if self.msg_type == "text":
            return str(self.body.get("text", ""))
        return json.dumps(self.body, ensure_ascii=False)

    def to_api(self) -> dict[str, Any]:
        """The message as the open API returns it."""
        out: dict[str, Any] = {
            "message_id": self.message_id,
            "msg_type": self.msg_type,
            "create_time": str(self.create_time),
            "update_time": str(self.update_time),
            "updated": self.updated,
            "deleted": False,
            "chat_id": self.chat_id,
            "sender": {
                "id": self.sender_id,
                "id_type": "open_id" if self.sender_type == "user" else "app_id",
                "sender_type": self.sender_type,
            },
            "body": {"content": self.content},
        }
        for name in ("root_id", "parent_id", "thread_id"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able view for snapshots (content decoded)."""
        return {
            "message_id": self.message_id,
            "from": "bot" if self.sender_type == "app" else self.sender_id,
            "msg_type": self.msg_type,
            "content": self.body,
            "create_time": self.create_time,
            "updated": self.updated,
            "root_id": self.root_id,
            "thread_id": self.thread_id,
        }


@dataclass
class Person:
    open_id: str
    name: str
    chat_id: str
    email: str | None = None


def check_card(card: Any) -> None:
    """Refuse a card Feishu would refuse (code 230099)."""

    def bad(why: str) -> FeishuFault:
        return FeishuFault(230099, f"Failed to create card content: {why}")

    if not isinstance(card, dict):
        raise bad("the card is not a JSON object")
    if len(json.dumps(card, ensure_ascii=False).encode()) > CARD_MAX_BYTES:
        raise bad("the card is larger than 30 KB")
    header = card.get("header")
    if header is not None:
        title = (header.get("title") or {}) if isinstance(header, dict) else {}
        if not isinstance(title, dict) or not str(title.get("content", "")).strip():
            raise bad("header.title.content is empty")
    elements = card.get("elements")
    if card.get("schema") == "2.0":
        elements = (card.get("body") or {}).get("elements")
    if not isinstance(elements, list) or not elements:
        raise bad("the card has no elements")

    def walk(items: list[Any], where: str) -> None:
        for i, el in enumerate(items):
            here = f"{where}[{i}]"
            if not isinstance(el, dict) or el.get("tag") not in ELEMENT_TAGS:
                raise bad(
                    f"{here}: unknown element {el.get('tag') if isinstance(el, dict) else el!r}"
                )
            tag = el["tag"]
            if tag == "div" and not (el.get("text") or el.get("fields")):
                raise bad(f"{here}: a div needs text or fields")
            if tag == "action":
                walk(el.get("actions") or [], here + ".actions")
            if tag == "form":
                if not el.get("name"):
                    raise bad(f"{here}: a form needs a name")
                walk(el.get("elements") or [], here + ".elements")
            if tag == "input" and not el.get("name"):
                raise bad(f"{here}: an input needs a name")
            if tag == "button":
                if not str((el.get("text") or {}).get("content", "")).strip():
                    raise bad(f"{here}: a button needs text")
                if "value" in el and not isinstance(el["value"], dict):
                    raise bad(f"{here}: a button value must be an object")
                if el.get("type", "default") not in BUTTON_TYPES:
                    raise bad(f"{here}: unknown button type {el.get('type')!r}")
                confirm = el.get("confirm")
                if confirm is not None and not (
                    isinstance(confirm, dict) and confirm.get("title") and confirm.get("text")
                ):
                    raise bad(f"{here}: a confirm needs a title and a text")

    walk(elements, "elements")


def check_content(msg_type: str, content: Any) -> str:
    """The content string, checked for its message type."""
    if not isinstance(content, str):
        raise FeishuFault(
            230001,
            "Your request contains an invalid request parameter: content must be a JSON string",
        )
    try:
        body = json.loads(content)
    except ValueError:
        raise FeishuFault(
            230001, "Your request contains an invalid request parameter: content is not JSON"
        ) from None
    if msg_type == "text":
        if not isinstance(body, dict) or not str(body.get("text", "")).strip():
            raise FeishuFault(
                230001, "Your request contains an invalid request parameter: empty text"
            )
    elif msg_type == "interactive":
        check_card(body)
    elif msg_type != "post":
        raise FeishuFault(
            230001, f"Your request contains an invalid request parameter: msg_type {msg_type}"
        )
    return content


@dataclass
class Tenant:
    """Everything the stand-in's Feishu knows."""

    app_id: str
    clock: Callable[[], float]
    people: dict[str, Person] = field(default_factory=dict)
    messages: dict[str, StoredMessage] = field(default_factory=dict)
    chats: dict[str, list[str]] = field(default_factory=dict)
    uuids: dict[str, tuple[str, float]] = field(default_factory=dict)
    # the contact directory (contact/v3): departments by open_department_id, users by open_id
    departments: dict[str, dict[str, Any]] = field(default_factory=dict)
    contacts: dict[str, dict[str, Any]] = field(default_factory=dict)
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))

    def add_department(
        self,
        department_id: str,
        name: str,
        parent: str = "0",
        leader: str | None = None,
        i18n_name: dict[str, str] | None = None,
    ) -> None:
        """A department of the contact directory ("0" is the root); `i18n_name` its names per
        language as Feishu gives them ({"zh_cn": "研发部", "en_us": "Engineering"})."""
        self.departments[department_id] = {
            "open_department_id": department_id,
            "department_id": department_id,
            "name": name,
            "i18n_name": {"zh_cn": "", "ja_jp": "", "en_us": "", **(i18n_name or {})},
            "parent_department_id": parent,
            "leader_user_id": leader or "",
            "status": {"is_deleted": False},
        }

    def add_contact(
        self,
        open_id: str,
        name: str,
        email: str,
        departments: tuple[str, ...] = ("0",),
        leader: str | None = None,
        **extra: Any,
    ) -> None:
        """A user of the contact directory, as `users/find_by_department` lists them."""
        self.contacts[open_id] = {
            "open_id": open_id,
            "user_id": open_id.removeprefix("ou_"),
            "name": name,
            "en_name": name,
            "email": email,
            "enterprise_email": email,
            "department_ids": list(departments),
            "leader_user_id": leader or "",
            "job_title": extra.pop("job_title", ""),
            "status": {"is_activated": True, "is_resigned": False},
            **extra,
        }
        self.add_person(open_id, name)

    def department_children(self, department_id: str, recursive: bool) -> list[dict[str, Any]]:
        out = []
        for d in self.departments.values():
            if d["parent_department_id"] == department_id:
                out.append(d)
                if recursive:
                    out += self.department_children(d["open_department_id"], True)
        return out

    def department_users(self, department_id: str) -> list[dict[str, Any]]:
        return [u for u in self.contacts.values() if department_id in u["department_ids"]]

    def _id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids):08x}standin"

    def _ms(self) -> int:
        return int(self.clock() * 1000)

    def add_person(self, open_id: str, name: str, email: str | None = None) -> Person:
        person = self.people.get(open_id)
        if person is None:
            person = Person(open_id, name, self._id("oc"), email)
            self.people[open_id] = person
            self.chats[person.chat_id] = []
        return person

    def by_email(self, emails: list[str]) -> list[dict[str, str]]:
        """contact/v3/users/batch_get_id: the open_id of each email the tenant knows."""
        found = {str(c["email"]).casefold(): i for i, c in self.contacts.items() if c.get("email")}
        found |= {p.email.casefold(): p.open_id for p in self.people.values() if p.email}
        return [
            {"email": e, "user_id": found[e.casefold()]} for e in emails if e.casefold() in found
        ]

    def email_of(self, open_id: str) -> str | None:
        person = self.person(open_id)
        return person.email or (self.contacts.get(open_id) or {}).get("email")

    def person(self, open_id: str) -> Person:
        person = self.people.get(open_id)
        if person is None:
            raise FeishuFault(230013, "Bot has NO availability to this user.")
        return person

    def message(self, message_id: str) -> StoredMessage:
        found = self.messages.get(message_id)
        if found is None:
            raise FeishuFault(230011, "The message is not found or was recalled.")
        return found

    def _add(self, message: StoredMessage) -> StoredMessage:
        self.messages[message.message_id] = message
        self.chats.setdefault(message.chat_id, []).append(message.message_id)
        return message

    def _deduped(self, uuid: str | None) -> StoredMessage | None:
        if not uuid:
            return None
        seen = self.uuids.get(uuid)
        if seen is not None and self.clock() - seen[1] < UUID_WINDOW_S:
            return self.messages.get(seen[0])
        return None

    def _remember(self, uuid: str | None, message: StoredMessage) -> None:
        if uuid:
            self.uuids[uuid] = (message.message_id, self.clock())

    def user_message(self, open_id: str, text: str, root_id: str | None = None) -> StoredMessage:
        """A person writes to the bot (in a thread when `root_id` is given)."""
        person = self.person(open_id)
        now = self._ms()
        root = self.message(root_id) if root_id else None
        return self._add(
            StoredMessage(
                message_id=self._id("om"),
                chat_id=person.chat_id,
                sender_type="user",
                sender_id=open_id,
                msg_type="text",
                content=json.dumps({"text": text}, ensure_ascii=False),
                create_time=now,
                update_time=now,
                root_id=root.message_id if root else None,
                parent_id=root.message_id if root else None,
                thread_id=root.thread_id if root else None,
            )
        )

    def send(
        self, open_id: str, msg_type: str, content: Any, uuid: str | None
    ) -> tuple[StoredMessage, bool]:
        """The bot sends to a person; (message, True) when the uuid made it a repeat."""
        if (seen := self._deduped(uuid)) is not None:
            return seen, True
        person = self.person(open_id)
        checked = check_content(msg_type, content)
        now = self._ms()
        message = self._add(
            StoredMessage(
                self._id("om"), person.chat_id, "app", self.app_id, msg_type, checked, now, now
            )
        )
        self._remember(uuid, message)
        return message, False

    def reply(
        self, parent_id: str, msg_type: str, content: Any, in_thread: bool, uuid: str | None
    ) -> tuple[StoredMessage, bool]:
        """The bot replies to a message (in its thread when `in_thread`)."""
        if (seen := self._deduped(uuid)) is not None:
            return seen, True
        parent = self.message(parent_id)
        checked = check_content(msg_type, content)
        root = self.message(parent.root_id) if parent.root_id else parent
        if in_thread and root.thread_id is None:
            root.thread_id = self._id("omt")
        now = self._ms()
        message = self._add(
            StoredMessage(
                self._id("om"),
                parent.chat_id,
                "app",
                self.app_id,
                msg_type,
                checked,
                now,
                now,
                root_id=root.message_id,
                parent_id=parent.message_id,
                thread_id=root.thread_id if in_thread else None,
            )
        )
        self._remember(uuid, message)
        return message, False

    def patch(self, message_id: str, content: Any) -> StoredMessage:
        """The bot replaces one of its cards (shared cards only, within 14 days)."""
        message = self.message(message_id)
        if message.sender_type != "app":
            raise FeishuFault(
                230027, "Lack of necessary permissions: the bot did not send this message."
            )
        if message.msg_type != "interactive":
            raise FeishuFault(
                230001,
                "Your request contains an invalid request parameter: only cards can be updated",
            )
        if not ((message.card or {}).get("config") or {}).get("update_multi"):
            raise FeishuFault(
                230099,
                "Failed to update card: only shared cards (config.update_multi) can be updated",
            )
        if self._ms() - message.create_time > PATCH_WINDOW_S * 1000:
            raise FeishuFault(
                230031, "The message is older than 14 days and can no longer be updated."
            )
        message.content = check_content("interactive", content)
        message.update_time, message.updated = self._ms(), True
        return message

    def chat(self, open_id: str) -> list[StoredMessage]:
        """Every message of a person's chat with the bot, oldest first."""
        person = self.person(open_id)
        return [self.messages[m] for m in self.chats.get(person.chat_id, [])]

    def snapshot(self, open_id: str) -> dict[str, Any]:
        """What this person's Feishu shows: the chat, each thread's replies under its root."""
        person = self.person(open_id)
        top: list[dict[str, Any]] = []
        by_id: dict[str, dict[str, Any]] = {}
        for m in self.chat(open_id):
            item = {**m.to_dict(), "replies": []}
            by_id[m.message_id] = item
            root = by_id.get(m.root_id or "")
            if root is not None and m.thread_id:
                root["replies"].append(item)
            else:
                top.append(item)
        return {"open_id": open_id, "name": person.name, "chat_id": person.chat_id, "messages": top}
