"""Counter-offers on every surface: 王芳 suggests other dates; 张三 accepts or declines.

On Slack the approver's [Suggest other dates] opens a modal, on Feishu a form card, in the
terminal a prompt under /pending. The requester's card shows both date ranges, the working
days and the balance after, with [Accept] [Decline] (/offers in the terminal). After Accept
the approver decides the new dates in one click; the old approver card has no live buttons.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from bot.conversation import buttons
from tests.contract.conftest import SURFACES
from tests.contract.surfaces import (
    APPROVE,
    FeishuSurface,
    SlackSurface,
    Surface,
    TerminalSurface,
    live,
)
from tests.contract.test_contract import approver_card
from tests.slack.test_blocks import walk
from workflow.counter import Dates
from workflow.models import CounterStatus, RequestStatus

ASKED = {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}


async def _submitted(s: Surface) -> str:
    proposal = await s.engine.prepare_submit("zhangsan", "leave", ASKED)
    req = (await s.engine.confirm(proposal.pending.id, "zhangsan")).request
    await s.settle()
    return req.id


def _slack_message(s: SlackSurface, person: str, action: str, request_id: str) -> dict[str, Any]:
    user = s.engine.person(person).slack_user_id or ""
    found = [
        m
        for m in s.h.dm_messages(user)
        for e in (b for b in m.get("blocks") or [] if b.get("type") == "actions")
        for el in e.get("elements", [])
        if el.get("action_id") == action and str(el.get("value", "")).startswith(request_id)
    ]
    assert found, (person, action)
    return found[-1]


def _feishu_message(s: FeishuSurface, person: str, action: str) -> str:
    open_id = s.engine.person(person).feishu_open_id or ""
    [*_, message] = s.h.with_button(open_id, action)
    return message.message_id


async def suggest(s: Surface, request_id: str, start: str, end: str, note: str) -> str:
    """王芳 suggests other dates on her surface; returns what she was told."""
    if isinstance(s, SlackSurface):
        user = s.engine.person("wangfang").slack_user_id or ""
        message = _slack_message(s, "wangfang", buttons.COUNTER_OPEN, request_id)
        opened = len(s.h.standin.calls("views.open"))
        await s.h.click(user, message, buttons.COUNTER_OPEN)
        await s.settle()
        [*_, call] = s.h.standin.calls("views.open")[opened:]
        values = {
            "start": {"start": {"type": "datepicker", "selected_date": start}},
            "end": {"end": {"type": "datepicker", "selected_date": end}},
            "note": {"note": {"type": "plain_text_input", "value": note}},
        }
        resp = await s.h.submit_view(user, call["view"], values)
        body = await resp.text()
        await s.settle()
        if body and "errors" in body:  # refused: each sentence shows on its field
            errors = json.loads(body)["errors"]
            return "\n".join(f"{k}: {v}" for k, v in errors.items())
        return s.transcript("wangfang")
    if isinstance(s, FeishuSurface):
        open_id = s.engine.person("wangfang").feishu_open_id or ""
        message_id = _feishu_message(s, "wangfang", buttons.COUNTER_OPEN)
        _, answer = await s.h.sim.click(open_id, message_id, buttons.COUNTER_OPEN)
        assert "counter_form" in str(answer.get("card"))
        form = {"start": f"{start} +0800", "end": f"{end} +0800", "note": note}
        _, answer = await s.h.sim.click(
            open_id, message_id, buttons.COUNTER_SUBMIT, form_value=form
        )
        await s.settle()
        return (answer.get("toast") or {}).get("content", "")
    assert isinstance(s, TerminalSurface)
    me = s._person("wangfang")
    mark = len(me.out.getvalue())
    for req in (await s.engine.my_approvals("wangfang")).requests:
        me.answers.extend(["o", start, end, note] if req.id == request_id else ["s"])
    await me.session.handle("/pending")
    return me.out.getvalue()[mark:]


async def answer(s: Surface, request_id: str, accept: bool) -> str:
    """张三 answers the suggestion on his surface; returns what he sees."""
    action = buttons.COUNTER_ACCEPT if accept else buttons.COUNTER_DECLINE
    if isinstance(s, SlackSurface):
        user = s.engine.person("zhangsan").slack_user_id or ""
        message = _slack_message(s, "zhangsan", action, request_id)
        await s.h.click(user, message, action)
        await s.settle()
        return s.transcript("zhangsan")
    if isinstance(s, FeishuSurface):
        open_id = s.engine.person("zhangsan").feishu_open_id or ""
        _, reply = await s.h.sim.click(open_id, _feishu_message(s, "zhangsan", action), action)
        await s.settle()
        return (reply.get("toast") or {}).get("content", "") + s.transcript("zhangsan")
    assert isinstance(s, TerminalSurface)
    me = s._person("zhangsan")
    mark = len(me.out.getvalue())
    me.answers.append("a" if accept else "d")
    await me.session.handle("/offers")
    return me.out.getvalue()[mark:]


def offer_seen(s: Surface) -> str:
    """What 张三 sees of the suggestion before answering (the terminal shows it under /offers)."""
    if isinstance(s, TerminalSurface):
        return ""
    return s.transcript("zhangsan")


@pytest.mark.parametrize("name", SURFACES)
async def test_a_counter_offer_accepted_is_decided_on_the_new_dates_in_one_click(surfaces, name):
    """Suggest Wed–Thu; 张三 sees both ranges, days and balance; Accept; 王芳 approves the new dates."""
    s = await surfaces(name)
    rid = await _submitted(s)
    told = await suggest(s, rid, "2026-12-16", "2026-12-17", "we ship on Monday")
    assert "张三" in told
    req = await s.engine.get_request(rid, "zhangsan")
    assert req.counter is not None and req.counter.status is CounterStatus.OPEN
    assert req.counter.comment == "we ship on Monday"
    if name != "terminal":
        seen = offer_seen(s)
        for words in (
            "王芳 建议你的申请改期",
            "12月14日",
            "12月16日",
            "剩余 8 天",
            "we ship on Monday",
        ):
            assert words in seen, words
    shown = await answer(s, rid, accept=True)
    if name == "terminal":
        assert "12月16日" in shown and "剩余 8 天" in shown
    req = await s.engine.get_request(rid, "zhangsan")
    assert (req.fields["start"], req.fields["end"]) == ("2026-12-16", "2026-12-17")
    assert req.counter is not None and req.counter.status is CounterStatus.ACCEPTED
    assert [h.action for h in req.history][-2:] == ["countered", "counter_accepted"]
    if name == "terminal":
        await s.click("wangfang", await approver_card(s, "wangfang", rid), APPROVE)
    else:
        assert "张三 接受了你建议的日期" in s.transcript("wangfang")
        # one live card left for 王芳, and it shows the new dates
        [card] = [c for c in live(s.cards("wangfang"), APPROVE) if c.about == rid]
        assert "12月16日" in card.text
        # her first card is replaced, not cancelled, and still names the dates it showed
        [old] = [c.text for c in s.cards("wangfang") if "日期已改为" in c.text]
        assert "已被取代" in old and "已取消" not in old, old
        assert "张三：年假，2026年12月14日 周一 至 12月15日 周二" in old, old
        await s.click("wangfang", card, APPROVE)
        assert not [c for c in s.cards("zhangsan") if c.actions & {"confirm", "approve"}]
    done = await s.engine.get_request(rid, "zhangsan")
    assert done.status is RequestStatus.APPROVED


@pytest.mark.parametrize("name", SURFACES)
async def test_a_counter_offer_declined_keeps_the_request_and_tells_the_approver(surfaces, name):
    """Decline: dates unchanged; 王芳 is told; her card still decides the dates asked for."""
    s = await surfaces(name)
    rid = await _submitted(s)
    await suggest(s, rid, "2026-12-16", "2026-12-17", "")
    await answer(s, rid, accept=False)
    req = await s.engine.get_request(rid, "zhangsan")
    assert (req.fields["start"], req.fields["end"]) == ("2026-12-14", "2026-12-15")
    assert req.counter is not None and req.counter.status is CounterStatus.DECLINED
    if name != "terminal":
        assert "张三 拒绝了你建议的日期" in s.transcript("wangfang")
        assert [c for c in live(s.cards("wangfang"), APPROVE) if c.about == rid]


@pytest.mark.parametrize("name", SURFACES)
async def test_dates_that_fail_the_rules_are_refused_on_the_form(surfaces, name):
    """A weekend only: the engine's sentence on the approver's surface, nothing recorded."""
    s = await surfaces(name)
    rid = await _submitted(s)
    told = await suggest(s, rid, "2026-12-19", "2026-12-20", "")
    assert "没有工作日" in told or "no working day" in told
    assert (await s.engine.get_request(rid, "zhangsan")).counter is None


@pytest.mark.parametrize("name", SURFACES)
async def test_a_last_day_before_the_first_is_refused_in_the_approvers_words(surfaces, name):
    """王芳 reads why in Chinese, with the day as her cards write it; on Slack's form it shows
    under the last day, the field it is about."""
    s = await surfaces(name)
    rid = await _submitted(s)
    told = await suggest(s, rid, "2026-12-17", "2026-12-16", "")
    assert "结束日期早于开始日期2026年12月17日 周四" in told, told
    assert "is before" not in told
    if isinstance(s, SlackSurface):
        assert told.startswith("end: ")
    assert (await s.engine.get_request(rid, "zhangsan")).counter is None


@pytest.mark.parametrize("name", SURFACES)
async def test_a_first_day_after_the_last_left_as_asked_suggests_that_one_day(surfaces, name):
    """Asked 14–15 Dec; 王芳 picks 21 Dec as the first day and leaves the last day as it was
    (the terminal's Enter, Slack's and Feishu's filled picker): she suggests 21 Dec alone,
    instead of a refusal that sends her to the form again. A last day she chose is refused."""
    s = await surfaces(name)
    rid = await _submitted(s)
    await suggest(s, rid, "2026-12-21", ASKED["end"], "")
    req = await s.engine.get_request(rid, "zhangsan")
    assert req.counter is not None and req.counter.status is CounterStatus.OPEN
    assert (req.counter.start, req.counter.end) == (date(2026, 12, 21), date(2026, 12, 21))


def _offer_card(s: Surface, person: str, headline: str) -> str:
    """The text of the person's counter-offer card as it is drawn now."""
    [card] = [c.text for c in s.cards(person) if headline in c.text]
    return card


@pytest.mark.parametrize("name", ["slack", "feishu"])
@pytest.mark.parametrize("accept", [True, False], ids=["accepted", "declined"])
async def test_the_offer_card_keeps_its_balance_after_when_redrawn(surfaces, name, accept):
    """张三's card says 剩余 8 天 when sent, after his answer, and after 王芳 decides."""
    s = await surfaces(name)
    rid = await _submitted(s)
    await suggest(s, rid, "2026-12-16", "2026-12-17", "")
    headline = "王芳 建议你的申请改期"
    assert "剩余 8 天" in _offer_card(s, "zhangsan", headline)
    await answer(s, rid, accept=accept)
    card = _offer_card(s, "zhangsan", headline)
    assert ("你已接受" if accept else "你已拒绝") in card
    assert "审批后余额" in card and "剩余 8 天" in card
    if accept:
        await s.engine.decide(rid, 0, "wangfang", "approve")
    else:
        await s.engine.decide(rid, 0, "wangfang", "reject", "team offsite")
    await s.settle()
    card = _offer_card(s, "zhangsan", headline)
    assert "剩余 8 天" in card and "剩余 10 天" not in card
    annual = next(b for b in await s.engine.balances("zhangsan", 2026) if b.leave_type == "annual")
    assert annual.available == (8 if accept else 10)  # the engine's record under the card


@pytest.mark.parametrize("name", ["slack", "feishu"])
async def test_an_english_offer_card_keeps_its_balance_after_when_redrawn(surfaces, name):
    """Emma suggests other dates to Priya; Accept redraws her card with '8 days left' still on it."""
    s = await surfaces(name)
    asked = {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}
    proposal = await s.engine.prepare_submit("priya", "leave", asked)
    rid = (await s.engine.confirm(proposal.pending.id, "priya")).request.id
    await s.settle()
    wed_thu = Dates(date(2026, 12, 16), date(2026, 12, 17))
    await s.engine.counter("emma", rid, 0, wed_thu)
    await s.settle()
    headline = "Emma Clarke suggests other dates for your request."
    first = _offer_card(s, "priya", headline)
    assert "Balance after" in first and "left" in first
    left = first[first.index("Balance after") :].split("\n")[1]
    await s.engine.answer_counter("priya", rid, accept=True)
    await s.settle()
    card = _offer_card(s, "priya", headline)
    assert "You accepted" in card and "Balance after" in card and left in card


async def form_shown(s: Surface, approver: str, request_id: str) -> list[tuple[str, bool, Any]]:
    """The suggest-dates form as `approver` sees it: (label, required, first value) per field.

    The terminal's are read off its prompts ("First day (YYYY-MM-DD, Enter for 2026-12-14): ");
    it is then sent with the dates the approver types."""
    from bot.presentation.forms import counter_form
    from bot.wording import say

    person = s.engine.person(approver)
    if isinstance(s, SlackSurface):
        message = _slack_message(s, approver, buttons.COUNTER_OPEN, request_id)
        opened = len(s.h.standin.calls("views.open"))
        await s.h.click(person.slack_user_id or "", message, buttons.COUNTER_OPEN)
        await s.settle()
        [*_, call] = s.h.standin.calls("views.open")[opened:]
        inputs = [b for b in call["view"]["blocks"] if b["type"] == "input"]
        assert [b["block_id"] for b in inputs] == ["start", "end", "note"]
        return [
            (b["label"]["text"], not b.get("optional"), b["element"].get("initial_date"))
            for b in inputs
        ]
    if isinstance(s, FeishuSurface):
        message_id = _feishu_message(s, approver, buttons.COUNTER_OPEN)
        _, reply = await s.h.sim.click(
            person.feishu_open_id or "", message_id, buttons.COUNTER_OPEN
        )
        [form] = [n for n in walk(reply["card"]) if n.get("tag") == "form"]
        elements = form["elements"]
        shown = []
        for label, field in zip(elements[0:-1:2], elements[1:-1:2], strict=True):
            assert field["name"] in ("start", "end", "note"), field
            text = label["text"]["content"].strip("*")
            shown.append((text, bool(field.get("required")), field.get("initial_date")))
        return shown
    assert isinstance(s, TerminalSurface)
    me = s._person(approver)
    mark = len(me.out.getvalue())
    for req in (await s.engine.my_approvals(approver)).requests:
        me.answers.extend(["o", "2026-12-16", "2026-12-17", ""] if req.id == request_id else ["s"])
    await me.session.handle("/pending")
    out = me.out.getvalue()[mark:]
    locale = person.locale
    req = await s.engine.get_request(request_id, approver)
    shown = []
    for f in counter_form(req, s.engine, locale).fields:  # each prompt, in the form's order
        at = out.index(f.label)
        out = out[at + len(f.label) :]
        how = out.split("\n", 1)[0]  # the rest of its prompt line: how to answer it
        initial = f.initial if f.initial and f.initial in how else None
        optional = say("form.optional", locale) in how
        shown.append((f.label, not optional, initial))
    return shown


@pytest.mark.parametrize("name", SURFACES)
async def test_the_suggest_dates_form_is_the_same_on_every_surface(surfaces, name):
    """The approver's form has the same fields, labels, required marks and first values on
    Slack, Feishu and the terminal, in Chinese (王芳) and English (Emma): the shared form's."""
    from bot.presentation.forms import counter_form

    s = await surfaces(name)
    for requester, approver in (("zhangsan", "wangfang"), ("priya", "emma")):
        proposal = await s.engine.prepare_submit(requester, "leave", ASKED)
        req = (await s.engine.confirm(proposal.pending.id, requester)).request
        await s.settle()
        locale = s.engine.person(approver).locale
        form = counter_form(req, s.engine, locale)
        expected = [(f.label, f.required, f.initial) for f in form.fields]
        assert expected == [
            (("开始日期", "First day")[locale == "en"], True, "2026-12-14"),
            (("结束日期", "Last day")[locale == "en"], True, "2026-12-15"),
            (("给张三的留言", "Note to Priya Patel")[locale == "en"], False, None),
        ]
        assert await form_shown(s, approver, req.id) == expected
