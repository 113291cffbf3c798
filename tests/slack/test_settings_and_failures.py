"""Start-up settings and the clear lines people get when something is down."""

from __future__ import annotations

import subprocess
import sys

import fakeredis

from bot.slack.app import thread_key
from tests.slack.harness import SlackHarness

ENV = {"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"}


def test_serve_without_a_slack_token_stops_with_one_line_naming_it():
    """`serve` with no platform configured exits 2 with one line naming what to set."""
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "serve"],
        capture_output=True,
        text=True,
        timeout=60,
        env=ENV,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Neither Slack nor Feishu is configured" in lines[0]


def test_serve_without_a_signing_secret_names_it():
    """A token but no signing secret names SLACK_SIGNING_SECRET."""
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "serve"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**ENV, "SLACK_BOT_TOKEN": "xoxb-1"},
    )
    assert done.returncode == 2 and "SLACK_SIGNING_SECRET is not set" in done.stderr


async def test_redis_down_gets_a_clear_line_in_the_thread(slack: SlackHarness):
    """With the store unreachable, the person is told nothing changed and to try again."""
    h = slack
    server = fakeredis.FakeServer()
    down = fakeredis.FakeAsyncRedis(server=server, decode_responses=True)
    server.connected = False
    h.bot.runtime.agent.memory.redis = down
    h.engine.store.redis = down
    msg = h.standin.post_user_message("U0OLIVER", "what is my balance?")
    oliver = h.engine.person("oliver")
    await h.bot.dm_turn(
        "T0ACME", msg["channel"], "U0OLIVER", msg["ts"], "what is my balance?", oliver
    )
    replies = h.thread("U0OLIVER", msg["ts"])
    assert any("can't reach my database" in (r.get("text") or "") for r in replies)
    assert thread_key("T0ACME", msg["channel"], msg["ts"]).startswith("slack:")


async def test_metrics_report_turns_tools_and_outbox_lag(slack: SlackHarness):
    """GET /metrics speaks Prometheus: agent turns by stop reason, tool calls by outcome, model latency, outbox lag."""
    h = slack
    await h.dm("U0OLIVER", "what is my balance?")
    await h.bot.tasks.idle()
    resp = await h.http.get(str(h.make_url("/metrics")))
    text = await resp.text()
    assert resp.status == 200 and resp.headers["Content-Type"].startswith("text/plain")
    assert 'approvals_agent_turns_total{stop_reason="final"}' in text
    assert 'approvals_tool_calls_total{outcome="ok",tool="my_balances"}' in text
    assert "approvals_model_call_seconds_bucket" in text
    assert "approvals_outbox_lag" in text and "approvals_slack_api_errors_total" in text
