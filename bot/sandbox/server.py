"""`approvals-bot sandbox`: the real bots, the Slack and Feishu stand-ins, the worker and the page on one port.

    /                 the page (static files from bot/sandbox/static/, no build step)
    /static/...       its CSS and JavaScript
    /api/{method}     the Slack Web API stand-in the Slack bot's AsyncWebClient talks to
    /slack/events     the Slack bot's Request URL (events, /leave, interactions), signature-checked
    /feishu-api/...   the Feishu open-API stand-in the Feishu bot's client talks to
    /feishu/events    the Feishu bot's event and card-callback URL (encrypted and signed)
    /healthz          the bot's health check
    /sandbox/...      the page's JSON API and its live change feeds (server-sent events), only
                      for the page itself: `bot.sandbox.guard` checks its per-start token and Origin

The sandbox makes its own signing secret and bot token, and its Feishu app id, secret,
verification token and Encrypt Key, at start; what a person does on the page is signed and
POSTed to /slack/events by `SlackSimulator` (or encrypted, signed and POSTed to
/feishu/events by `FeishuSimulator`), exactly as Slack (or Feishu) would. The notifier
delivers to both: a person with a Slack id and a Feishu open_id hears on both.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import html
import secrets
import signal
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import structlog
from aiohttp import web

from bot import compose
from bot.runtime import Runtime, build_runtime
from bot.sandbox.api import SandboxApi
from bot.sandbox.feishu import SandboxFeishu
from bot.sandbox.guard import PageGuard, is_loopback, new_token
from bot.sandbox.slack_simulator import SlackSimulator
from bot.sandbox.standins.slack.server import SlackStandIn
from bot.serve import make_app
from bot.settings import Settings, SettingsError
from bot.slack.app import SlackBot
from bot.slack.client import make_client
from bot.slack.platform import SlackPlatform
from bot.worker import run_worker
from workflow.directory import Directory
from workflow.scheduler import Scheduler

log = structlog.get_logger("sandbox")
STATIC = Path(__file__).parent / "static"
DEFAULT_PORT = 8000
PLACEHOLDER_URL = "http://127.0.0.1:9/api/"
"""The client's base URL until the server is bound and its port known (nothing listens on 9)."""
TOKEN_SLOT = '<meta name="sandbox-token" content="" />'
"""Where the page's copy of the per-start token goes in index.html."""
IN_PROCESS = "memory"
"""`--store memory`: the in-process store, whatever REDIS_URL says."""
REDIS_SCHEMES = ("redis://", "rediss://", "unix://", "redis+cluster://", "rediss+cluster://")


def slack_locale(locale: str) -> str:
    """The directory's `zh`/`en` as the Slack locale a person's client would report."""
    return "zh-CN" if locale == "zh" else "en-US"


def register_people(standin: SlackStandIn, directory: Directory) -> int:
    """Add every directory person with a Slack user id to the stand-in; returns how many."""
    count = 0
    for p in directory:
        if not p.slack_user_id:
            continue
        standin.add_user(
            p.slack_user_id,
            p.id,
            p.name,
            p.email,
            p.timezone,
            slack_locale(p.locale),
            title=p.title,
            display_name=p.name,
        )
        count += 1
    return count


def mask_url(url: str) -> str:
    """A Redis URL with its user and password hidden."""
    parts = urlsplit(url)
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    if parts.username or parts.password:
        netloc = "***@" + netloc
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def describe_store(settings: Settings) -> str:
    """One phrase saying where state lives (passwords masked)."""
    if settings.redis_url is None:
        return "in-process store: nothing is persisted (--store redis://… to use Redis)"
    return "Redis at " + mask_url(settings.redis_url)


def sandbox_settings(settings: Settings, store: str | None) -> Settings:
    """The settings the sandbox runs on: its in-process store unless `--store URL` names a Redis.

    The page lets anyone who opens it act as anyone, so a REDIS_URL from the environment or
    .env (meant for `serve` and `worker`) is not used silently: without `--store` it stops
    start-up with a SettingsError saying how to choose.
    """
    if store is None:
        if settings.redis_url is None:
            return settings
        raise SettingsError(
            f"REDIS_URL is set (Redis at {mask_url(settings.redis_url)}), but the sandbox lets "
            "anyone who opens its page act as anyone, so it does not use a real store unless "
            f"told to: pass --store {IN_PROCESS} for its in-process store, or "
            "--store <that URL> to run on that Redis on purpose."
        )
    if store == IN_PROCESS:
        return settings.model_copy(update={"redis_url": None})
    if not store.startswith(REDIS_SCHEMES):
        raise SettingsError(
            f"--store {store!r} is neither {IN_PROCESS!r} nor a Redis URL "
            "(redis://, rediss://, unix://)."
        )
    return settings.model_copy(update={"redis_url": store})


def describe_model(settings: Settings) -> str:
    """One phrase saying which model plans the agent's steps."""
    if not settings.llm_configured:
        return "offline planner (set LLM_BASE_URL to use an LLM)"
    where = settings.llm_base_url or f"the {settings.llm_preset} preset"
    model = settings.llm_model or "its default model"
    return f"LLM {model} at {where} (offline planner as fallback)"


def _client_host(host: str) -> str:
    """Where this process reaches itself: a wildcard bind address means loopback."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


class Sandbox:
    """The real Bolt app over the stand-in, with the worker and the page, as one aiohttp app."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        streaming: bool = True,
        store: str = "",
        model: str = "",
    ) -> None:
        """Args:
        runtime: the product's parts (its engine's clock is the product's clock).
        streaming: stream the agent's steps (False: a plan message updated in place).
        store, model: what the page says about where state lives and who plans.
        """
        self.runtime = runtime
        self.page_token = new_token()
        """Required on every /sandbox/ call; the page carries it (see `bot.sandbox.guard`)."""
        self.guard = PageGuard(self.page_token)
        self.signing_secret = secrets.token_hex(16)
        self.token = f"xoxb-sandbox-{secrets.token_hex(12)}"
        # The workspace keeps the product's time (APPROVALS_NOW fixes both), so message times
        # agree with the dates on the cards; request signatures use the real time, as Slack's.
        engine_clock = runtime.engine.clock
        self.standin = SlackStandIn(token=self.token, clock=lambda: engine_clock.now().timestamp())
        self.people = register_people(self.standin, runtime.engine.directory)
        self.client = make_client(self.token, PLACEHOLDER_URL)
        self.bot = SlackBot(runtime, self.client, self.signing_secret, streaming=streaming)
        # The same person's Feishu: the real Feishu bot over its own stand-in, on this port.
        self.feishu = SandboxFeishu(
            runtime, self.bot.tasks, clock=lambda: engine_clock.now().timestamp()
        )
        # composed as serve and worker are (bot.compose), from the sandbox's own two platforms:
        # their credentials are made here and their APIs are the stand-ins, not the settings'
        self.platforms = [SlackPlatform(self.bot), self.feishu.platform]
        self.simulator: SlackSimulator | None = None
        self.base_url: str | None = None
        self.api = SandboxApi(self, store=store, model=model)
        self.app = self._build_app()
        self._worker: asyncio.Task[None] | None = None
        self._worker_stop = asyncio.Event()
        self._runner: web.AppRunner | None = None

    def _build_app(self) -> web.Application:
        # POST /slack/events and /feishu/events, GET /healthz, drains the bots' tasks
        app = make_app(self.runtime, self.platforms, self.bot.tasks)
        app.middlewares.append(self.guard.middleware)
        self.standin.add_to(app, "/api/")
        self.feishu.add_to(app)
        self.api.add_to(app)
        app.router.add_get("/", self._index)
        app.router.add_static("/static", STATIC)
        app.on_startup.append(self._start_worker)
        app.on_shutdown.insert(0, self._close_streams)
        app.on_cleanup.append(self._cleanup)
        return app

    async def _index(self, _: web.Request) -> web.StreamResponse:
        """The page, with this start's token in it; no other site may frame it."""
        page = (STATIC / "index.html").read_text(encoding="utf-8")
        if TOKEN_SLOT not in page:
            raise RuntimeError(f"index.html has no {TOKEN_SLOT} for the page token")
        token = html.escape(self.page_token, quote=True)
        page = page.replace(TOKEN_SLOT, f'<meta name="sandbox-token" content="{token}" />')
        return web.Response(
            text=page,
            content_type="text/html",
            headers={
                "Cache-Control": "no-store",
                "X-Frame-Options": "DENY",
                "Content-Security-Policy": "frame-ancestors 'none'",
                "Referrer-Policy": "no-referrer",
            },
        )

    # -- wiring once the port is known ------------------------------------------------------

    def bind(self, base_url: str) -> None:
        """Point the bot's Web API client and the simulator at the server's own URL."""
        base = base_url.rstrip("/")
        self.base_url = base
        self.standin.base_url = base
        self.client.base_url = self.standin.api_url
        self.feishu.bind(base)
        if self.runtime.settings.public_url is None:  # calendar links point at this server
            self.bot.feeds.base_url = base
            self.feishu.bot.feeds.base_url = base
        if self.simulator is not None:
            self.simulator.events_url = f"{base}/slack/events"
        else:
            self.simulator = SlackSimulator(
                self.standin, f"{base}/slack/events", self.signing_secret
            )

    @property
    def sim(self) -> SlackSimulator:
        if self.simulator is None:
            raise RuntimeError("The sandbox is not bound to a URL yet: call start() or bind()")
        return self.simulator

    # -- lifecycle ----------------------------------------------------------------------------

    async def _start_worker(self, _: web.Application) -> None:
        """The worker in this process: the notifier (outbox → DMs, cards) and the scheduler.

        It delivers to Slack and to the Feishu stand-in, as `approvals-bot worker` does when
        both platforms are configured.
        """
        notifier = compose.notifier(self.runtime, self.platforms, f"sandbox:{secrets.token_hex(4)}")
        scheduler = Scheduler(self.runtime.engine)
        # the first tick fills the scheduler's due index; done before serving, so what a
        # request changes is all that changes while it runs (the guard tests compare all state)
        await scheduler.periodic()
        self._worker_stop.clear()
        self._worker = asyncio.create_task(
            run_worker(notifier, scheduler, self._worker_stop), name="sandbox-worker"
        )
        self._worker.add_done_callback(_report_crash)

    async def _close_streams(self, _: web.Application) -> None:
        await self.api.close_streams()
        await self.feishu.close_streams()

    async def _cleanup(self, _: web.Application) -> None:
        self._worker_stop.set()
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None
        if self.simulator is not None:
            await self.simulator.close()
        await self.feishu.close()

    async def start(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> str:
        """Serve on host:port (0 picks a free port); returns the page's URL.

        On a loopback address only requests to a loopback host name are answered.
        """
        self.guard.loopback_only = is_loopback(host)
        self._runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=2)
        await self._runner.setup()
        try:
            await web.TCPSite(self._runner, host, port).start()
        except OSError:
            await self._runner.cleanup()
            self._runner = None
            raise
        bound_port = self._runner.addresses[0][1]
        self.bind(f"http://{_client_host(host)}:{bound_port}")
        return f"{self.base_url}/"

    async def stop(self, drain_s: float = 10) -> None:
        """Stop serving: finish the bot's work while the stand-in still answers, then close
        the live streams, stop the worker (notifier and scheduler) and the server."""
        await self.bot.tasks.drain(drain_s)  # turns in flight still call /api/ on this server
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


def _report_crash(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("sandbox_worker_stopped", error=repr(task.exception())[:300])


async def _until_signalled() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()


async def run_sandbox(
    settings: Settings,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    store: str | None = None,
) -> int:
    """`approvals-bot sandbox`: serve until Ctrl+C, printing the URL and what runs underneath.

    `store` is `--store`: None (the in-process store; refused when REDIS_URL is set), "memory",
    or a Redis URL to run on.
    """
    settings = sandbox_settings(settings, store)
    runtime = build_runtime(settings)
    sandbox = Sandbox(
        runtime,
        streaming=settings.slack_streaming,
        store=describe_store(settings),
        model=describe_model(settings),
    )
    try:
        url = await sandbox.start(host, port)
    except OSError as e:
        await runtime.close()
        if e.errno == errno.EADDRINUSE:
            raise SettingsError(
                f"port {port} on {host} is already in use; try --port {port + 1}"
            ) from e
        raise SettingsError(f"cannot listen on {host}:{port}: {e.strerror or e}") from e
    clock = f" · clock fixed at {settings.approvals_now}" if settings.approvals_now else ""
    print(f"Sandbox running at {url}  (Ctrl+C to stop)", flush=True)
    print(f"{describe_store(settings)} · {describe_model(settings)}{clock}", flush=True)
    print(
        f"{sandbox.people} people from the directory ({sandbox.feishu.people} also on Feishu); "
        "pick one on the page and DM the bot, in Slack or 飞书.",
        flush=True,
    )
    try:
        await _until_signalled()
    finally:
        await sandbox.stop()
        await runtime.close()
    return 0
