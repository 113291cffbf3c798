"""Without REDIS_URL, the storage tests run on a redis-server the test session starts itself.

On a fresh machine with `redis-server` on the PATH and no REDIS_URL, the README's test
command used to skip every real-Redis test (92 of them). Here a child pytest runs the real-Redis
half of one storage test file with REDIS_URL and REQUIRE_REDIS removed from its environment:
nothing is skipped, and the server it started is gone afterwards.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REQUIRE_REDIS

ROOT = Path(__file__).resolve().parents[1]


def test_storage_tests_start_their_own_redis_instead_of_skipping(tmp_path: Path):
    if shutil.which("redis-server") is None:
        if REQUIRE_REDIS:
            pytest.fail("redis-server is not on the PATH")
        pytest.skip("redis-server is not on the PATH")
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REQUIRE_REDIS")}
    env["TMPDIR"] = str(tmp_path)  # the server's folder is made (and removed) in here
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "real",
         "tests/test_outbox.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0, done.stdout[-3000:]
    assert re.search(r"\d+ passed", summary) and "skipped" not in summary, summary
    assert list(tmp_path.glob("approvals-test-redis-*")) == []  # stopped and cleaned up
