"""HR's admin commands: list, show and export requests, reasons left out unless asked for."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from datetime import date

import pytest

from bot import admin
from tests.helpers import ANNUAL_2_DAYS, SICK_6_DAYS, submitted
from workflow.engine import Engine
from workflow.errors import NotFound, ValidationFailed


async def test_list_filters_by_status_process_and_dates(engine: Engine):
    """Filters narrow the list; an unknown status or process is a clear error."""
    a = await submitted(engine, fields=SICK_6_DAYS)
    b = await submitted(engine, actor="oliver", fields=ANNUAL_2_DAYS)
    await engine.decide(b.id, 0, "emma", "approve")
    everything = await admin.find_requests(
        engine, since=None, until=None, status=None, process=None
    )
    assert {r.id for r in everything} == {a.id, b.id}
    approved = await admin.find_requests(
        engine, since=None, until=None, status="approved", process="leave"
    )
    assert [r.id for r in approved] == [b.id]
    assert (
        await admin.find_requests(
            engine, since=date(2026, 12, 3), until=None, status=None, process=None
        )
        == []
    )
    with pytest.raises(ValidationFailed, match="Unknown status"):
        await admin.find_requests(engine, since=None, until=None, status="lost", process=None)
    with pytest.raises(NotFound):
        await admin.find_requests(engine, since=None, until=None, status=None, process="holiday")


async def test_export_leaves_reasons_out_unless_asked(engine: Engine):
    """CSV and JSON exports carry the facts; the medical reason only with --with-reasons."""
    await submitted(engine, fields={**SICK_6_DAYS, "reason": "胃肠炎"})
    found = await admin.find_requests(engine, since=None, until=None, status=None, process=None)
    text = admin.export(engine, found, "csv", with_reasons=False)
    [row] = list(csv.DictReader(io.StringIO(text)))
    assert (row["requester"], row["leave_type"], row["working_days"], row["waiting_for"]) == (
        "张三",
        "sick",
        "6.0",
        "王芳",
    )
    assert "胃肠炎" not in text
    assert json.loads(admin.export(engine, found, "json", with_reasons=True))["reason"] == "胃肠炎"


async def test_show_prints_steps_and_history(engine: Engine):
    """`show` gives the fields, steps and history of one request."""
    req = await submitted(engine)
    text = admin.details(engine, await admin.get_request(engine, req.id))
    assert "1. Manager: 王芳 — pending" in text and "张三: submitted" in text
    with pytest.raises(NotFound):
        await admin.get_request(engine, "R-NOPE")


def test_the_cli_says_what_is_wrong_in_one_line():
    """A bad date or a missing id is one line on stderr and exit 2."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"}
    bad = subprocess.run(
        [sys.executable, "-m", "bot.cli", "requests", "list", "--since", "yesterday"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert bad.returncode == 2 and "'yesterday' is not a date" in bad.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "bot.cli", "requests", "show"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert missing.returncode == 2 and "needs a request id" in missing.stderr
    empty = subprocess.run(
        [sys.executable, "-m", "bot.cli", "requests", "export", "--format", "csv"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert empty.returncode == 0 and empty.stdout.startswith("request_id,process,requester_id")
