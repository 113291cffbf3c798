"""Money reads with its currency's minor units wherever it is shown: '86.40 GBP', never '86.4';
'1,200 JPY', never '1,200.00'. One function (agent/i18n.fmt_amount) for every card and line."""

from __future__ import annotations

import pytest

from agent.i18n import fmt_amount
from agent.tools.describe import what_of
from tests.test_presentation import EXPENSE
from workflow.config import OrgConfig


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
