"""The approvals-bot command line: the directory listing and the end-to-end demo."""

from __future__ import annotations

import json
import subprocess
import sys

import structlog
from structlog.testing import capture_logs

from bot.cli import main
from bot.logs import configure_logging
from workflow.config import load_config


def test_people_json_lists_the_directory_one_object_per_line(capsys, monkeypatch):
    """`approvals-bot people --json` prints one JSON object per person with the directory fields."""
    monkeypatch.delenv("APPROVALS_CONFIG", raising=False)
    assert main(["people", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [json.loads(line) for line in lines]
    assert [r["id"] for r in rows] == [p.id for p in load_config().people]
    assert set(rows[0]) == {"id", "name", "email", "manager", "roles", "timezone", "country"}
    zhang = next(r for r in rows if r["id"] == "zhangsan")
    assert zhang == {
        "id": "zhangsan",
        "name": "张三",
        "email": "zhang.san@acme.example",
        "manager": "wangfang",
        "roles": [],
        "timezone": "Asia/Shanghai",
        "country": "CN",
    }


def test_a_bad_config_path_stops_with_one_line(capsys, monkeypatch, tmp_path):
    """A missing APPROVALS_CONFIG file is one clear line on stderr and exit code 2."""
    monkeypatch.setenv("APPROVALS_CONFIG", str(tmp_path / "nope.toml"))
    assert main(["people"]) == 2
    err = capsys.readouterr().err
    assert "Cannot read APPROVALS_CONFIG" in err and len(err.strip().splitlines()) == 1


def test_the_demo_runs_end_to_end_through_the_installed_command():
    """`approvals-bot demo` plays a full approval and a rejection with the refusals, and exits 0."""
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "demo"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"},
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "6 working days" in out
    assert "request approved" in out and "request rejected" in out
    assert out.count("refused") == 5


def test_logging_configured_by_the_cli_does_not_outlive_its_test(capsys):
    """A module logger that logged once after the CLI's logging set-up (to that test's captured
    stderr) is not stuck there: `capture_logs` sees what it logs next, as a later test's does."""
    log = structlog.get_logger("test_cli")
    configure_logging("info")
    log.info("first_line")
    assert "first_line" in capsys.readouterr().err
    structlog.reset_defaults()  # what happens between this test and the next
    with capture_logs() as logs:
        log.info("second_line")
    assert [e["event"] for e in logs] == ["second_line"]
    assert "second_line" not in capsys.readouterr().err
