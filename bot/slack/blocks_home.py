"""The Home tab: my balances, my open requests, what waits for my approval."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

from agent.tools.describe import accrual_note, carried_note, what, where_it_is
from bot.conversation import buttons
from bot.presentation import bulk
from bot.presentation.text import listed
from bot.slack.blocks_base import (
    VIEW_BLOCKS_MAX,
    VIEW_TITLE_MAX,
    actions,
    and_more,
    button,
    confirm_dialog,
    context,
    divider,
    dump,
    escape,
    fields_section,
    header,
    plain,
    section,
    step_of,
    truncate,
)
from bot.slack.blocks_cards import checklist_blocks, decision_buttons
from bot.wording import days_text, leave_type_name, name_of, out_line, say, step_name
from workflow.config import Person
from workflow.engine import Engine
from workflow.leave import Balance
from workflow.models import Request, RequestStatus
from workflow.queries import RequestView

LINE_MAX = 3000


def _balance_value(b: Balance, locale: str) -> str:
    if b.available is None:
        return say("home.balance.unlimited", locale, used=f"{b.used:g}")
    text = say(
        "home.balance.left",
        locale,
        left=days_text(b.available, locale),
        of=f"{b.allowance:g}",
    ) + carried_note(b, locale)
    if b.reserved:  # as the chat's answer says it, outside the accrual's brackets
        text += say("read.balance_pending", locale, n=f"{b.reserved:g}")
    return text + accrual_note(b, locale)


def _balances(balances: Sequence[Balance], engine: Engine, locale: str) -> list[Block]:
    year = balances[0].year if balances else None
    title = say("home.balances", locale)
    if year:
        title += say("home.year", locale, year=year)
    blocks: list[Block] = [section(f"*{title}*")]
    if not balances:
        blocks.append(context(say("home.no_leave_types", locale)))
        return blocks
    pairs = [
        (escape(leave_type_name(engine, b.leave_type, locale)), _balance_value(b, locale))
        for b in balances
    ]
    for i in range(0, min(len(pairs), 30), 10):
        blocks.append(fields_section(pairs[i : i + 10]))
    return blocks


def _my_requests(requests: Sequence[Request], engine: Engine, locale: str) -> list[Block]:
    page = listed([r for r in requests if r.status is RequestStatus.PENDING])
    blocks: list[Block] = [section(f"*{say('home.my_requests', locale)}*")]
    if not page.shown:
        blocks.append(context(say("home.no_requests", locale)))
    for req in page.shown:
        it = what(req, engine.config, locale)
        dialog = confirm_dialog(
            say("confirm.title.withdraw", locale),
            say("home.withdraw.text", locale, what=it),
            say("button.withdraw", locale),
            say("button.keep", locale),
            style="danger",
        )
        # what and where first; the id last, for whoever needs to quote it
        where = where_it_is(req, engine.directory, locale)
        text = f"*{escape(it)}*\n{escape(where)} · {escape(req.id)}"
        blocks.append(
            section(
                truncate(text, LINE_MAX),
                block_id=f"home_request:{req.id}",
                accessory=button(
                    say("button.withdraw", locale), "home_withdraw", req.id, confirm=dialog
                ),
            )
        )
    if page.more:
        blocks.append(context(and_more(page.more, locale)))
    return blocks


def _approvals(
    views: Sequence[RequestView], total: int | None, engine: Engine, locale: str
) -> list[Block]:
    """The oldest requests waiting for the person (`views`) of `total` (default: all)."""
    page = listed([v for v in views if v.request.open_step() is not None], total)
    blocks: list[Block] = [section(f"*{say('home.approvals', locale)}*")]
    if not page.shown:
        blocks.append(context(say("home.no_approvals", locale)))
    for view in page.shown:
        req = view.request
        step = req.open_step()
        assert step is not None
        who = name_of(engine, req.requester)
        lines = [
            f"*{escape(who)}* · {escape(what(req, engine.config, locale))}",
            escape(
                step_of(step.index, len(req.steps), step_name(step, locale), locale)
                + f" · {req.id}"
            ),
        ]
        if req.is_leave:
            out = (
                say("word.comma", locale).join(out_line(o, locale) for o in view.team_out[:3])
                if view.team_out
                else say("word.nobody", locale)
            )
            if len(view.team_out) > 3:
                out += say("home.out.more", locale, more=len(view.team_out) - 3)
            lines.append(escape(say("home.out", locale, out=out)))
        blocks.append(section(truncate("\n".join(lines), LINE_MAX)))
        blocks.append(
            actions(
                *decision_buttons(req, step, engine, locale),
                block_id=f"request:{req.id}:{step.index}",
            )
        )
    if page.more:
        blocks.append(context(and_more(page.more, locale)))
    ticks = bulk.approve_selected([v.request for v in page.shown], engine, locale)
    if ticks is not None and len(ticks.options) > 1:  # one item is one click already
        blocks += checklist_blocks(ticks)
    return blocks


def _feed(feed_on: bool, locale: str) -> list[Block]:
    """[Team calendar link] (a new one when on) and, when on, [Turn off calendar link]."""
    if not feed_on:
        return [
            actions(
                button(say("button.feed_create", locale), buttons.FEED_CREATE, "create"),
                block_id="home_feed",
            )
        ]
    dialog = confirm_dialog(
        say("dialog.feed_revoke.title", locale),
        say("dialog.feed_revoke.text", locale),
        say("button.feed_revoke", locale),
        say("button.cancel", locale),
        style="danger",
    )
    return [
        context(say("feed.active", locale)),
        actions(
            button(say("button.feed_new", locale), buttons.FEED_CREATE, "create"),
            button(
                say("button.feed_revoke", locale), buttons.FEED_REVOKE, "revoke", confirm=dialog
            ),
            block_id="home_feed",
        ),
    ]


def feed_modal(text: str, locale: str) -> dict[str, Any]:
    """What a calendar-link button did (the new link with how to subscribe, or that it is off)."""
    return View(
        type="modal",
        callback_id="calendar_feed",
        title=plain(say("feed.title", locale), VIEW_TITLE_MAX),
        close=plain(say("button.close", locale), VIEW_TITLE_MAX),
        blocks=dump([section(escape(text))], VIEW_BLOCKS_MAX),
    ).to_dict()


def home_view(
    person: Person,
    engine: Engine,
    locale: str,
    *,
    my_requests: list[Request],
    approvals: list[RequestView],
    balances: list[Balance],
    feed_on: bool = False,
    approvals_total: int | None = None,
) -> dict[str, Any]:
    """The Home tab for `person`: a [New leave request] button, balances, requests, approvals,
    and the team calendar link."""
    blocks: list[Block] = [
        header(say("home.title", locale, who=person.name)),
        actions(
            button(
                say("home.new_leave", locale),
                "open_leave_form",
                "leave",
                style="primary",
            ),
            button(say("home.delegate", locale), "open_delegation_form", "delegate"),
            block_id="home_actions",
        ),
        *_balances(balances, engine, locale),
        divider(),
        *_my_requests(my_requests, engine, locale),
        divider(),
        *_approvals(approvals, approvals_total, engine, locale),
        divider(),
        *_feed(feed_on, locale),
    ]
    return View(type="home", blocks=dump(blocks, VIEW_BLOCKS_MAX)).to_dict()
