"""The README's claim, kept true: a new field of an approval form is one entry in the organisation file.

The demo organisation's expense form, with one more `[[processes.fields]]` entry and no code
change, validates it, and shows it with its label in the reader's language on the confirm
card and the approver's card, on Slack, on Feishu and in the terminal alike.
"""

from __future__ import annotations

import json
import secrets
from importlib import resources

import fakeredis
import pytest

from agent.tools.propose import ProposeRequestArgs, propose_request
from bot.conversation import StepLive
from bot.feishu import render as feishu
from bot.presentation.card_views import card_of
from bot.presentation.confirm import confirm_card
from bot.presentation.text import to_text
from bot.slack import render as slack
from tests.test_presentation import EXPENSE, proposal
from workflow.config import DEMO_CONFIG, Organisation, parse_config
from workflow.engine import Engine
from workflow.errors import ValidationFailed

PROJECT = """
[[processes.fields]]
name = "project"
type = "text"
label = "Project code"
label_zh = "项目编号"
"""


@pytest.fixture
async def engine(clock):
    """The demo organisation with the project field added after the expense form's last field."""
    text = resources.files("workflow.data").joinpath(DEMO_CONFIG).read_text("utf-8")
    anchor = 'label = "What for"\nlabel_zh = "用途"\n'
    assert text.count(anchor) == 1
    config = parse_config(text.replace(anchor, anchor + PROJECT))
    config = config.model_copy(
        update={"organisation": Organisation(id="t" + secrets.token_hex(6), name="t")}
    )
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    yield Engine(config, redis, clock)
    await redis.aclose()


async def test_the_new_field_is_required_and_checked(engine):
    with pytest.raises(ValidationFailed) as refused:
        await engine.prepare_submit("oliver", "expense", EXPENSE)
    assert "project" in refused.value.field_errors


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
