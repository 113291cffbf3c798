"""WORKER_NICE: `approvals-bot worker` gives the CPU to serve's acks on shared cores."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import real_redis_url

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def _env(**extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "SLACK_", "FEISHU_"))}
    return keep | {"REDIS_URL": real_redis_url(), "PYTHONIOENCODING": "utf-8", **extra}


def _niceness(pid: int) -> int:
    # /proc/<pid>/stat: field 19 is the nice value; the command name (field 2) may hold spaces
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[16])


def test_a_worker_with_worker_nice_runs_at_that_niceness():
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "worker"],
        env=_env(WORKER_NICE="7"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    want = 7 + os.nice(0)  # niceness adds to the test's own
    try:
        deadline = time.monotonic() + 30
        while _niceness(proc.pid) != want and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert _niceness(proc.pid) == want
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)  # stops (it may not have installed its handler yet)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_worker_nice_out_of_range_is_refused_in_one_line_before_anything_runs():
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "worker"],
        env=_env(WORKER_NICE="25"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "WORKER_NICE" in done.stderr.upper() or "worker_nice" in done.stderr
    assert "Traceback" not in done.stderr
