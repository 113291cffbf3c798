"""Shared fixtures: the demo organisation under a fresh org id, a fixed clock, fakeredis and real Redis.

Storage tests run twice: on fakeredis, and on a real Redis: the one at REDIS_URL, or, without
REDIS_URL, a `redis-server` from the PATH that the test session starts itself (a free port, a
temporary folder, no persistence) and stops at the end. With neither they are skipped; with
REQUIRE_REDIS=1 (CI) an unreachable Redis fails them instead.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import fakeredis
import hypothesis
import pytest
import redis.asyncio as aioredis
import structlog

from workflow.clock import FixedClock
from workflow.config import Organisation, OrgConfig, load_config
from workflow.engine import Engine
from workflow.store import connect

REQUIRE_REDIS = os.environ.get("REQUIRE_REDIS") == "1"
REDIS_URL = os.environ.get("REDIS_URL") or ("redis://127.0.0.1:6379/0" if REQUIRE_REDIS else None)

# In CI, property and fuzz tests draw the same examples every run: a red CI then means a change
# broke something, not that a new random draw found an old bug (local runs keep exploring).
hypothesis.settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    hypothesis.settings.load_profile("ci")

# Wednesday 2 December 2026, 09:00 wherever each person is.
NOW = datetime(2026, 12, 2, 9, 0)


class _OwnRedis:
    """The session's own redis-server, started on first use when REDIS_URL is not set."""

    proc: subprocess.Popen[bytes] | None = None
    folder: str | None = None
    url: str | None = None
    failed: str | None = None

    @classmethod
    def get(cls) -> str | None:
        if cls.url is not None or cls.failed is not None:
            return cls.url
        exe = shutil.which("redis-server")
        if exe is None:
            cls.failed = "no REDIS_URL and no redis-server on the PATH"
            return None
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        cls.folder = tempfile.mkdtemp(prefix="approvals-test-redis-")
        args = [exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", cls.folder,
                "--save", "", "--appendonly", "no", "--daemonize", "no"]  # fmt: skip
        cls.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        atexit.register(cls.stop)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and cls.proc.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        cls.url = f"redis://127.0.0.1:{port}/0"
                        return cls.url
            except OSError:
                time.sleep(0.05)
        cls.failed = f"the test session's own redis-server did not start on port {port}"
        cls.stop()
        return None

    @classmethod
    def stop(cls) -> None:
        if cls.proc is not None and cls.proc.poll() is None:
            cls.proc.terminate()
            try:
                cls.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                cls.proc.kill()
        cls.proc = None
        if cls.folder is not None:
            shutil.rmtree(cls.folder, ignore_errors=True)
            cls.folder = None


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _OwnRedis.stop()


def real_redis_url() -> str:
    """The real Redis to test against: REDIS_URL, else our own redis-server, else skip (fail
    under REQUIRE_REDIS=1)."""
    url = REDIS_URL or _OwnRedis.get()
    if url is None:
        pytest.skip(f"{_OwnRedis.failed}: real-Redis tests skipped (set REDIS_URL)")
    return url


async def open_real_redis() -> aioredis.Redis:
    url = real_redis_url()
    client = connect(url)  # redis:// or redis+cluster://, as the product connects
    try:
        await client.ping()
    except (OSError, aioredis.ConnectionError) as e:
        await client.aclose()
        msg = f"Redis at {url} is unreachable: {e}"
        if REQUIRE_REDIS:
            pytest.fail(msg)
        pytest.skip(msg)
    return client


async def delete_org(client: aioredis.Redis, org: str) -> None:
    """Remove every key of a test organisation (tests only: the product never scans)."""
    async for key in client.scan_iter(match="{" + org + "}:*", count=500):
        await client.delete(key)


@pytest.fixture(autouse=True)
def _fresh_structlog(monkeypatch: pytest.MonkeyPatch):
    """A test that configures logging (the CLI does) must not leave a logger bound to a closed stream.

    The product configures structlog with `cache_logger_on_first_use=True`: a module's `log`
    proxy then keeps, for the rest of the process, the logger it first assembled — one printing
    to the stderr that pytest's capture of that test has since closed, so a later test's first
    log line raised "I/O operation on closed file", and `capture_logs` no longer saw it. In
    tests nothing is cached (each log call assembles its logger from the configuration of the
    moment), and each test starts and ends on structlog's defaults.
    """
    configure = structlog.configure

    def uncached(*args: Any, **kwargs: Any) -> None:
        configure(*args, **{**kwargs, "cache_logger_on_first_use": False})

    structlog.reset_defaults()
    monkeypatch.setattr(structlog, "configure", uncached)
    yield
    structlog.reset_defaults()


@pytest.fixture
def config() -> OrgConfig:
    """The demo organisation under an org id of its own, so tests never share Redis keys."""
    base = load_config()
    org = Organisation(id="t" + secrets.token_hex(6), name=base.organisation.name)
    return base.model_copy(update={"organisation": org})


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOW)


@pytest.fixture(params=["fake", "real"])
async def redis(request: pytest.FixtureRequest, config: OrgConfig) -> AsyncIterator[aioredis.Redis]:
    """fakeredis, then the real Redis (skipped without REDIS_URL, failed under REQUIRE_REDIS=1)."""
    if request.param == "fake":
        client = fakeredis.FakeAsyncRedis(decode_responses=True)
        yield client
        await client.aclose()
        return
    client = await open_real_redis()
    try:
        yield client
    finally:
        await delete_org(client, config.organisation.id)
        await client.aclose()


@pytest.fixture
async def engine(config: OrgConfig, redis: aioredis.Redis, clock: FixedClock) -> Engine:
    return Engine(config, redis, clock)
