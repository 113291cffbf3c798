"""The Feishu bot: POST /feishu/events turns messages into agent turns and card clicks into engine calls.

One URL serves the event subscription and the card callbacks (`card.action.trigger`).
Every request is authenticated before anything else: decrypted and signature-checked when an
Encrypt Key is set, and its verification token checked always. Messages are acked at once
and answered by a turn in a task we keep; card clicks are answered within Feishu's 3 s with a
toast and the updated card, after the engine (which authorizes the operator) has acted.
Identity is the Feishu user who sent the event (`open_id`), mapped to the directory; never the text.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import redis.exceptions
import structlog
from aiohttp import web
from pydantic import ValidationError

from agent.i18n import detect_locale
from bot import wording
from bot.apierrors import apology, report
from bot.budget import VerificationBudget, client_address
from bot.conversation import Answer, CardLifecycle, CardRegistry, Interactions, buttons
from bot.conversation.feeds import CalendarFeeds
from bot.conversation.forms import approvers_preview, submit_leave
from bot.conversation.interactions import At
from bot.conversation.turn_view import agent_turn
from bot.feishu import cards, forms
from bot.feishu.client import FeishuClient
from bot.feishu.counter_form import parse_counter_form
from bot.feishu.crypto import MAX_SKEW_S, is_signed, open_callback
from bot.feishu.edge import check_event, kept, reason_of, rejected, too_many
from bot.feishu.errors import CallbackRejected, FeishuError
from bot.feishu.identity import FeishuIdentity
from bot.feishu.queued import FeishuTurnHandler, submit_message
from bot.feishu.render import PLATFORM, feishu_cards, render
from bot.feishu.turns import CardThread
from bot.once import Once
from bot.presentation.card_views import Closed
from bot.queue import QueueUnavailable, TurnJournal, Turns
from bot.queue.journal import ANSWERED
from bot.runtime import Runtime
from bot.tasks import BackgroundTasks
from bot.wording import not_in_directory, say
from workflow.config import Person
from workflow.errors import StoreUnavailable

log = structlog.get_logger("feishu")
ACTION_BUDGET_S = 2.5  # a card callback must be answered within 3 s
MESSAGE = "im.message.receive_v1"
CARD_ACTION = "card.action.trigger"
MENU = "application.bot.menu_v6"
FEED_MENU_KEY = "calendar_feed"  # the bot menu item that sends a team calendar link
# The bot menu's items as the README asks admins to set them up in the developer console:
# event key → the catalogue code of the item's name (the sandbox's Feishu view shows them).
MENU_ITEMS: tuple[tuple[str, str], ...] = (
    (forms.MENU_KEY, "menu.request_leave"),
    (FEED_MENU_KEY, "menu.calendar_feed"),
)


def thread_key(tenant: str, chat_id: str, root_id: str) -> str:
    return f"feishu:{tenant}:{chat_id}:{root_id}"


def message_text(message: dict[str, Any]) -> str | None:
    """The words of a text or rich-text (post) message, mentions dropped; None for other kinds."""
    raw = message.get("content") if isinstance(message, dict) else None
    try:
        content = json.loads(raw) if isinstance(raw, str | bytes) and raw else {}
    except (ValueError, RecursionError):
        return None
    kind = message.get("message_type")
    if kind == "text" and isinstance(content, dict):
        text = str(content.get("text") or "")
    elif kind == "post" and isinstance(content, dict):
        body = content if "content" in content else next(iter(content.values()), {})
        title = body.get("title") if isinstance(body, dict) else None
        parts = [title if isinstance(title, str) else ""]
        lines = body.get("content") if isinstance(body, dict) else None
        for line in lines if isinstance(lines, list) else []:
            parts.append(
                "".join(
                    str(el.get("text") or "")
                    for el in (line if isinstance(line, list) else [])
                    if isinstance(el, dict) and el.get("tag") in ("text", "a")
                )
            )
        text = "\n".join(p for p in parts if p)
    else:
        return None
    mentions = message.get("mentions")
    for mention in mentions if isinstance(mentions, list) else []:
        key = mention.get("key") if isinstance(mention, dict) else None
        if isinstance(key, str) and key:
            text = text.replace(key, "")
    return text.strip()


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Click:
    """What a card.action.trigger says: who clicked which button of which message."""

    open_id: str
    value: dict[str, Any]
    form: dict[str, Any]
    message_id: str | None

    @classmethod
    def of(cls, event: dict[str, Any]) -> Click:
        def obj(x: Any) -> dict[str, Any]:
            return x if isinstance(x, dict) else {}

        event = obj(event)
        action = obj(event.get("action"))
        value = action.get("value")
        if isinstance(value, str):  # a value given as a JSON string
            try:
                value = json.loads(value)
            except ValueError:
                value = {}
        form = action.get("form_value")
        return cls(
            open_id=str(obj(event.get("operator")).get("open_id") or ""),
            value=value if isinstance(value, dict) else {},
            form=form if isinstance(form, dict) else {},
            message_id=_str_or_none(obj(event.get("context")).get("open_message_id")),
        )


@dataclass(frozen=True)
class Reply:
    """A callback's answer: a toast, and the card that replaces the clicked one (None: unchanged)."""

    toast: dict[str, str]
    card: dict[str, Any] | None = None

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"toast": self.toast}
        if self.card is not None:
            out["card"] = {"type": "raw", "data": self.card}
        return out


class FeishuBot:
    """Our handlers for Feishu events and card callbacks, over one runtime."""

    def __init__(
        self,
        runtime: Runtime,
        client: FeishuClient,
        *,
        verification_token: str,
        encrypt_key: str | None = None,
        tasks: BackgroundTasks | None = None,
        clock: Callable[[], float] = time.time,
        max_skew_s: float = MAX_SKEW_S,
        action_budget_s: float = ACTION_BUDGET_S,
        budget: VerificationBudget | None = None,
    ) -> None:
        self.runtime = runtime
        self.engine = runtime.engine
        self.client = client
        self.tasks = tasks if tasks is not None else BackgroundTasks()
        self._token = verification_token
        self._key = encrypt_key or None
        self._clock = clock
        self.max_skew_s = max_skew_s
        self.action_budget_s = action_budget_s
        self.budget = budget if budget is not None else VerificationBudget()
        self.budget.share(runtime.redis)  # one total for every process on this Redis
        hr = self.engine.directory.with_role("hr")
        self.hr_name = hr[0].name if hr else "HR"
        self.cards = feishu_cards(self.engine, client)

    @cached_property
    def identity(self) -> FeishuIdentity:
        """Feishu users as directory people: by open_id, else by email through the contact API."""
        return FeishuIdentity(self.engine.directory, self.runtime.redis, self.client)

    @cached_property
    def lifecycle(self) -> CardLifecycle:
        return CardLifecycle(self.engine, CardRegistry(self.runtime.redis, self.engine.keys.org))

    @cached_property
    def core(self) -> Interactions:
        """The conversation core every click goes through."""
        return Interactions(self.engine, self.runtime.memory, self.lifecycle)

    @cached_property
    def once(self) -> Once:
        """Card callbacks answered once per callback id."""
        return Once(self.runtime.redis, "feishu")

    @cached_property
    def turns(self) -> Turns:
        """The turn queue; from first use on, this process's runner hands this bot Feishu's turns."""
        turns: Turns = self.runtime.turns
        turns.runner.register("feishu", FeishuTurnHandler(self), self.tasks)
        return turns

    # --- the HTTP edge ---------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.Response:
        """POST /feishu/events: authenticate, then dispatch on the event type."""
        client = client_address(request.remote)
        if self.budget.client_blocked(client):
            return too_many()
        raw = await request.read()
        if (
            self._key is not None
            and not is_signed(request.headers)
            and await self.budget.exhausted()
        ):
            return too_many()  # under attack: only signed pushes are looked at
        try:
            payload = self.open(raw, request.headers)
        except CallbackRejected as e:
            await self.budget.failed(client)
            log.warning("feishu_callback_rejected", reason=e.reason, client=client)
            return rejected(e.status)
        return await self.dispatch(payload)

    async def dispatch(self, payload: dict[str, Any]) -> web.Response:
        """An authenticated callback: the challenge, a message, a card click, or nothing to do."""
        if payload.get("type") == "url_verification":
            return web.json_response({"challenge": str(payload.get("challenge", ""))})
        header, event = payload.get("header"), payload.get("event")
        if not isinstance(header, dict) or not isinstance(event, dict):
            log.info("feishu_callback_without_event", keys=sorted(payload)[:10])
            return web.json_response({})
        kind = header.get("event_type")
        try:
            click_id = check_event(str(kind), header, event)
        except ValidationError as e:
            log.info("feishu_event_unreadable", event_type=str(kind)[:64], reason=reason_of(e))
            return web.json_response({})
        if kind == MESSAGE:
            try:
                await self.on_message(header, event)
            except QueueUnavailable as e:  # not queued: Feishu delivers it again later
                return web.json_response({"msg": str(e)}, status=503)
        elif kind == CARD_ACTION:
            if click_id is None:
                return web.json_response(await self.on_card_action(event))
            answer = await self.once.run(
                f"click:{click_id}",
                lambda: kept(self.on_card_action(event)),
            )
            return web.Response(
                status=answer.status, text=answer.body, content_type=answer.content_type
            )
        elif kind == MENU:
            self.on_menu(event)
        else:
            log.info("feishu_event_ignored", event_type=str(kind)[:64])
        return web.json_response({})

    def open(self, raw: bytes, headers: Any) -> dict[str, Any]:
        """The authenticated plaintext of a callback (signature before decryption).

        Raises:
            CallbackRejected: not JSON, unsigned or wrongly signed, undecryptable, wrong token.
        """
        return open_callback(
            raw,
            headers,
            verification_token=self._token,
            encrypt_key=self._key,
            now=self._clock(),
            max_skew_s=self.max_skew_s,
        )

    # --- messages --------------------------------------------------------------------------

    async def on_message(self, header: dict[str, Any], event: dict[str, Any]) -> None:
        """A message to the bot in a one-to-one chat: start (or continue) its thread's turn."""
        message = event.get("message") or {}
        sender = event.get("sender") or {}
        if sender.get("sender_type") != "user" or message.get("chat_type") != "p2p":
            return
        open_id = (sender.get("sender_id") or {}).get("open_id") or ""
        message_id = message.get("message_id") or ""
        root = message.get("root_id") or message_id
        thread = thread_key(header.get("tenant_key") or "-", message.get("chat_id") or "-", root)
        await submit_message(
            self.turns,
            event_id=str(header.get("event_id") or message_id),
            open_id=open_id,
            root_id=root,
            thread=thread,
            text=message_text(message),
        )

    async def turn(
        self,
        open_id: str,
        root_id: str,
        thread: str,
        text: str | None,
        origin: str,
        *,
        journal: TurnJournal | None = None,
    ) -> None:
        """Run one agent turn and show it in the thread; every failure still answers the person.

        `journal`: the queue's record of an earlier run (the runner holds the thread's lease).
        """
        try:
            person = await self.identity.person_for(open_id)
        except FeishuError as e:  # not "not in the directory": Feishu failed, and we say so
            report(log, "feishu_turn_api_error", e)
            locale = detect_locale(text or "", "zh")
            await self._say(
                CardThread(self.client, root_id, thread, locale, origin), apology(locale, e)
            )
            return
        locale = detect_locale(text or "", person.locale if person else "zh")
        queued, journal = journal, journal or TurnJournal.none()
        view = CardThread(
            self.client,
            root_id,
            thread,
            locale,
            origin,
            engine=self.engine,
            rerun=journal.attempt > 1,
        )
        if person is not None:
            view.posted = lambda p, message_id: self.lifecycle.confirm_posted(
                person, p, PLATFORM, message_id, self.cards.update, locale=locale
            )
        try:
            if person is None:
                await view.say(not_in_directory(locale, self.hr_name))
                return
            if text is None:
                await view.say(say("error.text_only", locale))
                return
            if not text:
                return
            if text.strip() in forms.COMMANDS:  # like Slack's /leave: the form, not the agent
                await view.reply("interactive", self.leave_form(person))
                await journal.put(ANSWERED, "1")
                return
            await view.render(
                agent_turn(self.runtime.agent, thread, person.id, text, queued), journal
            )
        except (StoreUnavailable, redis.exceptions.RedisError, OSError) as e:
            log.error("feishu_turn_failed", error=str(e))
            await self._say(view, wording.store_unreachable(locale))
        except FeishuError as e:
            report(log, "feishu_turn_api_error", e)
            await self._say(view, apology(locale, e))

    @staticmethod
    async def _say(view: CardThread, text: str) -> None:
        """Best effort: Feishu may still be failing (the failure is logged already)."""
        try:
            await view.say(text)
        except FeishuError as e:
            log.warning("feishu_failure_notice_failed", code=e.code, status=e.status)

    # --- the leave form ------------------------------------------------------------------------

    def leave_form(
        self,
        person: Person,
        initial: dict[str, Any] | None = None,
        errors: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        approvers = approvers_preview(self.engine, person)
        return forms.leave_form_card(
            person, self.engine, person.locale, approvers=approvers, initial=initial, errors=errors
        )

    def on_menu(self, event: dict[str, Any]) -> None:
        """The bot's menu: "Request leave" sends the form card, "Team calendar" a calendar link."""
        key = event.get("event_key")
        operator = (event.get("operator") or {}).get("operator_id") or {}
        open_id = str(operator.get("open_id") or "")
        if key in dict(MENU_ITEMS):
            self.tasks.spawn(self._send_menu_card(open_id, key), name=f"feishu-menu-{key}")
        else:
            log.info("feishu_menu_ignored", key=str(key)[:40])

    @cached_property
    def feeds(self) -> CalendarFeeds:
        return CalendarFeeds(self.engine, self.runtime.settings.base_url)

    async def _feed_click(self, action: str, person: Person) -> Reply:
        """The link card's button: a new link, or the link turned off; the card says which."""
        if action == buttons.FEED_CREATE:
            answer = await self.feeds.create(person)
            toast = cards.toast("success", say("feed.active", person.locale))
        else:
            answer = await self.feeds.revoke(person)
            toast = cards.toast(answer.tone, answer.text)
        on = action == buttons.FEED_CREATE
        return Reply(toast, cards.feed_card(answer.text, answer.locale or person.locale, on=on))

    async def _send_menu_card(self, open_id: str, key: str) -> None:
        """A menu item's card: the leave form, or a new team calendar link (the last one stops
        working) on a card that can turn it off."""
        try:
            person = await self.identity.person_for(open_id)
            if person is None:
                text = cards.text_content(not_in_directory("zh", self.hr_name))
                await self.client.send(open_id, "text", text)
                return
            if key == FEED_MENU_KEY:
                answer = await self.feeds.create(person)
                card = cards.feed_card(answer.text, answer.locale or person.locale, on=True)
            else:
                card = self.leave_form(person)
            await self.client.send(open_id, "interactive", card)
        except FeishuError as e:  # a menu click has no answer to carry a sentence: logged once
            report(log, "feishu_menu_api_error", e)

    async def _leave_submit(self, click: Click, person: Person) -> Reply:
        """The form's Submit is the confirmation: the request, or the form again with its errors."""
        fields = forms.parse_leave_form(click.form)
        result = await submit_leave(self.engine, person, fields)
        if result.request is None:
            first = next(iter(result.errors.values()))
            form = self.leave_form(person, fields, result.errors)
            return Reply(cards.toast("error", first[:200]), form)
        at = At(PLATFORM, click.message_id) if click.message_id else None
        return self.reply(await self.core.form_submitted(person, result.request, at), person)

    # --- card callbacks ----------------------------------------------------------------------

    async def on_card_action(self, event: dict[str, Any]) -> dict[str, Any]:
        """Answer a click within 3 s; work that takes longer finishes by updating the card."""
        click = Click.of(event)
        work = self.tasks.spawn(self.act(click), name=f"feishu-click:{click.value.get('action')}")
        person = self.engine.directory.by_feishu_id(click.open_id)
        locale = person.locale if person else "zh"
        try:
            answer = await asyncio.wait_for(asyncio.shield(work), self.action_budget_s)
        except TimeoutError:
            work.add_done_callback(lambda done: self._late(done, click.message_id))
            return {"toast": cards.toast("info", say("steps.working", locale))}
        except (redis.exceptions.RedisError, OSError) as e:
            log.error("feishu_click_failed", error=repr(e)[:200])
            text = wording.store_unreachable(locale, changed_nothing=False)
            return {"toast": cards.toast("error", text)}
        return answer.body()

    def _late(self, work: asyncio.Task[Reply], message_id: str | None) -> None:
        """A click that outlived the 3 s: show its card by PATCH once it is done."""
        if work.cancelled() or work.exception() is not None or message_id is None:
            return
        answer = work.result()
        if answer.card is not None:
            self.tasks.spawn(self.client.patch_card(message_id, answer.card), name="feishu-late")

    async def act(self, click: Click) -> Reply:
        """What the click does; a refusal (wrong person, stale card) changes nothing.

        A Feishu API failure on the way is logged once and answered with a sentence.
        """
        try:
            return await self._act(click)
        except FeishuError as e:
            report(log, "feishu_click_api_error", e)
            person = self.engine.directory.by_feishu_id(click.open_id)
            return Reply(cards.toast("error", apology(person.locale if person else "zh", e)))

    async def _act(self, click: Click) -> Reply:
        person = await self.identity.person_for(click.open_id)
        if person is None:
            return Reply(cards.toast("error", not_in_directory("zh", self.hr_name)))
        if (action := click.value.get("action")) == buttons.LEAVE_FORM_SUBMIT:
            return await self._leave_submit(click, person)
        if action in (buttons.FEED_CREATE, buttons.FEED_REVOKE):
            return await self._feed_click(action, person)
        return self.reply(await self.answer(click, person), person)

    async def answer(self, click: Click, person: Person) -> Answer:
        """The core's answer to the button that was clicked."""
        if click.value.get("action") == buttons.BULK_APPROVE:  # a digest's [Approve selected]
            ticked = click.form.get(buttons.BULK_ITEMS)
            done = await self.core.approve_selected(
                person, ticked if isinstance(ticked, list) else []
            )
            if not done.ok:
                return done
            title = say("button.approve_selected", person.locale)
            return replace(done, card=Closed(title, done.text))  # the digest becomes the summary
        try:
            action, ref = buttons.parse_feishu_value(click.value)
        except ValueError:
            return self.core.not_valid(person.locale)
        if isinstance(ref, buttons.PendingRef):
            if action == buttons.PENDING_CANCEL:
                return await self.core.cancel(person, ref.pending_id, thread=ref.thread)
            at = At(PLATFORM, click.message_id) if click.message_id else None
            return await self.core.confirm(person, ref.pending_id, thread=ref.thread, at=at)
        match action:
            case buttons.REQUEST_APPROVE:
                return await self.core.approve(person, ref.request_id, ref.step)
            case buttons.REQUEST_REJECT:
                return await self.core.open_reject(person, ref.request_id, ref.step)
            case buttons.REQUEST_REJECT_SUBMIT:
                reason = str(click.form.get(cards.REASON_INPUT) or "")
                return await self.core.reject(person, ref.request_id, ref.step, reason)
            case buttons.COUNTER_OPEN:
                return await self.core.open_counter(person, ref.request_id, ref.step)
            case buttons.COUNTER_SUBMIT:
                start, end, note = parse_counter_form(click.form)
                return await self.core.suggest_dates(
                    person, ref.request_id, ref.step, start, end, note
                )
            case buttons.COUNTER_ACCEPT | buttons.COUNTER_DECLINE:
                accept = action == buttons.COUNTER_ACCEPT
                return await self.core.answer_counter(person, ref.request_id, accept)
        return await self.core.back(person, ref.request_id)

    def reply(self, answer: Answer, person: Person) -> Reply:
        """A toast with the answer's sentence, and the clicked card redrawn when it changed."""
        card = (
            render(answer.card, self.engine, answer.locale or person.locale)
            if answer.card
            else None
        )
        return Reply(cards.toast(answer.tone, answer.text), card)


__all__ = ["Click", "FeishuBot", "Reply", "message_text", "thread_key"]
