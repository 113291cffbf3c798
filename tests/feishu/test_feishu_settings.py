"""Feishu in serve/worker: mounted only when configured, refused with a clear message when half-configured."""

from __future__ import annotations

from datetime import datetime

import fakeredis
import pytest
from aiohttp import web

from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.planner import OfflinePlanner
from bot import compose
from bot.feishu.platform import feishu_platform
from bot.runtime import Runtime
from bot.settings import Settings, SettingsError
from bot.tasks import BackgroundTasks
from workflow.clock import FixedClock
from workflow.config import load_config
from workflow.engine import Engine


@pytest.fixture(autouse=True)
def _no_feishu_environment(monkeypatch):
    """The settings of each test come from its arguments, not from the shell running the tests."""
    for name in (
        "FEISHU_APP_ID",
        "FEISHU_APP_SECRET",
        "FEISHU_VERIFICATION_TOKEN",
        "FEISHU_ENCRYPT_KEY",
        "FEISHU_API_URL",
    ):
        monkeypatch.delenv(name, raising=False)


def runtime(settings: Settings) -> Runtime:
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    engine = Engine(load_config(), redis, FixedClock(datetime(2026, 12, 2, 9, 0)))
    memory = ThreadMemory(redis)
    agent = Agent(OfflinePlanner(), engine, memory)
    return Runtime(settings, redis, engine, memory, agent, agent.model)


def test_nothing_is_mounted_without_feishu_settings():
    """With no FEISHU_* settings there is no Feishu platform: no route, no delivery."""
    settings = Settings(_env_file=None)
    assert feishu_platform(runtime(settings), settings, BackgroundTasks()) is None


async def test_a_configured_app_mounts_the_route_and_a_delivery():
    """App id, secret and token mount POST /feishu/events; FEISHU_API_URL picks the host."""
    settings = Settings(
        _env_file=None,
        feishu_app_id="cli_x",
        feishu_app_secret="s",
        feishu_verification_token="v",
        feishu_encrypt_key="k",
        feishu_api_url="https://open.larksuite.com/",
    )
    app = web.Application()
    feishu = feishu_platform(runtime(settings), settings, BackgroundTasks())
    assert feishu is not None and feishu.bot.client.api_url == "https://open.larksuite.com"
    compose.mount(app, [feishu])
    assert [r.method for r in app.router.routes() if "feishu" in str(r.resource)] == ["POST"]
    assert feishu.delivery().platform == "feishu"
    await feishu.aclose()


def test_half_a_configuration_names_what_is_missing():
    """An app id without its secret stops start-up with the missing variable's name."""
    settings = Settings(_env_file=None, feishu_app_id="cli_x", feishu_verification_token="v")
    with pytest.raises(SettingsError, match="FEISHU_APP_SECRET"):
        feishu_platform(runtime(settings), settings, BackgroundTasks())
