"""The Home tab: my balances, my open requests, what waits for my approval."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

from agent.i18n import t
from agent.tools.describe import carried_note, what, where_it_is
from bot.conversation import buttons
from bot.slack.blocks_base import (
    LIST_MAX,
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
from bot.slack.blocks_cards import decision_buttons
from bot.wording import days_text, leave_type_name, name_of, out_line, say, step_name
from workflow.config import Person
from workflow.engine import Engine
from workflow.leave import Balance
from workflow.models import Request, RequestStatus
from workflow.queries import RequestView

LINE_MAX = 3000


def _balance_value(b: Balance, locale: str) -> str:
    if b.available is None:
        return t(locale, f"no allowance · {b.used:g} used", f"不限额 · 已用 {b.used:g} 天")
    text = t(
        locale,
        f"{days_text(b.available, locale)} left of {b.allowance:g}",
        f"剩余 {b.available:g} / {b.allowance:g} 天",
    ) + carried_note(b, locale)
    if b.reserved:
        text += t(locale, f" ({b.reserved:g} pending)", f"（{b.reserved:g} 天待批）")
    return text


def _balances(balances: Sequence[Balance], engine: Engine, locale: str) -> list[Block]:
    year = balances[0].year if balances else None
    title = t(locale, "My balances", "我的假期余额")
    if year:
        title += t(locale, f" ({year})", f"（{year}）")
    blocks: list[Block] = [section(f"*{title}*")]
    if not balances:
        blocks.append(context(t(locale, "No leave types are set up.", "尚未设置假期类型。")))
        return blocks
    pairs = [
        (escape(leave_type_name(engine, b.leave_type, locale)), _balance_value(b, locale))
        for b in balances
    ]
    for i in range(0, min(len(pairs), 30), 10):
        blocks.append(fields_section(pairs[i : i + 10]))
    return blocks


def _my_requests(requests: Sequence[Request], engine: Engine, locale: str) -> list[Block]:
    open_ = [r for r in requests if r.status is RequestStatus.PENDING]
    blocks: list[Block] = [section(f"*{t(locale, 'My open requests', '我的进行中申请')}*")]
    if not open_:
        blocks.append(context(t(locale, "No open requests.", "没有进行中的申请。")))
    for req in open_[:LIST_MAX]:
        it = what(req, engine.config, locale)
        dialog = confirm_dialog(
            t(locale, "Withdraw this request?", "撤回此申请？"),
            t(
                locale,
                f"{req.id} ({it}) will be withdrawn and your approver told.",
                f"将撤回 {req.id}（{it}），并通知审批人。",
            ),
            t(locale, "Withdraw", "撤回"),
            t(locale, "Keep it", "保留"),
            style="danger",
        )
        text = f"*{escape(req.id)}* · {escape(it)}\n{escape(where_it_is(req, engine.directory, locale))}"
        blocks.append(
            section(
                truncate(text, LINE_MAX),
                block_id=f"home_request:{req.id}",
                accessory=button(
                    t(locale, "Withdraw", "撤回"), "home_withdraw", req.id, confirm=dialog
                ),
            )
        )
    if len(open_) > LIST_MAX:
        blocks.append(context(and_more(len(open_) - LIST_MAX, locale)))
    return blocks


def _approvals(views: Sequence[RequestView], engine: Engine, locale: str) -> list[Block]:
    pending = [v for v in views if v.request.open_step() is not None]
    blocks: list[Block] = [section(f"*{t(locale, 'Waiting for my approval', '待我审批')}*")]
    if not pending:
        blocks.append(context(t(locale, "Nothing is waiting for you.", "没有待你审批的申请。")))
    for view in pending[:LIST_MAX]:
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
                t(locale, ", ", "，").join(out_line(o, locale) for o in view.team_out[:3])
                if view.team_out
                else t(locale, "nobody", "无")
            )
            if len(view.team_out) > 3:
                out += t(
                    locale, f" and {len(view.team_out) - 3} more", f" 等 {len(view.team_out)} 人"
                )
            lines.append(escape(t(locale, f"Also out then: {out}", f"同期请假：{out}")))
        blocks.append(section(truncate("\n".join(lines), LINE_MAX)))
        blocks.append(
            actions(
                *decision_buttons(req, step, engine, locale),
                block_id=f"request:{req.id}:{step.index}",
            )
        )
    if len(pending) > LIST_MAX:
        blocks.append(context(and_more(len(pending) - LIST_MAX, locale)))
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
) -> dict[str, Any]:
    """The Home tab for `person`: a [New leave request] button, balances, requests, approvals,
    and the team calendar link."""
    blocks: list[Block] = [
        header(t(locale, f"Leave and approvals · {person.name}", f"请假与审批 · {person.name}")),
        actions(
            button(
                t(locale, "New leave request", "新建请假"),
                "open_leave_form",
                "leave",
                style="primary",
            ),
            button(
                t(locale, "Delegate my approvals", "委托审批"), "open_delegation_form", "delegate"
            ),
            block_id="home_actions",
        ),
        *_balances(balances, engine, locale),
        divider(),
        *_my_requests(my_requests, engine, locale),
        divider(),
        *_approvals(approvals, engine, locale),
        divider(),
        *_feed(feed_on, locale),
    ]
    return View(type="home", blocks=dump(blocks, VIEW_BLOCKS_MAX)).to_dict()
