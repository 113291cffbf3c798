"""`approvals-bot chat --as PERSON`: a DM with the bot in the terminal, over the real agent and engine.

Confirm cards become a [y/N] prompt answered by the person. Works with piped input, one
line per message or answer, so a conversation can be scripted; --json prints step events.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import IO, Any

from agent.events import ProposalReady, StepEvent
from agent.i18n import detect_locale
from agent.tools.describe import request_line, what, where_it_is
from bot import wording
from bot.conversation import CardLifecycle, CardRef, CardRegistry, CardView, Interactions
from bot.conversation.buttons import step_value
from bot.conversation.feeds import CalendarFeeds
from bot.conversation.interactions import Answer
from bot.conversation.turn_view import show_turn
from bot.presentation.card_views import card_of
from bot.presentation.confirm import proposal_card
from bot.presentation.counter import counter_card
from bot.presentation.forms import FieldKind, Form, FormField, counter_fields, counter_form
from bot.presentation.history import conversation_lines
from bot.presentation.steps import TaskLine, TaskStatus
from bot.presentation.text import plain, step_text, to_text
from bot.runtime import Runtime
from bot.wording import say
from workflow.bulk import MAX_ITEMS
from workflow.config import Person
from workflow.errors import WorkflowError
from workflow.models import CounterStatus

HELP = """Type a message to the bot, or a command:
  /as PERSON   switch to another person (e.g. an approver) — a new conversation
  /pending     your pending approvals, to approve, reject or suggest other dates
  /offers      dates an approver suggested for your requests, to accept or decline
  /approve all | /approve ID ID …   approve several of your pending approvals at once
  /calendar    a secret link to your team's leave calendar (a new one turns the last off)
  /calendar off  turn your calendar link off
  /history     this conversation so far
  /help        this text
  /quit        leave (Ctrl-D also works)"""

CALENDAR_COMMANDS = ("/calendar", "/日历")
CALENDAR_OFF = ("off", "revoke", "关闭", "停用")

PLATFORM = "terminal"  # the name its confirm cards are registered under
# answers to a y/N prompt; any other text is a message in the card's thread
YES = ("y", "yes", "是", "好", "确认")
NO = ("n", "no", "否", "不", "不要", "取消", "cancel")
# the kinds with their own y/N question in the catalogue (chat.prompt.*)
PROMPTS = frozenset({"submit", "decide", "withdraw", "remind", "delegate"})


def field_prompt(f: FormField, locale: str) -> str:
    """A form field as the terminal asks it: 'First day (YYYY-MM-DD, Enter for 2026-12-14): ',
    'Note to 张三 (optional): ' / '开始日期（YYYY-MM-DD，回车即 2026-12-14）：'."""
    how = ""
    if f.kind is FieldKind.DATE and isinstance(f.initial, str):
        how = say("chat.field.date_default", locale, value=f.initial)
    elif f.kind is FieldKind.DATE:
        how = say("chat.field.date", locale)
    elif not f.required:
        how = say("form.optional", locale)
    return say("chat.field", locale, label=f.label, how=how)


class TerminalTurn:
    """A turn in the terminal, fed by the shared `show_turn`: the step lines, the confirm card
    and the answer Slack and Feishu show, as text (a finished step prints once; no live update)."""

    redraws = False  # a printed line stays as printed: each step is printed once, when final

    def __init__(self, session: ChatSession, locale: str) -> None:
        self.session = session
        self.locale = locale  # the language the person wrote in, as on Slack and Feishu
        self.proposals: list[ProposalReady] = []

    async def task(
        self, call_id: str, title: str, status: TaskStatus, output: str | None = None
    ) -> None:
        if status in ("complete", "error"):
            self.session.say(step_text(TaskLine(call_id, title, status, output), self.locale))

    async def card(self, proposal: ProposalReady) -> None:
        """Print the confirm card; the core records it, so a draft it replaces says so.

        Recorded first: the replaced draft is printed again (closed, "Replaced by the card
        below") before the new card, since printed lines cannot move and "below" must be true.
        """
        session = self.session
        engine = session.runtime.engine
        self.proposals.append(proposal)
        session.card_locales[proposal.pending_id] = self.locale
        address = f"{session.thread}:{proposal.pending_id}"
        person = engine.person(session.person)
        await session.core.cards.confirm_posted(
            person, proposal, PLATFORM, address, session.redraw, locale=self.locale
        )
        # the request a decision, withdrawal or reminder is about, as the engine has it now
        session.say(to_text(await proposal_card(proposal, self.locale, engine)))

    async def notice(self, text: str) -> None:
        self.session.say(f"  ! {text}")

    async def finish(self, text: str) -> None:
        self.session.say(f"bot> {plain(text)}")


@dataclass
class ChatSession:
    """One terminal conversation: who is speaking and the thread it runs in."""

    runtime: Runtime
    person: str
    json_mode: bool = False
    read: Callable[[], str | None] = field(default=lambda: None)
    out: IO[str] = field(default_factory=lambda: sys.stdout)
    thread: str = ""
    card_locales: dict[str, str] = field(default_factory=dict)  # pending id: its card's language

    def __post_init__(self) -> None:
        self.switch(self.person)
        engine = self.runtime.engine
        cards = CardLifecycle(engine, CardRegistry(self.runtime.redis, engine.keys.org))
        self.core = Interactions(engine, self.runtime.memory, cards)

    def switch(self, person: str) -> None:
        self.runtime.engine.person(person)  # NotFound for someone not in the directory
        self.person = person
        self.thread = f"cli:{person}:{secrets.token_hex(4)}"

    @property
    def locale(self) -> str:
        return self.runtime.engine.person(self.person).locale

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def emit(self, data: dict[str, Any]) -> None:
        self.say(json.dumps(data, ensure_ascii=False, default=str))

    async def ask(self, prompt: str) -> str:
        if not self.json_mode:
            self.out.write(prompt)
            self.out.flush()
        answer = await asyncio.to_thread(self.read)
        if answer is not None and not self.out.isatty() and not self.json_mode:
            self.say(answer.strip())  # echo piped answers so a transcript reads naturally
        return (answer or "").strip()

    # --- one message -------------------------------------------------------------------------

    async def message(self, text: str) -> None:
        proposals = await self.run_turn(text)
        replaced = {p.replaces for p in proposals if p.replaces}
        for p in proposals:
            if p.pending_id not in replaced:  # a later card of this turn superseded it
                await self.confirm_card(p)

    async def run_turn(self, text: str) -> list[ProposalReady]:
        """Show one agent turn (its steps, cards and answer); returns the cards it posted."""
        events = self.runtime.agent.run(self.thread, self.person, text)
        if self.json_mode:
            return await self._emit_events(events)
        view = TerminalTurn(self, detect_locale(text, self.locale))
        await show_turn(events, view)
        return view.proposals

    async def redraw(self, card: CardRef, view: CardView) -> bool:
        """A card the core changed (a draft replaced by a later one): printed again, as it now reads."""
        self.say(to_text(card_of(view, self.runtime.engine, card.locale)))
        return True

    async def _emit_events(self, events: AsyncIterator[StepEvent]) -> list[ProposalReady]:
        """--json: every step event as one JSON line, for scripts."""
        proposals = []
        async for event in events:
            self.emit(event.to_dict())
            if isinstance(event, ProposalReady):
                proposals.append(event)
        return proposals

    async def confirm_card(self, p: ProposalReady) -> None:
        """The card's buttons: y confirms, n (or nothing) cancels; anything else is the thread's
        next message, as on Slack and Feishu, where a correction is typed under the card ("make
        it only tomorrow" replaces the draft), and the card still open is asked about again."""
        kind = p.action if p.action in PROMPTS else "submit"
        locale = self.card_locales.get(p.pending_id, self.locale)  # the language it was shown in
        answer = await self.ask(wording.say(f"chat.prompt.{kind}", locale))
        person = self.runtime.engine.person(self.person)
        if answer.strip() and answer.strip().lower() not in YES + NO:
            proposals = await self.run_turn(answer.strip())
            replaced = {q.replaces for q in proposals if q.replaces}
            for q in proposals:
                if q.pending_id not in replaced:
                    await self.confirm_card(q)
            if p.pending_id not in replaced:
                await self.confirm_card(p)
            return
        if answer.lower() in YES:
            done = await self.core.confirm(person, p.pending_id, thread=self.thread)
        else:
            done = await self.core.cancel(person, p.pending_id, thread=self.thread)
        result: dict[str, Any] = {"pending_id": p.pending_id}
        if not done.ok:
            code = done.error.code if done.error else "refused"
            result |= {"event": "refused", "error": code, "message": done.text}
            line = wording.say("chat.not_done", locale, text=done.text)
        elif done.outcome is None:
            result["event"] = "cancelled"
            line = wording.say("chat.cancelled", locale, text=done.text)
        else:
            req = done.outcome.request
            result |= {"event": "confirmed", "repeated": done.outcome.repeated}
            if req is not None:
                result |= {"request_id": req.id, "status": req.status.value}
                engine = self.runtime.engine
                # the request as its lists read it, in their punctuation
                line = request_line(req, engine.config, engine.directory, locale)
            else:
                line = done.text
            line = wording.say("chat.confirmed", locale, text=line)
        self.emit(result) if self.json_mode else self.say(line)

    # --- commands -----------------------------------------------------------------------------

    async def pending(self) -> None:
        engine = self.runtime.engine
        mine = await engine.my_approvals(self.person)
        if not mine.requests:
            self.say(wording.say("read.no_approvals", self.locale))
            return
        for req in mine.requests:
            view = await engine.request_view(req.id, self.person)
            who = engine.person(req.requester).name
            self.say(
                f"{req.id} "
                + wording.whose(who, what(req, engine.config, self.locale), self.locale)
            )
            if req.fields.get("reason"):
                self.say("  " + wording.say("chat.reason", self.locale, text=req.fields["reason"]))
            if view.team_out:
                names = ", ".join(o.name for o in view.team_out)
                self.say("  " + wording.say("home.out", self.locale, out=names))
            choice = (await self.ask(wording.say("chat.decide", self.locale))).lower()
            if choice not in ("a", "r", "o"):
                continue
            step = req.open_step()
            me = engine.person(self.person)
            if choice == "o":
                done = await self.suggest(me, req.id, step.index)
            elif choice == "r":
                reason = await self.ask(wording.say("chat.reject_reason", self.locale))
                done = await self.core.reject(me, req.id, step.index, reason)
            else:
                done = await self.core.approve(me, req.id, step.index)
            if not done.ok:
                self.say(f"  ✗ {done.text}")
                continue
            decided = await engine.get_request(req.id, self.person)
            self.say("  → " + where_it_is(decided, engine.directory, self.locale))
        if mine.total > len(mine.requests):  # the oldest page: /pending again for the next
            self.say(wording.say("line.and_more", self.locale, n=mine.total - len(mine.requests)))

    async def calendar(self, args: list[str]) -> None:
        """/calendar: a new team calendar link; /calendar off: turn it off (the conversation core does both)."""
        runtime = self.runtime
        feeds = CalendarFeeds(runtime.engine, runtime.settings.base_url)
        me = runtime.engine.person(self.person)
        off = bool(args) and args[0].lower() in CALENDAR_OFF
        answer = await (feeds.revoke(me) if off else feeds.create(me))
        if self.json_mode:
            self.emit({"event": "calendar", "ok": answer.ok, "text": answer.text})
        else:
            self.say(answer.text)

    async def fill(self, form: Form) -> dict[str, str]:
        """A shared form asked field by field (`field_prompt`); a blank answer is the field's
        default, as a Slack or Feishu input starts filled with it."""
        got = {}
        for f in form.fields:
            answer = await self.ask(field_prompt(f, self.locale))
            got[f.name] = answer or (f.initial if isinstance(f.initial, str) else "")
        return got

    async def suggest(self, me: Person, request_id: str, step: int) -> Answer:
        """The counter form (bot/presentation/forms.py) as prompts: first day, last day, a note."""
        engine = self.runtime.engine
        form = counter_form(await engine.get_request(request_id, me.id), engine, self.locale)
        got = counter_fields(**await self.fill(form))
        done = await self.core.suggest_dates(
            me, request_id, step, got["start"], got["end"], got["note"]
        )
        if done.ok:
            self.say(f"  ✓ {done.text}")
        return done

    async def approve_selected(self, args: list[str]) -> None:
        """/approve all, or /approve R-… R-…: one confirm, each decided on its own, one summary."""
        engine = self.runtime.engine
        # "all": the oldest a bulk decision takes (it refuses more)
        page = await engine.my_approvals(self.person, limit=MAX_ITEMS)
        mine = {r.id: r for r in page.requests}
        ids = list(mine) if [a.lower() for a in args] == ["all"] else [a.upper() for a in args]
        values = [step_value(i, (mine[i].current_step or 0) if i in mine else 0) for i in ids]
        if values:
            answer = await self.ask(say("dialog.bulk.title", self.locale) + " [y/N] ")
            if answer.lower() not in ("y", "yes", "是", "好", "确认"):
                return
        done = await self.core.approve_selected(engine.person(self.person), values)
        self.say(done.text)

    async def offers(self) -> None:
        """Dates an approver suggested for the person's requests: accept, decline or skip each."""
        engine = self.runtime.engine
        me = engine.person(self.person)
        open_ = [
            r
            for r in await engine.my_requests(self.person)
            if r.counter is not None and r.counter.status is CounterStatus.OPEN
        ]
        if not open_:
            self.say(say("line.no_offers", self.locale))
            return
        for req in open_:
            view = await engine.request_view(req.id, self.person)
            self.say(to_text(counter_card(req, engine, self.locale, view.balance_after)))
            choice = (await self.ask(say("prompt.counter", self.locale))).lower()
            if choice not in ("a", "d"):
                continue
            done = await self.core.answer_counter(me, req.id, accept=choice == "a")
            self.say(f"  {'→' if done.ok else '✗'} {done.text}")

    async def history(self) -> None:
        self.say("\n".join(conversation_lines(await self.runtime.memory.load(self.thread))))

    async def handle(self, line: str) -> bool:
        """Handle one input line; False to stop."""
        line = line.strip()
        if not line:
            return True
        if line in ("/quit", "/exit"):
            return False
        if line == "/help":
            self.say(HELP)
        elif line.startswith("/as"):
            try:
                self.switch(line[3:].strip())
                self.say(
                    wording.say(
                        "chat.now_you",
                        self.locale,
                        who=self.runtime.engine.person(self.person).name,
                    )
                )
            except WorkflowError as e:
                self.say(e.localized(self.locale))
        elif line == "/pending":
            await self.pending()
        elif line.split()[0] in CALENDAR_COMMANDS:
            await self.calendar(line.split()[1:])
        elif line == "/history":
            await self.history()
        elif line == "/offers":
            await self.offers()
        elif line.startswith("/approve"):
            await self.approve_selected(line.split()[1:])
        elif line.startswith("/"):
            self.say(HELP)
        else:
            await self.message(line)
        return True


async def run_chat(
    runtime: Runtime,
    person: str,
    json_mode: bool,
    stdin: IO[str] = sys.stdin,
    out: IO[str] = sys.stdout,
) -> int:
    """The REPL: read a line, answer it, until EOF or /quit."""

    def read() -> str | None:
        line = stdin.readline()
        return line if line else None

    session = ChatSession(runtime, person, json_mode, read, out)
    interactive = stdin.isatty()
    if interactive and not json_mode:
        name = runtime.engine.person(person).name
        store = "Redis" if runtime.persistent else wording.say("chat.in_process", session.locale)
        session.say(wording.say("chat.welcome", session.locale, who=name, store=store))
    try:
        while True:
            if interactive and not json_mode:
                out.write(f"{runtime.engine.person(session.person).name}> ")
                out.flush()
            line = await asyncio.to_thread(read)
            if line is None:
                return 0
            if not interactive and not json_mode:
                session.say(f"{runtime.engine.person(session.person).name}> {line.strip()}")
            if not await session.handle(line):
                return 0
    finally:
        await runtime.close()
