"""What the worker sends on Feishu: escalation, expiry, the morning digest — people only on Feishu hear too."""

from __future__ import annotations

from datetime import timedelta

from tests.feishu.harness import FeishuHarness
from tests.helpers import ANNUAL_2_DAYS, submitted
from workflow.scheduler import Scheduler

WANG, ZHANG, DAVID = "ou_wangfang", "ou_zhangsan", "ou_david"


async def test_escalation_and_expiry_and_digest_reach_feishu(feishu: FeishuHarness):
    """The SLA passes (escalated to David, both others told), the digest lists what waits, and expiry is announced."""
    h = feishu
    req = await submitted(h.engine, fields=ANNUAL_2_DAYS)
    scheduler = Scheduler(h.engine)
    h.engine.clock.advance(timedelta(days=1))
    await scheduler.periodic()
    await h.settle()
    assert "1 个申请等待你审批" in h.said(WANG)  # 王芳 reads Chinese
    h.engine.clock.advance(timedelta(days=8))
    while await scheduler.run_due():
        pass
    await h.settle()
    assert h.with_button(DAVID, "request_approve")  # the new holder's card
    assert "已转交 David Chen" in h.said(WANG)
    h.engine.clock.advance(timedelta(days=30))
    while await scheduler.run_due():
        pass
    await h.settle()
    assert (await h.engine.get_request(req.id, "zhangsan")).status.value == "expired"
    assert "已过期" in h.said(ZHANG) and req.id in h.said(ZHANG)
