"""The README's claim, kept true: a new field of an approval form is one entry in the organisation file.

The demo organisation's expense form, with one more `[[processes.fields]]` entry and no code
change, validates it, offers it to the LLM, shows it with its label in the reader's language on
the confirm card and the approver's card on Slack, on Feishu and in the terminal alike, has the
offline planner ask for it, and exports it.
"""

from __future__ import annotations

import csv
import io
import json
import secrets
from importlib import resources

import fakeredis
import pytest

from agent.tools import default_tools
from agent.tools.propose import ProposeRequestArgs, propose_request
from bot import request_pages, request_rows
from bot.conversation import StepLive
from bot.feishu import render as feishu
from bot.presentation.card_views import card_of
from bot.presentation.confirm import confirm_card
from bot.presentation.text import to_text
from bot.slack import render as slack
from tests.contract.surfaces import CONFIRM, live, open_surface
from tests.helpers import submitted
from tests.test_presentation import EXPENSE, proposal
from workflow.config import DEMO_CONFIG, Organisation, OrgConfig, parse_config
from workflow.engine import Engine
from workflow.errors import ValidationFailed

PROJECT = """
[[processes.fields]]
name = "project"
type = "text"
label = "Project code"
label_zh = "项目编号"
"""


def _with_fields(entries: str) -> OrgConfig:
    """The demo organisation with `entries` added after the expense form's last field."""
    text = resources.files("workflow.data").joinpath(DEMO_CONFIG).read_text("utf-8")
    anchor = 'label = "What for"\nlabel_zh = "用途"\n'
    assert text.count(anchor) == 1
    config = parse_config(text.replace(anchor, anchor + entries))
    return config.model_copy(
        update={"organisation": Organisation(id="t" + secrets.token_hex(6), name="t")}
    )


@pytest.fixture
async def redis():
    client = fakeredis.FakeAsyncRedis(decode_responses=True)
    yield client
    await client.aclose()


@pytest.fixture
def engine(redis, clock):
    """The demo organisation with the project field added to the expense form."""
    return Engine(_with_fields(PROJECT), redis, clock)


async def test_the_new_field_is_required_and_checked(engine):
    with pytest.raises(ValidationFailed) as refused:
        await engine.prepare_submit("oliver", "expense", EXPENSE)
    assert "project" in refused.value.field_errors


def test_the_new_field_is_offered_to_the_llm(engine):
    """The propose_request schema the model sees names the field under its process."""
    [spec] = [s for s in default_tools().specs(engine.config) if s.name == "propose_request"]
    forms = spec.parameters["properties"]["fields"]["description"]
    assert "description, project;" in forms


async def test_the_new_field_is_on_every_card_in_the_readers_language(engine):
    args = ProposeRequestArgs(process="expense", fields={**EXPENSE, "project": "P-7"})
    draft = await proposal(engine, "oliver", propose_request, args)
    for locale, label in (("en", "Project code"), ("zh", "项目编号")):
        confirm = to_text(confirm_card(draft, locale, engine=engine))
        assert label in confirm and "P-7" in confirm
    request = (await engine.confirm(draft.pending_id, "oliver")).request
    approver = request.steps[0].approver
    live = StepLive(await engine.request_view(request.id, approver))
    for locale, label in (("en", "Project code"), ("zh", "项目编号")):
        on_slack = json.dumps(slack.render(live, engine, locale).blocks, ensure_ascii=False)
        on_feishu = json.dumps(feishu.render(live, engine, locale), ensure_ascii=False)
        assert label in on_slack and "P-7" in on_slack
        assert label in on_feishu and "P-7" in on_feishu
        in_terminal = to_text(card_of(live, engine, locale))
        assert label in in_terminal and "P-7" in in_terminal


async def test_a_new_fact_on_leave_cards_is_one_entry_in_leave_facts(engine, monkeypatch):
    """The README's other claim: a computed leave fact is a label and one `LEAVE_FACTS` entry.

    Calendar days (which the engine derives already) added once reach the confirm card and the
    approver's card, in both languages.
    """
    from agent.catalogue import CATALOGUE
    from agent.tools.propose import ProposeLeaveArgs, propose_leave
    from bot import wording

    monkeypatch.setitem(CATALOGUE, "label.calendar_days", ("Calendar days", "自然日"))

    def calendar_days(f, d, engine, locale):
        return f"{d['calendar_days']}" if "calendar_days" in d else None

    facts = (*wording.LEAVE_FACTS, ("label.calendar_days", calendar_days))
    monkeypatch.setattr(wording, "LEAVE_FACTS", facts)
    args = ProposeLeaveArgs(leave_type="annual", start="2026-12-11", end="2026-12-14")
    draft = await proposal(engine, "oliver", propose_leave, args)
    request = (await engine.confirm(draft.pending_id, "oliver")).request
    live = StepLive(await engine.request_view(request.id, request.steps[0].approver))
    for locale, label in (("en", "Calendar days"), ("zh", "自然日")):
        for card in (confirm_card(draft, locale, engine=engine), card_of(live, engine, locale)):
            shown = {f.label: f.value for f in card.facts}
            assert shown.get(label) == "4", (label, shown)


BUDGET = """
[[processes.fields]]
name = "budget"
type = "number"
label = "Budget"
label_zh = "预算"
min = 1
"""
# The person, what they say, and the end of the planner's question for a field.
SAID = {
    "en": ("oliver", "expense 86.40 GBP for a team lunch yesterday, meals", "What is the"),
    "zh": ("wangfang", "报销 88 元 午饭 昨天", "是什么？"),
}


@pytest.mark.parametrize("surface", ["slack", "terminal"])
@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_offline_planner_asks_for_the_new_field_by_its_label(
    engine, redis, surface, lang
):
    """With no LLM, a required field the planner cannot read is asked for by its label, in the
    person's language, and the answer is that field's value on the draft (the shared core)."""
    person, said, asks = SAID[lang]
    s = await open_surface(surface, engine, redis)
    try:
        thread = await s.say(person, said)
        label = "项目编号" if lang == "zh" else "project code"
        assert any(label in m and asks in m for m in s.messages(person)), s.messages(person)
        assert not live(s.cards(person), CONFIRM, thread)  # nothing to submit without it
        await s.say(person, "P-7", thread)
        [card] = live(s.cards(person), CONFIRM, thread)
        shown = s.transcript(person) if surface == "terminal" else card.text  # the card it prints
        assert ("项目编号" if lang == "zh" else "Project code") in shown and "P-7" in shown
        await s.click(person, card, CONFIRM)
        [request] = await engine.my_requests(person)
        assert request.fields["project"] == "P-7"
    finally:
        await s.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_an_answer_that_does_not_fit_the_field_is_asked_again(redis, clock, lang):
    """A number field answered in words: the planner says why and asks again; nothing is drafted
    until a value fits (checked by the engine's own rules: a number, at least 1)."""
    person, said, _ = SAID[lang]
    engine = Engine(_with_fields(PROJECT + BUDGET), redis, clock)
    s = await open_surface("terminal", engine, redis)
    try:
        thread = await s.say(person, said)
        await s.say(person, "P-7", thread)
        for answer, why in ((IN_WORDS[lang], NOT_A_NUMBER[lang]), ("0", AT_LEAST_1[lang])):
            await s.say(person, answer, thread)
            assert why in s.messages(person)[-1], s.messages(person)
            assert not live(s.cards(person), CONFIRM, thread)
        await s.say(person, "12", thread)
        assert len([c for c in s.cards(person) if c.thread == thread]) == 1  # the only draft
        assert "P-7" in s.transcript(person) and "12" in s.transcript(person)
    finally:
        await s.close()


IN_WORDS = {"en": "lots", "zh": "很多"}
NOT_A_NUMBER = {
    "en": "“lots” is not a number. What is the budget?",
    "zh": "“很多”不是数字。预算是什么？",
}
AT_LEAST_1 = {"en": "The budget must be at least 1.", "zh": "预算不能小于 1。"}


async def test_the_export_has_a_column_for_the_new_field(engine):
    """`requests export` (streamed, CSV and JSON) has a column per form field in the file's
    order, the new one included, empty for a request without it; `--process` keeps its own."""
    await submitted(engine, "oliver", {**EXPENSE, "project": "P-7"}, "expense")
    await submitted(engine)  # a leave: no project
    writers = {fmt: io.StringIO() for fmt in ("csv", "json")}
    for fmt, out in writers.items():
        writer = request_rows.ExportWriter(engine, out, fmt, with_reasons=False)
        async for rows in request_pages.iter_export_pages(
            engine, since=None, until=None, status=None, process=None, with_reasons=False
        ):
            writer.write_rows(rows)
    rows = list(csv.DictReader(io.StringIO(writers["csv"].getvalue())))
    header = list(rows[0])
    assert header.index("spent_on") < header.index("project") < header.index("destination")
    assert {r["process"]: r["project"] for r in rows} == {"expense": "P-7", "leave": ""}
    lines = [json.loads(line) for line in writers["json"].getvalue().splitlines()]
    assert {x["process"]: x["project"] for x in lines} == {"expense": "P-7", "leave": ""}
    expense_only = request_rows.export_columns(engine.config, "expense", with_reasons=False)
    assert [
        c for c in expense_only if c not in request_rows.HEAD_COLUMNS + request_rows.TAIL_COLUMNS
    ] == [
        "amount",
        "currency",
        "category",
        "spent_on",
        "project",
    ]
