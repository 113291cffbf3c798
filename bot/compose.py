"""The one composition module: which chat platforms exist, wired into serve, worker and the sandbox.

A new chat platform is one package with a `Platform` (see `bot.platform`) and one line in
`PLATFORMS`. `serve` mounts every configured platform's callbacks; `worker` gives the
notifier every configured platform's delivery, without building any platform's
callback handler (no Bolt app in the worker).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from aiohttp import web

from bot.feishu.platform import feishu_platform
from bot.notifier import OutboxWorker
from bot.platform import Platform
from bot.runtime import Runtime
from bot.settings import Settings, SettingsError
from bot.slack.platform import slack_platform
from bot.tasks import BackgroundTasks
from workflow.outbox import Outbox

NOTIFIER_GROUP = "notifier"
NO_PLATFORM = (
    "Neither Slack nor Feishu is configured: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET, "
    "or FEISHU_APP_ID, FEISHU_APP_SECRET and FEISHU_VERIFICATION_TOKEN (or try `approvals-bot sandbox`)."
)

# Each returns its platform from the settings, or None when that platform is not configured.
Factory = Callable[[Runtime, Settings, BackgroundTasks], Platform | None]
PLATFORMS: tuple[Factory, ...] = (
    slack_platform,
    feishu_platform,
)


def platforms(runtime: Runtime, settings: Settings, tasks: BackgroundTasks) -> list[Platform]:
    """Every configured platform.

    Raises:
        SettingsError: none is configured, or one is configured only in part.
    """
    found = [p for make in PLATFORMS if (p := make(runtime, settings, tasks)) is not None]
    if not found:
        raise SettingsError(NO_PLATFORM)
    return found


def mount(app: web.Application, found: Sequence[Platform]) -> None:
    """Each platform's callback URL on a web application; their sessions close with it."""
    for platform in found:
        app.router.add_post(platform.path, platform.receive)

    async def cleanup(_: web.Application) -> None:
        await close(found)

    app.on_cleanup.append(cleanup)


async def close(found: Sequence[Platform]) -> None:
    """Close every platform's HTTP sessions (a process that mounted them: `mount` does it)."""
    for platform in found:
        await platform.aclose()


def notifier(runtime: Runtime, found: Sequence[Platform], consumer: str) -> OutboxWorker:
    """The outbox worker delivering to every platform given."""
    outbox = Outbox(runtime.redis, runtime.engine.keys, NOTIFIER_GROUP)
    return OutboxWorker(outbox, [p.delivery() for p in found], consumer)
