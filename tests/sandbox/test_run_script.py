"""`./scripts/run`: says what it does while installing, and skips the install when .venv is current.

Run in a copy of the script with a stand-in pip and approvals-bot in a temporary .venv, so the
test takes milliseconds and needs no package index.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAKE_PIP = """#!/usr/bin/env bash
echo "pip $*" >> "$(dirname "$0")/../calls"
echo "Collecting aiohttp>=3.9"
echo "Collecting slack-bolt>=1.18"
[ -n "${PIP_FAILS:-}" ] && { echo "ERROR: No matching distribution found for slack-bolt"; exit 1; }
echo "Successfully installed aiohttp-3.9 slack-bolt-1.18 approvals-bot-0.1"
"""
FAKE_BOT = """#!/usr/bin/env bash
echo "approvals-bot $*" >> "$(dirname "$0")/../calls"
echo "Sandbox running"
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "run", tmp_path / "scripts" / "run")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "approvals-bot"\n')
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").symlink_to(sys.executable)
    for name, text in (("pip", FAKE_PIP), ("approvals-bot", FAKE_BOT)):
        path = bin_dir / name
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return tmp_path


def run(repo: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(repo / "scripts" / "run"), *args],
        capture_output=True,
        text=True,
        timeout=30,
        env=os.environ | env,
    )


def calls(repo: Path) -> list[str]:
    path = repo / ".venv" / "calls"
    lines = path.read_text().splitlines() if path.exists() else []
    path.unlink(missing_ok=True)
    return lines


def test_the_first_run_says_what_it_installs_and_a_restart_skips_pip(repo: Path):
    first = run(repo, "--port", "8001")
    assert first.returncode == 0, first.stderr
    assert "Installing approvals-bot and its dependencies into .venv" in first.stderr
    assert "fetching aiohttp>=3.9" in first.stderr and "fetching slack-bolt>=1.18" in first.stderr
    assert "Starting the sandbox" in first.stderr
    assert calls(repo) == [
        "pip install --disable-pip-version-check -e .",
        "approvals-bot sandbox --port 8001",
    ]

    again = run(repo)
    assert again.returncode == 0, again.stderr
    assert "Installing" not in again.stderr
    assert calls(repo) == ["approvals-bot sandbox"]

    # pyproject.toml changed (a new dependency): install again.
    with (repo / "pyproject.toml").open("a") as f:
        f.write('dependencies = ["uvloop"]\n')
    changed = run(repo)
    assert "Installing" in changed.stderr
    assert calls(repo)[0].startswith("pip install")


def test_a_failed_install_shows_pips_error_and_is_tried_again_next_time(repo: Path):
    failed = run(repo, PIP_FAILS="1")
    assert failed.returncode == 1
    assert "The install failed" in failed.stderr
    assert "No matching distribution found for slack-bolt" in failed.stderr
    assert calls(repo) == ["pip install --disable-pip-version-check -e ."]  # no sandbox
    assert not (repo / ".venv" / ".installed").exists()
    retried = run(repo)
    assert retried.returncode == 0 and "Installing" in retried.stderr
