"""The worker's DMs: an approver's morning digest, a manager's weekly who's-out, expiry notices."""

from __future__ import annotations

from datetime import date

from agent.i18n import fmt_range, t
from agent.tools.describe import what
from bot import wording
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
    title = wording.weekly_out_title(start, end, locale)
    if not out:
        body = wording.nobody_out(locale)
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
    text = escape(wording.expired_text(request, engine, locale, for_requester=for_requester))
    return message(text, [section(text)])


def escalated_dm(
    request: Request, engine: Engine, locale: str, to: str, sla_hours: float
) -> SlackMessage:
    """To the approver the step was taken from: who has it now, and why."""
    text = escape(wording.escalated_text(request, engine, locale, to, sla_hours))
    return message(text, [section(text)])
