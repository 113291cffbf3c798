"""Nothing acknowledged is lost: a Redis with AOF (fsync always) killed with SIGKILL keeps every transition.

The test runs its own `redis-server` in a temporary folder, so it never touches the shared
Redis. Without `redis-server` on the PATH it is skipped (failed under REQUIRE_REDIS=1).
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis

from tests.conftest import REQUIRE_REDIS
from workflow.clock import FixedClock
from workflow.config import OrgConfig
from workflow.engine import Engine
from workflow.models import PendingStatus, Request, RequestStatus, StepStatus
from workflow.store import connect

pytestmark = [pytest.mark.redis, pytest.mark.slow]

SICK_6_DAYS = {"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-10", "reason": "flu"}
ANNUAL_2_DAYS = {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}
PERSONAL_1_DAY = {
    "leave_type": "personal",
    "start": "2026-12-21",
    "end": "2026-12-21",
    "reason": "move",
}
EXPENSE = {
    "amount": 1500,
    "currency": "CNY",
    "category": "travel",
    "spent_on": "2026-11-30",
    "description": "train to Beijing",
}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """A throwaway `redis-server` with an fsync-always AOF in one folder, on one port."""

    def __init__(self, exe: str, folder: Path) -> None:
        self.exe = exe
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = folder / "redis.log"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = [
            self.exe,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.folder),
            "--appendonly", "yes",
            "--appendfsync", "always",
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(self.log),
        ]  # fmt: skip
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._wait_ready()

    def _wait_ready(self, timeout: float = 15.0) -> None:
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + timeout
        try:
            while True:
                assert self.proc is not None
                if self.proc.poll() is not None:
                    raise RuntimeError(f"redis-server exited: {self._log_tail()}")
                try:
                    if client.ping():
                        return
                except (redis.ConnectionError, redis.BusyLoadingError):
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not answer PING: {self._log_tail()}")
                time.sleep(0.05)
        finally:
            client.close()

    def kill(self) -> None:
        """SIGKILL: no shutdown hook, no final save; only what was fsynced survives."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None

    def _log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return self.log.read_text(errors="replace")[-2000:]
        return "(no log)"


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A private redis-server, always killed at the end."""
    exe = shutil.which("redis-server")
    if exe is None:
        msg = "redis-server is not on the PATH"
        if REQUIRE_REDIS:
            pytest.fail(msg)
        pytest.skip(msg)
    server = RedisServer(exe, tmp_path)
    try:
        server.start()
        yield server
    finally:
        server.kill()


async def dump_org(client: aioredis.Redis, org: str) -> dict[str, Any]:
    """Every key of the organisation with its type and full contents (streams with their ids)."""
    out: dict[str, Any] = {}
    async for key in client.scan_iter(match="{" + org + "}:*"):
        kind = await client.type(key)
        if kind == "hash":
            value: Any = await client.hgetall(key)
        elif kind == "set":
            value = sorted(await client.smembers(key))
        elif kind == "zset":
            value = await client.zrange(key, 0, -1, withscores=True)
        elif kind == "stream":
            value = await client.xrange(key)
        elif kind == "string":
            value = await client.get(key)
        else:
            value = f"unexpected type {kind}"
        out[key] = (kind, value)
    return out


async def test_every_acknowledged_transition_survives_sigkill(
    redis_server: RedisServer, config: OrgConfig, clock: FixedClock
):
    """Requests, their steps, ledgers and outbox events written before a SIGKILL are all there after a restart, and the engine goes on working."""
    org = config.organisation.id
    client = connect(redis_server.url)
    try:
        engine = Engine(config, client, clock)
        made: list[tuple[str, str, dict[str, Any]]] = [
            ("zhangsan", "leave", SICK_6_DAYS),
            ("lisi", "leave", ANNUAL_2_DAYS),
            ("chenjing", "leave", PERSONAL_1_DAY),
            ("oliver", "leave", ANNUAL_2_DAYS),
            ("zhangsan", "expense", EXPENSE),
        ]
        ids: list[str] = []
        for actor, process, fields in made:
            p = await engine.prepare_submit(actor, process, fields)
            o = await engine.confirm(p.pending.id, actor)
            assert o.request.status is RequestStatus.PENDING
            ids.append(o.request.id)
        sick, annual, *_ = ids
        approved = await engine.decide(annual, 0, "wangfang", "approve", "enjoy")
        assert approved.status is RequestStatus.APPROVED
        halfway = await engine.decide(sick, 0, "wangfang", "approve")
        assert halfway.current_step == 1
        # a draft that was never confirmed is state too
        draft = await engine.prepare_submit("priya", "leave", ANNUAL_2_DAYS)

        before_requests = {i: await engine.get_request(i, "liuyang") for i in ids}
        before_balances = {
            p: await engine.balances(p, 2026) for p in ("zhangsan", "lisi", "chenjing", "oliver")
        }
        before = await dump_org(client, org)
        outbox = before[engine.keys.outbox][1]
        assert len(outbox) == 5 * 2 + 2 + 2  # submitted + assigned each; approved x2; assigned
        assert engine.keys.ledger("zhangsan") in before

        redis_server.kill()
        with pytest.raises(redis.ConnectionError):
            probe = redis.Redis(port=redis_server.port, socket_connect_timeout=0.5)
            try:
                probe.ping()
            finally:
                probe.close()
        redis_server.start()

        # a replica starting now (a fresh client) finds everything, byte for byte
        fresh = connect(redis_server.url)
        try:
            assert await dump_org(fresh, org) == before
            assert await fresh.script_exists(engine.store._apply.sha) == [False]  # cache is gone
            engine = Engine(config, fresh, clock)
            for i, old in before_requests.items():
                now = await engine.get_request(i, "liuyang")
                assert now == old
                assert [(s.status, s.assignee) for s in now.steps] == [
                    (s.status, s.assignee) for s in old.steps
                ]
            for person, balances in before_balances.items():
                assert await engine.balances(person, 2026) == balances
            [sick_now] = [b for b in before_balances["zhangsan"] if b.leave_type == "sick"]
            assert (sick_now.reserved, sick_now.used) == (6, 0)
            pending = await engine.pending_action(draft.pending.id, "priya")
            assert pending.status is PendingStatus.OPEN

            # and the engine goes on: the script is loaded again, new events follow the old ones
            done: Request = await engine.decide(sick, 1, "liuyang", "approve")
            assert done.status is RequestStatus.APPROVED
            assert done.steps[1].status is StepStatus.APPROVED
            balances = await engine.balances("zhangsan", 2026)
            [sick_after] = [b for b in balances if b.leave_type == "sick"]
            assert (sick_after.reserved, sick_after.used) == (0, 6)
            later = await fresh.xrange(engine.keys.outbox)
            assert later[: len(outbox)] == outbox
            assert [(f["type"], f["request_id"]) for _, f in later[len(outbox) :]] == [
                ("step_approved", sick),
                ("request_approved", sick),
            ]
            confirmed = await engine.confirm(draft.pending.id, "priya")
            assert confirmed.request.status is RequestStatus.PENDING
        finally:
            await fresh.aclose()
    finally:
        await client.aclose()


async def test_a_running_engine_rides_through_a_redis_restart(
    redis_server: RedisServer, config: OrgConfig, clock: FixedClock
):
    """An engine that was running before Redis restarted answers the next click without an error."""
    client = connect(redis_server.url)
    try:
        engine = Engine(config, client, clock)
        p = await engine.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
        req = (await engine.confirm(p.pending.id, "zhangsan")).request
        redis_server.kill()
        redis_server.start()
        decided = await engine.decide(req.id, 0, "wangfang", "approve")
        assert decided.current_step == 1
    finally:
        await client.aclose()
