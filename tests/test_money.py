"""Money reads with its currency's minor units wherever it is shown: '86.40 GBP', never '86.4';
'1,200 JPY', never '1,200.00'. One function (agent/i18n.fmt_amount) for every card and line."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import fakeredis
import pytest

from agent.i18n import fmt_amount
from agent.tools.describe import what_of
from bot.presentation import requests
from bot.presentation.text import to_text
from bot.slack import blocks_cards
from tests.helpers import submitted
from tests.test_presentation import EXPENSE
from workflow.clock import FixedClock
from workflow.config import OrgConfig
from workflow.engine import Engine


@pytest.fixture
async def engine(config: OrgConfig, clock: FixedClock) -> AsyncIterator[Engine]:
    client = fakeredis.FakeAsyncRedis(decode_responses=True)
    yield Engine(config, client, clock)
    await client.aclose()


@pytest.mark.parametrize(
    ("amount", "currency", "shown"),
    [
        (86.4, "GBP", "86.40"),
        (86, "CNY", "86.00"),
        (1234567.5, "USD", "1,234,567.50"),
        (1200, "JPY", "1,200"),
        (30000, "krw", "30,000"),
        (12.345, "KWD", "12.345"),
        (0.5, "JPY", "0.5"),  # finer than the yen: shown as recorded, not rounded to a false 1
    ],
)
def test_an_amount_keeps_its_currencys_minor_units(amount: float, currency: str, shown: str):
    assert fmt_amount(amount, currency) == shown


def test_the_one_line_of_an_expense_says_86_40(config: OrgConfig):
    """Lists, notices and titles say 'Expense claim: 86.40 GBP (meals)', in both languages."""
    for locale in ("en", "zh"):
        line = what_of("request", "expense", EXPENSE, {}, config, locale)
        assert "86.40 GBP" in line and "86.4 " not in line, line
    yen = what_of(
        "request", "expense", {**EXPENSE, "amount": 1200, "currency": "JPY"}, {}, config, "en"
    )
    assert "1,200 JPY" in yen


async def test_the_approvers_card_says_86_40_on_every_surface(engine: Engine):
    """The approver's card as data, on Slack and as terminal text: 86.40 GBP, not 86.4."""
    req = await submitted(engine, "oliver", EXPENSE, process="expense")
    view = await engine.request_view(req.id, "emma")
    for locale in ("en", "zh"):
        card = requests.approval_card(view, engine, locale)
        text = to_text(card)
        slack = json.dumps(
            blocks_cards.approval_card(view, engine, locale).blocks, ensure_ascii=False
        )
        for shown in (text, slack):
            assert "86.40" in shown and "86.4 " not in shown and "86.4G" not in shown, shown
