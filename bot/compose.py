"""The one composition module: which chat platforms exist, wired into serve, worker and the sandbox.

A new chat platform is one package with a `Platform` and its `PlatformKind` (see
`bot.platform`) and one line in `PLATFORMS`. `serve` mounts every configured platform's
callback URL; `worker` gives the notifier every configured platform's delivery and mounts
nothing (no Bolt app is built there); both run the platforms' queued turns.
"""

from __future__ import annotations

from collections.abc import Sequence

from aiohttp import web

from bot.feishu.platform import FEISHU
from bot.front import Quick
from bot.notifier import OutboxWorker
from bot.platform import Platform, PlatformKind
from bot.runtime import Runtime
from bot.settings import Settings, SettingsError
from bot.slack.platform import SLACK
from bot.tasks import BackgroundTasks
from workflow.outbox import Outbox

NOTIFIER_GROUP = "notifier"
PLATFORMS: tuple[PlatformKind, ...] = (
    SLACK,
    FEISHU,
)


def no_platform(kinds: Sequence[PlatformKind] = PLATFORMS) -> str:
    """The one line `serve` and `worker` stop with when no platform is configured."""
    names = " nor ".join(k.name for k in kinds)
    needs = ", or ".join(k.needs for k in kinds)
    return f"Neither {names} is configured: set {needs} (or try `approvals-bot sandbox`)."


def platforms(runtime: Runtime, settings: Settings, tasks: BackgroundTasks) -> list[Platform]:
    """Every configured platform; each hands this process's turn runner its queued turns.

    Raises:
        SettingsError: none is configured, or one is configured only in part.
    """
    found = [p for kind in PLATFORMS if (p := kind.build(runtime, settings, tasks)) is not None]
    if not found:
        raise SettingsError(no_platform())
    return found


def mount(app: web.Application, found: Sequence[Platform]) -> None:
    """Each platform's callback URL on a web application; their sessions close with it."""
    for platform in found:
        app.router.add_post(platform.path, platform.receive)

    async def cleanup(_: web.Application) -> None:
        await close(found)

    app.on_cleanup.append(cleanup)


def quick_routes(found: Sequence[Platform]) -> dict[str, Quick]:
    """The callback URLs whose acks bot/front.py answers before aiohttp (each platform's `quick`)."""
    return {p.path: p.quick for p in found if p.quick is not None}


async def close(found: Sequence[Platform]) -> None:
    """Close every platform's HTTP sessions (a process that mounted them: `mount` does it)."""
    for platform in found:
        await platform.aclose()


def notifier(runtime: Runtime, found: Sequence[Platform], consumer: str) -> OutboxWorker:
    """The outbox worker delivering to every platform given."""
    outbox = Outbox(runtime.redis, runtime.engine.keys, NOTIFIER_GROUP)
    return OutboxWorker(outbox, [p.delivery() for p in found], consumer)
