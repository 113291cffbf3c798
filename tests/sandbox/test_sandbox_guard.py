"""Only the sandbox's own page drives it: the per-start token, the Origin check, the Host check,
and no real Redis unless `--store URL` says so (issue 13)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import fakeredis
import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.sandbox.guard import TOKEN_HEADER, is_loopback
from bot.sandbox.server import Sandbox, sandbox_settings
from bot.settings import Settings, SettingsError

OLIVER, ZHANG = "U0OLIVER", "ou_zhangsan"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def client(sandbox: Sandbox) -> AsyncIterator[TestClient]:
    """A client that sends no token unless told to: what a page elsewhere can do."""
    server = TestServer(sandbox.app)
    client = TestClient(server)
    await client.start_server()
    sandbox.bind(str(server.make_url("/")))
    yield client
    await sandbox.bot.tasks.drain(5)
    await client.close()


async def everything(sandbox: Sandbox) -> tuple[Any, ...]:
    """All the sandbox's state: every Redis key (a stream's entries, not its readers' clocks),
    both stand-ins' change counter and what Oliver and 张三 see."""
    await sandbox.bot.tasks.drain(5)  # a turn the request started would have run by now
    raw = fakeredis.FakeAsyncRedis(connection_pool=sandbox.runtime.redis.connection_pool)
    dumps = []
    for key in sorted(await raw.keys("*")):
        kind = await raw.type(key)
        value = await raw.xrange(key) if kind in ("stream", b"stream") else await raw.dump(key)
        dumps.append((key, kind, value))
    feishu = sandbox.feishu.standin.snapshot(ZHANG)
    return (
        dumps,
        sandbox.standin.workspace.change_seq,
        json.dumps(sandbox.standin.snapshot(OLIVER), sort_keys=True),
        json.dumps(feishu, sort_keys=True, ensure_ascii=False),
    )


def own_origin(client: TestClient) -> str:
    return str(client.make_url("/")).rstrip("/")


# Every way the page acts as a person, each with a body that would act if let through.
ACTIONS: list[tuple[str, dict[str, Any]]] = [
    ("/sandbox/message", {"user": OLIVER, "text": "annual leave next Monday to Wednesday"}),
    ("/sandbox/command", {"user": OLIVER, "command": "/leave", "text": "sick leave tomorrow"}),
    ("/sandbox/click", {"user": OLIVER, "action_id": "x", "channel": "D0X", "ts": "1.1"}),
    ("/sandbox/views/submit", {"user": OLIVER, "view_id": "V0X", "values": {}}),
    ("/sandbox/views/close", {"user": OLIVER, "view_id": "V0X"}),
    ("/sandbox/home", {"user": OLIVER}),
    ("/sandbox/ephemeral/dismiss", {"user": OLIVER, "ts": "1.1"}),
    ("/sandbox/feishu/message", {"open_id": ZHANG, "text": "明天开始请两天病假"}),
    ("/sandbox/feishu/click", {"open_id": ZHANG, "message_id": "om_x", "button": 0}),
]
READS = [
    "/sandbox/info",
    "/sandbox/people",
    f"/sandbox/snapshot?user={OLIVER}",
    "/sandbox/events",
    f"/sandbox/feishu/snapshot?open_id={ZHANG}",
    "/sandbox/feishu/events",
]


async def test_a_cross_origin_text_plain_post_acting_as_a_person_is_refused(
    client: TestClient, sandbox: Sandbox
):
    """The attack of issue 13: a page elsewhere POSTs text/plain (no preflight) as Oliver.

    Refused before anything runs, with or without the token, and nothing changes anywhere.
    """
    before = await everything(sandbox)
    body = json.dumps({"user": OLIVER, "text": "annual leave next Monday to Wednesday"})
    for headers in (
        {"Origin": "https://evil.example", "Content-Type": "text/plain"},
        {"Origin": "https://evil.example", "Content-Type": "text/plain", TOKEN_HEADER: "guess"},
        # even a leaked token does not help another origin
        {"Origin": "https://evil.example", TOKEN_HEADER: sandbox.page_token},
        {"Origin": "http://localhost:1", TOKEN_HEADER: sandbox.page_token},
        {"Sec-Fetch-Site": "cross-site", TOKEN_HEADER: sandbox.page_token},
        {"Sec-Fetch-Site": "same-site", TOKEN_HEADER: sandbox.page_token},
    ):
        resp = await client.post("/sandbox/message", data=body, headers=headers)
        assert resp.status == 403, headers
        answer = await resp.json()
        assert answer["ok"] is False and answer["code"] in ("cross_origin", "bad_token")
    assert await everything(sandbox) == before

    # The page itself (its own Origin, its token, JSON) does act: the refusals above were real.
    ok = await client.post(
        "/sandbox/message",
        data=body,
        headers={
            "Origin": own_origin(client),
            "Sec-Fetch-Site": "same-origin",
            "Content-Type": "application/json",
            TOKEN_HEADER: sandbox.page_token,
        },
    )
    assert ok.status == 200 and (await ok.json())["ok"] is True
    assert await everything(sandbox) != before


async def test_a_missing_or_wrong_token_is_refused_with_nothing_changed(
    client: TestClient, sandbox: Sandbox
):
    """Every action and every read of /sandbox/ needs this start's token; refusals change nothing."""
    before = await everything(sandbox)
    other = Sandbox(sandbox.runtime)  # another start: another token
    assert other.page_token != sandbox.page_token
    for path, body in ACTIONS:
        for headers in ({}, {TOKEN_HEADER: ""}, {TOKEN_HEADER: other.page_token}):
            resp = await client.post(path, json=body, headers=headers)
            assert resp.status == 403, (path, headers)
            answer = await resp.json()
            assert answer == {
                "ok": False,
                "code": "bad_token",
                "error": "This page is from an earlier start of the sandbox: reload it.",
            }
        # the token in the query string is for the live feeds (GET) only
        resp = await client.post(f"{path}?token={sandbox.page_token}", json=body)
        assert resp.status == 403, path
        # with the token but not JSON: refused as well
        resp = await client.post(
            path, data=json.dumps(body), headers={TOKEN_HEADER: sandbox.page_token}
        )
        assert resp.status == 415, path
    for path in READS:
        resp = await client.get(path)
        assert resp.status == 403, path
        assert (await resp.json())["code"] == "bad_token"
    assert await everything(sandbox) == before

    # With the token the reads answer; the live feeds take it as ?token= (EventSource).
    info = await client.get("/sandbox/info", headers={TOKEN_HEADER: sandbox.page_token})
    assert info.status == 200
    feed = await client.get("/sandbox/events", params={"token": sandbox.page_token})
    assert feed.status == 200 and feed.content_type == "text/event-stream"
    feed.close()


async def test_the_page_carries_its_token_and_no_other_site_may_frame_or_rebind_it(
    client: TestClient, sandbox: Sandbox
):
    """GET / holds this start's token; a DNS-rebinding Host gets neither the page nor the API."""
    page = await client.get("/")
    html = await page.text()
    assert f'<meta name="sandbox-token" content="{sandbox.page_token}" />' in html
    assert page.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert page.headers["Cache-Control"] == "no-store"

    port = client.make_url("/").port
    for host in (f"evil.example:{port}", "evil.example", f"192.168.1.10:{port}"):
        resp = await client.get("/", headers={"Host": host})
        assert resp.status == 403, host
        assert sandbox.page_token not in await resp.text()
        api = await client.get(
            "/sandbox/info", headers={"Host": host, TOKEN_HEADER: sandbox.page_token}
        )
        assert api.status == 403, host
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
        assert (await client.get("/", headers={"Host": host})).status == 200, host


def test_loopback_names():
    assert all(map(is_loopback, ["127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3"]))
    assert not any(map(is_loopback, ["0.0.0.0", "", "evil.example", "192.168.1.10", "::"]))


def test_a_real_redis_is_used_only_when_store_names_it():
    """REDIS_URL alone stops start-up with a sentence saying what to pass; --store decides."""
    plain = Settings(_env_file=None, redis_url=None)
    assert sandbox_settings(plain, None).redis_url is None
    real = Settings(_env_file=None, redis_url="redis://user:secret@db.internal:6379/0")
    with pytest.raises(SettingsError) as refused:
        sandbox_settings(real, None)
    message = str(refused.value)
    assert "--store memory" in message and "--store <that URL>" in message
    assert "db.internal:6379" in message and "secret" not in message
    assert sandbox_settings(real, "memory").redis_url is None
    chosen = sandbox_settings(plain, "redis://127.0.0.1:6379/5")
    assert chosen.redis_url == "redis://127.0.0.1:6379/5"
    with pytest.raises(SettingsError, match="neither 'memory' nor a Redis URL"):
        sandbox_settings(plain, "postgres://db/x")


@pytest.mark.parametrize("where", ["env", "dotenv"])
def test_the_sandbox_command_refuses_to_start_on_a_real_redis_url(tmp_path: Path, where: str):
    """`approvals-bot sandbox` with REDIS_URL (environment or .env) and no --store: exit 2, no server."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REDIS_", "LLM_"))}
    url = "redis://127.0.0.1:6379/0"
    if where == "env":
        env["REDIS_URL"] = url
    else:
        (tmp_path / ".env").write_text(f"REDIS_URL={url}\n")
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "sandbox", "--port", "0"],
        cwd=tmp_path,
        env=env | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Sandbox running" not in done.stdout
    assert "REDIS_URL is set" in done.stderr and "--store" in done.stderr
