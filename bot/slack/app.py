"""The Slack bot: Bolt listeners that turn DMs, /leave, button clicks and forms into agent turns and engine calls.

Every handler acks within Slack's 3 seconds. A DM's agent turn is queued before the ack
(bot/slack/queued.py: verify, de-duplicate and enqueue in one Redis call) and run by a turn
runner (bot/queue); other slow work (Web API calls after a click) runs in a task we keep. Bolt answers the HTTP request once the (fast) listener returns
(process_before_response), so no work runs in a task Bolt keeps and we cannot drain.
Identity is the Slack user who sent the event, mapped to the directory; never the text.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import redis.exceptions
import structlog
from aiohttp import web
from slack_bolt.adapter.aiohttp import to_bolt_request
from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from agent.catalogue import say
from agent.i18n import detect_locale
from bot import wording
from bot.apierrors import apology, report
from bot.budget import VerificationBudget
from bot.conversation import (
    Answer,
    CardLifecycle,
    CardRegistry,
    Interactions,
    RejectForm,
    buttons,
)
from bot.conversation.feeds import CalendarFeeds
from bot.conversation.forms import approvers_preview, submit_delegation, submit_leave
from bot.conversation.interactions import At
from bot.conversation.turn_view import agent_turn
from bot.presentation.card_views import Closed, CounterForm
from bot.presentation.text import LIST_MAX
from bot.queue import QueueUnavailable, TurnJournal
from bot.queue.journal import ANSWERED
from bot.runtime import Runtime
from bot.slack import blocks, blocks_counter, blocks_delegation, blocks_home
from bot.slack.edge import SlackEdge
from bot.slack.errors import SlackCallFailed
from bot.slack.identity import SlackIdentity
from bot.slack.middleware import PERSON, drop_retries, person_in_context
from bot.slack.queued import SlackIngress, SlackTurnHandler, submit_command, submit_dm
from bot.slack.render import PLATFORM, address, render, slack_cards
from bot.slack.turns import ThreadView
from bot.tasks import BackgroundTasks
from workflow.config import Person
from workflow.errors import (
    StoreUnavailable,
)

log = structlog.get_logger("slack")
FORM_BLOCKS = {
    "leave_type": "leave_type",
    "start": "start",
    "end": "end",
    "start_half": "halves",
    "end_half": "halves",
    "reason": "reason",
}


@dataclass(frozen=True)
class Click:
    """What a block_actions payload says: who clicked what, where."""

    team: str
    user: str
    value: str
    channel: str | None
    ts: str | None
    thread_ts: str | None
    trigger_id: str | None

    @classmethod
    def of(cls, body: Any) -> Click:
        """Read a block_actions payload.

        Raises:
            ValueError: the payload has no user or no action (not a button click).
        """

        def obj(value: Any) -> dict[str, Any]:
            return value if isinstance(value, dict) else {}

        body = obj(body)
        user, team = obj(body.get("user")), obj(body.get("team"))
        actions = body.get("actions")
        first = actions[0] if isinstance(actions, list) and actions else None
        action = obj(first)
        if not isinstance(user.get("id"), str) or not isinstance(first, dict):
            raise ValueError("not a button click: the payload has no user or no action")
        container, message, channel = (
            obj(body.get("container")),
            obj(body.get("message")),
            obj(body.get("channel")),
        )

        def text(value: Any) -> str | None:
            return value if isinstance(value, str) else None

        return cls(
            team=text(team.get("id")) or text(user.get("team_id")) or "",
            user=user["id"],
            value=text(action.get("value")) or "",
            channel=text(container.get("channel_id")) or text(channel.get("id")),
            ts=text(container.get("message_ts")) or text(message.get("ts")),
            thread_ts=text(message.get("thread_ts")),
            trigger_id=text(body.get("trigger_id")),
        )


def thread_key(team_id: str, channel: str, thread_ts: str) -> str:
    return f"slack:{team_id}:{channel}:{thread_ts}"


def not_in_directory(locale: str, hr: str) -> str:
    return wording.not_in_directory(locale, hr, "Slack")


class SlackBot:
    """Bolt app + our handlers, over one runtime."""

    def __init__(
        self,
        runtime: Runtime,
        client: AsyncWebClient,
        signing_secret: str,
        *,
        streaming: bool = True,
        tasks: BackgroundTasks | None = None,
        max_turns: int = 100,
        budget: VerificationBudget | None = None,
    ) -> None:
        self.runtime = runtime
        # Clicks' work at once in this process (turns are bounded by the turn runner): a burst
        # of hundreds would otherwise keep the event loop busy enough to delay acks.
        self.click_slots = asyncio.Semaphore(max_turns)
        self.engine = runtime.engine
        self.client = client
        self.streaming = streaming
        self.tasks = tasks if tasks is not None else BackgroundTasks()
        self.identity = SlackIdentity(self.engine.directory, runtime.redis, client)
        self.cards = slack_cards(self.engine, client)
        registry = CardRegistry(runtime.redis, self.engine.keys.org)
        self.lifecycle = CardLifecycle(self.engine, registry)
        self.core = Interactions(self.engine, runtime.memory, self.lifecycle)
        self.feeds = CalendarFeeds(self.engine, runtime.settings.base_url)
        self.edge = SlackEdge(signing_secret, runtime.redis, budget)
        self._signing_secret = signing_secret
        hr = self.engine.directory.with_role("hr")
        self.hr_name = hr[0].name if hr else "HR"
        self.turns = runtime.turns
        self.ingress = SlackIngress(self.turns, self.edge)
        # this process's turn runner runs Slack's queued turns (serve and worker alike)
        self.turns.runner.register("slack", SlackTurnHandler(self), self.tasks)

    # --- plumbing ----------------------------------------------------------------------------

    @cached_property
    def app(self) -> AsyncApp:
        """The Bolt app and its listeners, built on the first callback Bolt answers.

        A process that only runs turns and delivers (the worker) never builds it.
        """
        app = AsyncApp(
            client=self.client,
            signing_secret=self._signing_secret,
            process_before_response=True,
        )
        app.use(drop_retries(self.runtime.redis))
        app.use(person_in_context(self.identity))
        app.event("message")(self.on_message)
        app.event("app_home_opened")(self.on_home_opened)
        app.command("/leave")(self.on_leave_command)
        app.action(buttons.PENDING_CONFIRM)(self.on_pending_confirm)
        app.action(buttons.PENDING_CANCEL)(self.on_pending_cancel)
        app.action(buttons.REQUEST_APPROVE)(self.on_approve)
        app.action(buttons.REQUEST_REJECT)(self.on_reject_click)
        app.action(buttons.HOME_WITHDRAW)(self.on_home_withdraw)
        app.action(buttons.OPEN_LEAVE_FORM)(self.on_open_leave_form)
        app.view("reject_reason")(self.on_reject_submit)
        app.view("leave_form")(self.on_leave_submit)
        app.action("open_delegation_form")(self.on_open_delegation_form)
        app.action(buttons.FEED_CREATE)(self.on_calendar_feed)
        app.action(buttons.FEED_REVOKE)(self.on_calendar_feed)
        app.view("delegation_form")(self.on_delegation_submit)
        app.action(buttons.COUNTER_OPEN)(self.on_counter_open)
        app.action(buttons.COUNTER_ACCEPT)(self.on_counter_answer)
        app.action(buttons.COUNTER_DECLINE)(self.on_counter_answer)
        app.view(blocks_counter.CALLBACK_ID)(self.on_counter_submit)
        app.action(buttons.BULK_ITEMS)(self.on_tick)
        app.action(buttons.BULK_APPROVE)(self.on_bulk_approve)
        return app

    async def handle(self, request: web.Request) -> web.Response:
        """POST /slack/events: verified, parsed and de-duplicated at the edge, then Bolt's listeners.

        A person's DM is verified, queued (or refused with 503) and acked by the ingress fast
        path before any of that (bot/slack/queued.py).
        """
        return await self.ingress.handle(request, self._edge)

    async def _edge(self, request: web.Request) -> web.Response:
        return await self.edge.handle(request, self._dispatch)

    async def _dispatch(self, request: web.Request) -> BoltResponse:
        if (queued := await self.ingress.dm(request)) is not None:
            return queued
        return await self.app.async_dispatch(await to_bolt_request(request))

    async def _ephemeral(self, channel: str | None, user_id: str, text: str) -> None:
        if channel is None:
            return
        try:
            await self.client.chat_postEphemeral(channel=channel, user=user_id, text=text)
        except SlackApiError as e:
            log.warning("slack_ephemeral_failed", error=e.response.get("error"))

    def _later(self, work: Any, name: str) -> None:
        """Run a click's slow part after the ack, at most `max_turns` at a time."""

        async def limited() -> None:
            async with self.click_slots:
                await work

        self.tasks.spawn(limited(), name=name)

    async def _clicker(
        self, body: dict[str, Any], context: AsyncBoltContext
    ) -> tuple[Click, Person] | None:
        """The click and the person who made it; someone unknown is told so privately."""
        try:
            click = Click.of(body)
        except ValueError as e:
            log.warning("slack_click_unreadable", error=str(e))
            return None
        person = context.get(PERSON)
        if person is None:
            await self._ephemeral(click.channel, click.user, not_in_directory("en", self.hr_name))
            return None
        return click, person

    # --- DMs ---------------------------------------------------------------------------------

    async def on_message(self, body: dict[str, Any], event: dict[str, Any]) -> None:
        """A DM to the bot that came through Bolt (Socket Mode): queue its turn like the fast path.

        Raises:
            QueueUnavailable: not queued in time; Bolt answers 500 and Slack delivers it again.
        """
        if event.get("channel_type") != "im" or event.get("bot_id") or event.get("subtype"):
            return
        await submit_dm(self.turns, body, event)

    async def dm_turn(
        self,
        team: str,
        channel: str,
        user_id: str,
        thread_ts: str,
        text: str,
        person: Person | None,
        *,
        journal: TurnJournal | None = None,
    ) -> None:
        """Run one agent turn and show it in the thread; every failure still answers the person.

        `journal`: the queue's record of what an earlier run of this turn posted (the runner
        holds the thread's lease); None: run outside the queue, under the memory lock.
        """
        queued, journal = journal, journal or TurnJournal.none()
        locale = detect_locale(text)
        try:
            if person is None:  # unknown, or Slack failed when we asked: ask again, now
                person = await self.identity.person_for(team, user_id)
            if person is None:
                await self.client.chat_postMessage(
                    channel=channel,
                    thread_ts=thread_ts,
                    text=not_in_directory(locale, self.hr_name),
                )
                await journal.put(ANSWERED, "1")
                return
            locale = detect_locale(text, person.locale)
            # one language in the thread: the one they wrote in, for the answer and its cards
            view = ThreadView(
                self.client,
                channel,
                thread_ts,
                team,
                user_id,
                locale,
                streaming=self.streaming,
                engine=self.engine,
                posted=lambda p, ts, journal_write: self.lifecycle.confirm_posted(
                    person,
                    p,
                    PLATFORM,
                    address(channel, ts),
                    self.cards.update,
                    locale=locale,
                    also=journal_write,
                ),
                journal=journal,
                actor=person.id,
            )
            thread = thread_key(team, channel, thread_ts)
            await view.render(agent_turn(self.runtime.agent, thread, person.id, text, queued))
        except (StoreUnavailable, redis.exceptions.RedisError, OSError) as e:
            log.error("slack_turn_failed", error=str(e))
            await self._say(channel, thread_ts, wording.store_unreachable(locale))
        except SlackApiError as e:
            # Slack's own error code says enough; anything stranger (an HTML page, a 5xx, no
            # answer) is logged with its traceback, once
            failed = SlackCallFailed.of("turn", e)
            report(log, "slack_turn_api_error", failed)
            await self._say(channel, thread_ts, apology(locale, failed))

    async def _say(self, channel: str, thread_ts: str, text: str) -> None:
        """Best effort: Slack may still be failing."""
        try:
            await self.client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=text)
        except SlackApiError as e:
            log.warning("slack_failure_notice_failed", error=e.response.get("error"))

    # --- /leave -------------------------------------------------------------------------------

    async def on_leave_command(self, ack, body: dict[str, Any], context) -> None:
        """`/leave` opens the form at once; `/leave <text>` hands the text to the agent in the DM."""
        team, user_id, text = (
            body.get("team_id", ""),
            body["user_id"],
            (body.get("text") or "").strip(),
        )
        person = context.get(PERSON)
        locale = detect_locale(text, person.locale if person else "en")
        if person is None:
            await ack(not_in_directory(locale, self.hr_name))
            return
        if not text:
            await ack()  # the trigger_id lives 3 s: open the modal before anything slow
            self.tasks.spawn(self._open_leave_form(body["trigger_id"], person), name="leave_form")
            return
        try:
            await submit_command(self.turns, team, user_id, text, body.get("trigger_id") or "")
        except QueueUnavailable:
            await ack(say("error.queue_down", locale))
            return
        await ack(say("ack.command", locale))

    async def _open_leave_form(self, trigger_id: str, person: Person) -> None:
        approvers = approvers_preview(self.engine, person)
        view = blocks.leave_modal(person, self.engine, person.locale, approvers=approvers)
        try:
            await self.client.views_open(trigger_id=trigger_id, view=view)
        except SlackApiError as e:
            log.warning("slack_views_open_failed", error=e.response.get("error"))

    async def on_open_leave_form(self, ack, body: dict[str, Any], context) -> None:
        await ack()
        person = context.get(PERSON)
        if person is not None:
            self.tasks.spawn(self._open_leave_form(body["trigger_id"], person), name="leave_form")

    async def on_leave_submit(
        self, ack, body: dict[str, Any], view: dict[str, Any], context
    ) -> None:
        """The form's Submit is the confirmation: validate, submit, or show errors on the fields."""
        person = context.get(PERSON)
        if person is None:
            await ack(
                response_action="errors",
                errors={"leave_type": not_in_directory(detect_locale(""), self.hr_name)[:150]},
            )
            return
        fields = blocks.parse_leave_form(view["state"]["values"])
        result = await submit_leave(self.engine, person, fields)
        if result.errors:
            errors: dict[str, str] = {}
            for name, text in result.errors.items():  # the half days share one block
                errors.setdefault(FORM_BLOCKS[name], text)
            await ack(response_action="errors", errors=errors)
            return
        await ack()

    # --- delegation (Home tab) ----------------------------------------------------------------

    async def on_open_delegation_form(self, ack, body: dict[str, Any], context) -> None:
        await ack()
        person = context.get(PERSON)
        if person is not None:
            view = blocks_delegation.delegation_modal(person, self.engine, person.locale)
            self.tasks.spawn(
                self.client.views_open(trigger_id=body["trigger_id"], view=view),
                name="delegation_form",
            )

    async def on_delegation_submit(
        self, ack, body: dict[str, Any], view: dict[str, Any], context
    ) -> None:
        """The form's Submit is the confirmation: set the delegation or show errors on the fields."""
        person = context.get(PERSON)
        form = blocks_delegation.parse_delegation_form(view["state"]["values"])
        if person is None:
            await ack(
                response_action="errors",
                errors={"delegate": not_in_directory(detect_locale(""), self.hr_name)[:150]},
            )
            return
        result = await submit_delegation(self.engine, person, form)
        if result.errors:
            errors = {
                blocks_delegation.DELEGATION_BLOCKS[k]: v[:150] for k, v in result.errors.items()
            }
            await ack(response_action="errors", errors=errors)
            return
        await ack()
        self.tasks.spawn(self.publish_home(body["user"]["id"], person), name="home")

    # --- confirm cards -----------------------------------------------------------------------

    async def on_pending_confirm(self, ack, body: dict[str, Any], context) -> None:
        await ack()
        self._later(self._pending_click(body, context, confirm=True), "pending_confirm")

    async def on_pending_cancel(self, ack, body: dict[str, Any], context) -> None:
        await ack()
        self._later(self._pending_click(body, context, confirm=False), "pending_cancel")

    async def _pending_click(self, body: dict[str, Any], context, *, confirm: bool) -> None:
        found = await self._clicker(body, context)
        if found is None:
            return
        click, person = found
        thread = (
            thread_key(click.team, click.channel, click.thread_ts)
            if click.channel and click.thread_ts
            else None
        )
        if confirm:
            at = (
                At(PLATFORM, address(click.channel, click.ts))
                if click.channel and click.ts
                else None
            )
            answer = await self.core.confirm(person, click.value, thread=thread, at=at)
        else:
            answer = await self.core.cancel(person, click.value, thread=thread)
        await self._show(click, answer, person)

    async def _show(self, click: Click, answer: Answer, person: Person) -> None:
        """A click's answer: the clicked card redrawn, and a refusal said privately."""
        if answer.card is not None and click.channel and click.ts:
            msg = render(answer.card, self.engine, answer.locale or person.locale)
            await self.client.chat_update(
                channel=click.channel, ts=click.ts, text=msg.text, blocks=msg.blocks
            )
        if not answer.ok:
            await self._ephemeral(click.channel, click.user, answer.text)

    # --- approver cards --------------------------------------------------------------------

    async def on_approve(self, ack, body: dict[str, Any], context) -> None:
        """Approve (its confirm dialog was the confirmation); the engine checks who may."""
        await ack()
        self._later(self._approve(body, context), "request_approve")

    async def _step_click(
        self, body: dict[str, Any], context
    ) -> tuple[Click, Person, buttons.StepRef] | None:
        """An approver card's click: who, and which step (a value we never built is refused)."""
        found = await self._clicker(body, context)
        if found is None:
            return None
        click, person = found
        try:
            return click, person, buttons.parse_step_value(click.value)
        except ValueError:
            await self._show(click, self.core.not_valid(person.locale), person)
            return None

    async def _approve(self, body: dict[str, Any], context) -> None:
        if (found := await self._step_click(body, context)) is None:
            return
        click, person, ref = found
        await self._show(click, await self.core.approve(person, ref.request_id, ref.step), person)
        await self._refresh_home_if_there(body, person)

    async def on_reject_click(self, ack, body: dict[str, Any], context) -> None:
        """Reject asks for the reason in a small modal first (opened at once: the trigger lives 3 s)."""
        await ack()
        self._later(self._reject_modal(body, context), "request_reject")

    async def _reject_modal(self, body: dict[str, Any], context) -> None:
        if (found := await self._step_click(body, context)) is None:
            return
        click, person, ref = found
        answer = await self.core.open_reject(person, ref.request_id, ref.step)
        if not isinstance(answer.card, RejectForm):
            await self._show(click, answer, person)
            return
        view = blocks.reject_modal(answer.card.request, ref.step, self.engine, person.locale)
        try:
            await self.client.views_open(trigger_id=click.trigger_id, view=view)
        except SlackApiError as e:
            log.warning("slack_views_open_failed", error=e.response.get("error"))

    async def on_reject_submit(
        self, ack, body: dict[str, Any], view: dict[str, Any], context
    ) -> None:
        person = context.get(PERSON)
        meta = json.loads(view.get("private_metadata") or "{}")
        reason = ((view["state"]["values"].get("reason") or {}).get("reason") or {}).get(
            "value"
        ) or ""
        if person is None:
            await ack(
                response_action="errors",
                errors={"reason": "You are not in the approvals directory."},
            )
            return
        answer = await self.core.reject(person, meta["request_id"], int(meta["step"]), reason)
        if not answer.ok:
            await ack(response_action="errors", errors={"reason": answer.text[:150]})
            return
        await ack()

    # --- counter-offers -----------------------------------------------------------------------

    async def on_counter_open(self, ack, body: dict[str, Any], context) -> None:
        """[Suggest other dates] opens the small form at once (the trigger lives 3 s)."""
        await ack()
        self._later(self._counter_modal(body, context), "counter_open")

    async def _counter_modal(self, body: dict[str, Any], context) -> None:
        if (found := await self._step_click(body, context)) is None:
            return
        click, person, ref = found
        answer = await self.core.open_counter(person, ref.request_id, ref.step)
        if not isinstance(answer.card, CounterForm):
            await self._show(click, answer, person)
            return
        where = address(click.channel, click.ts) if click.channel and click.ts else None
        view = blocks_counter.counter_modal(
            answer.card.request, ref.step, self.engine, person.locale, where
        )
        try:
            await self.client.views_open(trigger_id=click.trigger_id, view=view)
        except SlackApiError as e:
            log.warning("slack_views_open_failed", error=e.response.get("error"))

    async def on_counter_submit(
        self, ack, body: dict[str, Any], view: dict[str, Any], context
    ) -> None:
        """The form's Send is the approver's confirmation; a refusal shows on the form."""
        person = context.get(PERSON)
        request_id, step, start, end, note, card = blocks_counter.parse_counter_form(view)
        if person is None:
            await ack(
                response_action="errors",
                errors={"start": not_in_directory(detect_locale(""), self.hr_name)[:150]},
            )
            return
        answer = await self.core.suggest_dates(person, request_id, step, start, end, note)
        if not answer.ok:  # each refused field under its own input, the rest under the first day
            errors = {k: v[:150] for k, v in answer.fields.items() if k in blocks_counter.BLOCKS}
            await ack(response_action="errors", errors=errors or {"start": answer.text[:150]})
            return
        await ack()
        channel, _, ts = (card or "").partition(":")
        if channel and ts and answer.card is not None:  # the card now says what was suggested
            msg = render(answer.card, self.engine, person.locale)
            await self.client.chat_update(channel=channel, ts=ts, text=msg.text, blocks=msg.blocks)
        await self._ephemeral(channel or None, body["user"]["id"], answer.text)

    async def on_counter_answer(self, ack, body: dict[str, Any], context) -> None:
        """The requester's [Accept] or [Decline] of the suggested dates."""
        await ack()
        self._later(self._counter_answer(body, context), "counter_answer")

    async def _counter_answer(self, body: dict[str, Any], context) -> None:
        if (found := await self._step_click(body, context)) is None:
            return
        click, person, ref = found
        accept = (body.get("actions") or [{}])[0].get("action_id") == buttons.COUNTER_ACCEPT
        answer = await self.core.answer_counter(person, ref.request_id, accept)
        await self._show(click, answer, person)

    # --- bulk decisions ----------------------------------------------------------------------

    async def on_tick(self, ack) -> None:
        """A tick in a checklist: Slack reports it; nothing happens until [Approve selected]."""
        await ack()

    async def on_bulk_approve(self, ack, body: dict[str, Any], context) -> None:
        """[Approve selected] (its confirm dialog was the one confirmation)."""
        await ack()
        self._later(self._bulk_approve(body, context), "bulk_approve")

    async def _bulk_approve(self, body: dict[str, Any], context) -> None:
        found = await self._clicker(body, context)
        if found is None:
            return
        click, person = found
        state = (body.get("view") or body).get("state") or {}
        ticked = ((state.get("values") or {}).get(buttons.BULK_ITEMS) or {}).get(
            buttons.BULK_ITEMS
        ) or {}
        values = [o.get("value") for o in ticked.get("selected_options") or []]
        answer = await self.core.approve_selected(person, values)
        if click.channel and click.ts and answer.ok:  # the digest becomes the summary
            title = say("button.approve_selected", person.locale)
            answer = replace(answer, card=Closed(title, answer.text, ok=True))
        await self._show(click, answer, person)
        if (body.get("view") or {}).get("type") == "home":
            await self.client.chat_postMessage(channel=click.user, text=answer.text)
            await self.publish_home(click.user, person)

    # --- home ----------------------------------------------------------------------------------

    async def on_home_opened(self, event: dict[str, Any], context) -> None:
        if event.get("tab") not in (None, "home"):
            return
        if (person := context.get(PERSON)) is not None:
            self.tasks.spawn(self.publish_home(event["user"], person), name="home")

    async def publish_home(self, user_id: str, person: Person) -> None:
        engine = self.engine
        mine = await engine.my_requests(person.id, limit=20)
        open_ = [r for r in mine if r.open_step() is not None]
        waiting = await engine.my_approvals(person.id, limit=LIST_MAX)
        approvals = [await engine.request_view(r.id, person.id) for r in waiting.requests]
        balances = await engine.balances(person.id)
        view = blocks.home_view(
            person,
            engine,
            person.locale,
            my_requests=open_,
            approvals=approvals,
            approvals_total=waiting.total,
            balances=balances,
            feed_on=await self.feeds.active(person),
        )
        await self.client.views_publish(user_id=user_id, view=view)

    async def on_calendar_feed(self, ack, body: dict[str, Any], context) -> None:
        """[Team calendar link] / [Turn off calendar link]: the core does it, a modal says what happened."""
        await ack()
        self._later(self._calendar_feed(body, context), "calendar_feed")

    async def _calendar_feed(self, body: dict[str, Any], context) -> None:
        found = await self._clicker(body, context)
        if found is None:
            return
        click, person = found
        revoke = body["actions"][0]["action_id"] == buttons.FEED_REVOKE
        answer = await (self.feeds.revoke(person) if revoke else self.feeds.create(person))
        try:
            view = blocks_home.feed_modal(answer.text, answer.locale or person.locale)
            await self.client.views_open(trigger_id=click.trigger_id, view=view)
        except SlackApiError as e:
            log.warning("slack_views_open_failed", error=e.response.get("error"))
        await self.publish_home(click.user, person)

    async def _refresh_home_if_there(self, body: dict[str, Any], person: Person) -> None:
        if (body.get("view") or {}).get("type") == "home":
            await self.publish_home(body["user"]["id"], person)

    async def on_home_withdraw(self, ack, body: dict[str, Any], context) -> None:
        await ack()
        self._later(self._home_withdraw(body, context), "home_withdraw")

    async def _home_withdraw(self, body: dict[str, Any], context) -> None:
        found = await self._clicker(body, context)
        if found is None:
            return
        click, person = found
        answer = await self.core.withdraw(person, click.value)
        if not answer.ok:
            await self._ephemeral(click.channel, click.user, answer.text)
        await self.publish_home(click.user, person)
