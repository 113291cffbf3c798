"""Typed data between layers: every pending kind and outbox event parses into its own model."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic import ValidationError

from tests.helpers import ANNUAL_2_DAYS, submitted
from workflow.models import PendingAction
from workflow.outbox import OutboxEvent
from workflow.payloads import (
    DecidePayload,
    DelegatePayload,
    RequestSubmitted,
    SubmitPayload,
    TaskAssigned,
    WithdrawPayload,
    event_data,
    pending_payload,
)


async def test_each_pending_kind_reads_as_its_own_model(engine):
    draft = await engine.prepare_submit("oliver", "leave", ANNUAL_2_DAYS)
    assert isinstance(pending_payload(draft.pending), SubmitPayload)
    req = await submitted(engine, "oliver", ANNUAL_2_DAYS)
    decide = await engine.prepare_decision("emma", req.id, "reject", "Quarter-end")
    p = pending_payload(decide.pending)
    assert isinstance(p, DecidePayload) and (p.step, p.decision.value, p.comment) == (
        0,
        "reject",
        "Quarter-end",
    )
    withdraw = await engine.prepare_withdraw("oliver", req.id, "plans changed")
    assert pending_payload(withdraw.pending) == WithdrawPayload(reason="plans changed")
    d = await engine.prepare_delegation("david", "emma", date(2026, 12, 7), date(2026, 12, 11))
    assert pending_payload(d.pending) == DelegatePayload(
        delegate="emma", start=date(2026, 12, 7), end=date(2026, 12, 11)
    )


async def test_outbox_events_read_as_typed_data(engine):
    await submitted(engine, "oliver", ANNUAL_2_DAYS)
    entries = await engine.store.redis.xrange(engine.keys.outbox)
    events = [OutboxEvent.from_entry(i, f) for i, f in entries]
    kinds = [type(event_data(e)) for e in events]
    assert kinds[:2] == [RequestSubmitted, TaskAssigned]
    assigned = event_data(events[1])
    assert isinstance(assigned, TaskAssigned) and assigned.assignee == "emma"


def test_a_payload_that_does_not_fit_its_kind_is_an_error_naming_the_field():
    bad = PendingAction.model_validate(
        {
            "id": "P-1",
            "kind": "decide",
            "actor": "emma",
            "request_id": "R-1",
            "payload": {"decision": "approve"},
            "digest": "-",
            "created_at": "2026-12-02T09:00:00",
            "expires_at": "2026-12-03T09:00:00",
        }
    )
    with pytest.raises(ValidationError, match="step"):
        pending_payload(bad)
