"""The stand-in's views: trigger ids, each person's modal stack, and their Home tab."""

from __future__ import annotations

import copy
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.sandbox.standins.slack.common import StandInError, check_view, invalid_arguments, slack_id

if TYPE_CHECKING:
    from bot.sandbox.standins.slack.state import Workspace

TRIGGER_TTL_S = 3.0
MAX_STACK = 3


@dataclass
class _Trigger:
    user_id: str
    issued_at: float
    used: bool = False


class Views:
    """Modals (a stack of up to three per person) and Home tabs, keyed by view id."""

    def __init__(self, workspace: Workspace, trigger_ttl: float = TRIGGER_TTL_S) -> None:
        self._ws = workspace
        self.trigger_ttl = trigger_ttl
        self._views: dict[str, dict[str, Any]] = {}
        self._owner: dict[str, str] = {}
        self._stacks: dict[str, list[str]] = {}
        self._homes: dict[str, str] = {}
        self._triggers: dict[str, _Trigger] = {}
        self._serial = 0

    # -- triggers -----------------------------------------------------------------------

    def issue_trigger_id(self, user_id: str) -> str:
        """A trigger id for this person, as an interaction carries; good once, for 3 s."""
        self._ws.user(user_id)
        self._serial += 1
        now = self._ws.clock()
        trigger_id = f"{int(now * 1000) % 10**12:012d}{self._serial}.{int(slack_id('', self._ws.team_id), 36) % 10**11}.{secrets.token_hex(16)}"
        self._triggers[trigger_id] = _Trigger(user_id, now)
        return trigger_id

    def _consume(self, trigger_id: str | None) -> str:
        if not trigger_id:
            raise invalid_arguments("missing required field: trigger_id")
        trigger = self._triggers.get(trigger_id)
        if trigger is None:
            raise StandInError("invalid_trigger_id")
        if trigger.used:
            raise StandInError("trigger_exchanged")
        if self._ws.clock() - trigger.issued_at > self.trigger_ttl:
            raise StandInError("expired_trigger_id")
        trigger.used = True
        return trigger.user_id

    # -- modals -------------------------------------------------------------------------

    def open(self, trigger_id: str | None, spec: Any) -> dict[str, Any]:
        """views.open: a new modal for the trigger's person, replacing any they had open."""
        check_view(spec, types=("modal",))
        user_id = self._consume(trigger_id)
        self.close_all(user_id)
        view = self._new(user_id, spec, root_view_id=None, previous_view_id=None)
        self._stacks[user_id] = [view["id"]]
        self._ws.feed.publish("view.opened", user=user_id, view=view)
        return copy.deepcopy(view)

    def push(self, trigger_id: str | None, spec: Any) -> dict[str, Any]:
        """views.push: a modal on top of the person's stack (at most three deep)."""
        check_view(spec, types=("modal",))
        user_id = self._consume(trigger_id)
        stack = self._stacks.setdefault(user_id, [])
        if len(stack) >= MAX_STACK:
            raise StandInError("push_limit_reached")
        root = stack[0] if stack else None
        view = self._new(
            user_id, spec, root_view_id=root, previous_view_id=stack[-1] if stack else None
        )
        stack.append(view["id"])
        self._ws.feed.publish("view.pushed", user=user_id, view=view)
        return copy.deepcopy(view)

    def update(
        self,
        spec: Any,
        *,
        view_id: str | None = None,
        external_id: str | None = None,
        hash: str | None = None,
    ) -> dict[str, Any]:
        """views.update: replace an open view's content, keeping its id (`hash_conflict` if stale)."""
        if not view_id and not external_id:
            raise invalid_arguments("either view_id or external_id is required")
        if view_id:
            current = self._views.get(view_id)
        else:
            current = next(
                (v for v in self._views.values() if v["external_id"] == external_id), None
            )
        if current is None:
            raise StandInError("not_found")
        check_view(spec, types=(current["type"],))
        if hash and hash != current["hash"]:
            raise StandInError("hash_conflict")
        view = self._fill(current, spec)
        self._ws.feed.publish("view.updated", user=self._owner[view["id"]], view=view)
        return copy.deepcopy(view)

    def close(self, view_id: str) -> list[str]:
        """Close a modal and every modal above it (the person pressed Close, or `clear`)."""
        user_id = self._owner.get(view_id)
        stack = self._stacks.get(user_id or "", [])
        if view_id not in stack:
            return []
        closed = stack[stack.index(view_id) :]
        del stack[stack.index(view_id) :]
        for vid in reversed(closed):
            self._views.pop(vid, None)
            self._owner.pop(vid, None)
            self._ws.feed.publish("view.closed", user=user_id, view_id=vid)
        return closed

    def close_all(self, user_id: str) -> list[str]:
        """Close every modal the person has open."""
        stack = self._stacks.get(user_id) or []
        return self.close(stack[0]) if stack else []

    # -- Home ---------------------------------------------------------------------------

    def publish(self, user_id: str, spec: Any, hash: str | None = None) -> dict[str, Any]:
        """views.publish: the person's Home tab (its view id stays the same across publishes)."""
        if not user_id:
            raise invalid_arguments("missing required field: user_id")
        check_view(spec, types=("home",))
        self._ws.user(user_id)
        home_id = self._homes.get(user_id)
        if home_id is None:
            view = self._new(user_id, spec, root_view_id=None, previous_view_id=None)
            self._homes[user_id] = view["id"]
        else:
            if hash and hash != self._views[home_id]["hash"]:
                raise StandInError("hash_conflict")
            view = self._fill(self._views[home_id], spec)
        self._ws.feed.publish("home.published", user=user_id, view=view)
        return copy.deepcopy(view)

    # -- reading ------------------------------------------------------------------------

    def get(self, view_id: str) -> dict[str, Any]:
        """An open view (a copy), or `not_found`."""
        if view_id not in self._views:
            raise StandInError("not_found")
        return copy.deepcopy(self._views[view_id])

    def stack(self, user_id: str) -> list[dict[str, Any]]:
        """The person's open modals, bottom first (copies)."""
        return [copy.deepcopy(self._views[v]) for v in self._stacks.get(user_id, [])]

    def home(self, user_id: str) -> dict[str, Any] | None:
        """The person's Home tab view (a copy), or None if never published."""
        home_id = self._homes.get(user_id)
        return copy.deepcopy(self._views[home_id]) if home_id else None

    def owner(self, view_id: str) -> str | None:
        """Whose view this is."""
        return self._owner.get(view_id)

    # -- building -----------------------------------------------------------------------

    def _new(
        self,
        user_id: str,
        spec: dict[str, Any],
        *,
        root_view_id: str | None,
        previous_view_id: str | None,
    ) -> dict[str, Any]:
        external_id = spec.get("external_id") or ""
        if external_id and any(v["external_id"] == external_id for v in self._views.values()):
            raise StandInError("duplicate_external_id")
        view_id = slack_id("V", secrets.token_hex(8))
        view = {
            "id": view_id,
            "team_id": self._ws.team_id,
            "app_id": self._ws.app_id,
            "app_installed_team_id": self._ws.team_id,
            "bot_id": self._ws.bot_id,
            "root_view_id": root_view_id or view_id,
            "previous_view_id": previous_view_id,
            "external_id": external_id,
        }
        self._views[view_id] = view
        self._owner[view_id] = user_id
        return self._fill(view, spec)

    def _fill(self, view: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
        view.update(
            {
                "type": spec["type"],
                "title": spec.get("title"),
                "submit": spec.get("submit"),
                "close": spec.get("close"),
                "blocks": copy.deepcopy(spec.get("blocks", [])),
                "private_metadata": spec.get("private_metadata", ""),
                "callback_id": spec.get("callback_id", ""),
                "state": {"values": {}},
                "hash": f"{int(self._ws.clock())}.{secrets.token_hex(4)}",
                "clear_on_close": bool(spec.get("clear_on_close", False)),
                "notify_on_close": bool(spec.get("notify_on_close", False)),
            }
        )
        if spec.get("external_id"):
            view["external_id"] = spec["external_id"]
        return view
