"""One composition module: serve mounts every configured platform; the worker builds no Bolt app."""

from __future__ import annotations

import asyncio

import fakeredis
import pytest

from bot import compose, serve
from bot.notifier import OutboxWorker
from bot.runtime import Runtime
from bot.settings import Settings, SettingsError
from bot.slack import app as slack_app
from bot.tasks import BackgroundTasks
from workflow.engine import Engine

BOTH = {
    "slack_bot_token": "xoxb-1",
    "slack_signing_secret": "s",
    "feishu_app_id": "cli_1",
    "feishu_app_secret": "x",
    "feishu_verification_token": "v",
}


@pytest.fixture
def runtime(config, clock) -> Runtime:
    """The product's parts over a store of this test's own."""
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    return Runtime(Settings(_env_file=None), redis, Engine(config, redis, clock), None, None, None)  # type: ignore[arg-type]


@pytest.fixture
def bolt_apps(monkeypatch) -> list[dict]:
    """Every Bolt app built from now on (its keyword arguments), still working."""
    built: list[dict] = []
    real = slack_app.AsyncApp

    def counted(**kwargs):
        built.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(slack_app, "AsyncApp", counted)
    return built


async def test_the_worker_runs_every_platform_without_building_a_bolt_app(
    runtime, bolt_apps, monkeypatch
):
    """`approvals-bot worker` with Slack and Feishu: both deliver and both run turns; no Bolt app."""
    ran: list[OutboxWorker] = []

    async def run_worker(notifier, scheduler, stop) -> None:
        ran.append(notifier)

    stop = asyncio.Event()
    stop.set()  # the worker stops as soon as it has started
    monkeypatch.setattr(serve, "build_runtime", lambda settings, **_: runtime)
    monkeypatch.setattr(serve, "_stop_on_signals", lambda: stop)
    monkeypatch.setattr(serve, "run_worker", run_worker)

    assert await serve.worker(Settings(_env_file=None, **BOTH)) == 0

    [notifier] = ran
    assert [d.platform for d in notifier.deliveries] == ["slack", "feishu"]
    assert set(runtime.turns.runner.handlers) == {"slack", "feishu"}
    assert bolt_apps == []


async def test_serve_mounts_each_configured_platform_s_callback_url(runtime, bolt_apps):
    found = compose.platforms(runtime, Settings(_env_file=None, **BOTH), BackgroundTasks())
    app = serve.make_app(runtime, found, BackgroundTasks())
    posts = {r.resource.canonical for r in app.router.routes() if r.method == "POST"}
    assert posts == {"/slack/events", "/feishu/events"}
    assert set(runtime.turns.runner.handlers) == {"slack", "feishu"}
    assert bolt_apps == []  # built on the first Slack callback Bolt answers, not before
    [slack] = [p for p in found if p.name == "slack"]
    assert slack.bot.app is slack.bot.app and len(bolt_apps) == 1  # (the count is live)
    await compose.close(found)


async def test_serve_mounts_only_the_platform_configured(runtime):
    only_feishu = {k: v for k, v in BOTH.items() if k.startswith("feishu")}
    found = compose.platforms(runtime, Settings(_env_file=None, **only_feishu), BackgroundTasks())
    app = serve.make_app(runtime, found, BackgroundTasks())
    posts = {r.resource.canonical for r in app.router.routes() if r.method == "POST"}
    assert posts == {"/feishu/events"}
    await compose.close(found)


def test_no_platform_configured_is_one_clear_error(runtime):
    with pytest.raises(SettingsError, match="Neither Slack nor Feishu"):
        compose.platforms(runtime, Settings(_env_file=None), BackgroundTasks())
