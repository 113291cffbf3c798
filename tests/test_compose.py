"""One composition module: serve mounts every configured platform; the worker builds no Bolt app."""

from __future__ import annotations

import pytest

from bot import compose
from bot.runtime import Runtime
from bot.settings import Settings, SettingsError
from bot.slack.platform import SlackPlatform
from bot.tasks import BackgroundTasks

BOTH = {
    "slack_bot_token": "xoxb-1",
    "slack_signing_secret": "s",
    "feishu_app_id": "cli_1",
    "feishu_app_secret": "x",
    "feishu_verification_token": "v",
}


def runtime_for(engine) -> Runtime:
    return Runtime(Settings(), engine.store.redis, engine, None, None, None)  # type: ignore[arg-type]


def test_the_worker_delivers_to_every_platform_without_building_a_bolt_app(engine):
    found = compose.platforms(runtime_for(engine), Settings(**BOTH), BackgroundTasks())
    notifier = compose.notifier(runtime_for(engine), found, "w1")
    assert [d.platform for d in notifier.deliveries] == ["slack", "feishu"]
    [slack] = [p for p in found if isinstance(p, SlackPlatform)]
    assert "bot" not in slack.__dict__  # the Bolt app (listeners, signing) was never built


def test_no_platform_configured_is_one_clear_error(engine):
    with pytest.raises(SettingsError, match="Neither Slack nor Feishu"):
        compose.platforms(runtime_for(engine), Settings(), BackgroundTasks())
