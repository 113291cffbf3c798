"""The demo organisation's annual leave accrues: on every surface a balance says how it grows.

Annual leave in the demo file earns 1 day a month on top of the yearly days, and up to 5
unused days carry into next year until 31 March. After the worker's December tick,
David (English, 25 a year) and 张三 (Chinese, 10 a year) each have one day more, and the answer to
"what's my balance" says the rule in their language.
"""

from __future__ import annotations

import pytest

from tests.contract.conftest import SURFACES
from workflow.scheduler import Scheduler


@pytest.mark.parametrize("name", SURFACES)
async def test_a_balance_shows_the_demo_organisations_accrual_in_english_and_chinese(
    surfaces, name
):
    s = await surfaces(name)
    await Scheduler(s.engine).periodic()  # the worker's first tick in December
    await s.say("david", "what's my leave balance?")
    assert ("Annual leave: 26 of 26 days left (+1 a month)") in s.transcript("david")
    await s.say("zhangsan", "我还有多少天假？")
    assert ("年假：剩余 11 天，共 11 天（每月 +1 天）") in s.transcript("zhangsan")
    assert "）（" not in s.transcript("zhangsan")  # no bracket right after a bracket
    annual = next(b for b in await s.engine.balances("zhangsan") if b.leave_type == "annual")
    assert (annual.allowance, annual.monthly, annual.carry_cap) == (11, 1, 5)
