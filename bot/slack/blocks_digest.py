"""The worker's DMs: an approver's morning digest, a manager's weekly who's-out, expiry notices."""

from __future__ import annotations

from datetime import date

from agent.i18n import fmt_range, t
from agent.tools.describe import what
from bot.slack.blocks_base import (
    LIST_MAX,
    SlackMessage,
    and_more,
    context,
    escape,
    header,
    message,
    section,
)
from workflow.engine import Engine
from workflow.models import Request
from workflow.queries import OutEntry


def digest_dm(requests: list[Request], engine: Engine, locale: str) -> SlackMessage:
    """'3 requests are waiting for you': one line each, oldest first."""
    n = len(requests)
    title = t(
        locale,
        f"{n} request{'s' if n != 1 else ''} waiting for your approval",
        f"{n} 个申请等待你审批",
    )
    lines = [
        f"• *{escape(engine.person(r.requester).name)}*: {escape(what(r, engine.config, locale))} (`{r.id}`)"
        for r in requests[:LIST_MAX]
    ]
    blocks = [header(title), section("\n".join(lines) or "—")]
    if n > LIST_MAX:
        blocks.append(context(and_more(n - LIST_MAX, locale)))
    blocks.append(
        context(
            t(
                locale,
                "Open the approvals app's Home tab to decide them.",
                "在审批应用的「主页」中处理。",
            )
        )
    )
    return message(title, blocks)


def weekly_out_dm(out: list[OutEntry], start: date, end: date, locale: str) -> SlackMessage:
    """Who in the team is out next week: names and dates only."""
    dates = fmt_range(start, end, False, False, locale)
    title = t(locale, f"Who's out next week ({dates})", f"下周请假的人（{dates}）")
    if not out:
        body = t(locale, "Nobody in your team is out.", "团队中没有人请假。")
    else:
        body = "\n".join(
            f"• *{escape(o.name)}*: {fmt_range(o.start, o.end, o.start_half, o.end_half, locale)}"
            + (t(locale, " (awaiting approval)", "（审批中）") if o.tentative else "")
            for o in out[:LIST_MAX]
        )
    blocks = [header(title), section(body)]
    if len(out) > LIST_MAX:
        blocks.append(context(and_more(len(out) - LIST_MAX, locale)))
    return message(title, blocks)


def expired_dm(
    request: Request, engine: Engine, locale: str, *, for_requester: bool
) -> SlackMessage:
    days = engine.config.policy.expire_after_days
    subject = escape(what(request, engine.config, locale))
    if for_requester:
        text = t(
            locale,
            f"Your request {request.id} ({subject}) had no decision within {days} days and has expired; its days were released. Ask again if you still need it.",
            f"你的申请 {request.id}（{subject}）{days} 天内无人审批，已过期，占用的假期已释放。如仍需要，请重新申请。",
        )
    else:
        name = escape(engine.person(request.requester).name)
        text = t(
            locale,
            f"{name}'s request {request.id} ({subject}) expired before a decision; there is nothing left to do.",
            f"{name} 的申请 {request.id}（{subject}）未获审批已过期，无需处理。",
        )
    return message(text, [section(text)])


def escalated_dm(
    request: Request, engine: Engine, locale: str, to: str, sla_hours: float
) -> SlackMessage:
    """To the approver the step was taken from: who has it now, and why."""
    who = escape(engine.person(to).name)
    requester = escape(engine.person(request.requester).name)
    text = t(
        locale,
        f"{requester}'s request {request.id} had no decision within {sla_hours:g} working hours, so it now waits for {who}. You can still decide it.",
        f"{requester} 的申请 {request.id} 在 {sla_hours:g} 个工作小时内未审批，已转交 {who}。你仍可以审批。",
    )
    return message(text, [section(text)])
