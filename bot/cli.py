"""The `approvals-bot` command: one entry point for every way to run the product."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence

from bot.logs import configure_logging
from bot.settings import Settings, SettingsError, load_settings
from workflow.config import load_config
from workflow.errors import WorkflowError
from workflow.store import connect


def _people(settings: Settings, args: argparse.Namespace) -> int:
    config = load_config(settings.approvals_config)
    for p in config.people:
        row = {
            "id": p.id,
            "name": p.name,
            "email": p.email,
            "manager": p.manager,
            "roles": list(p.roles),
            "timezone": p.timezone,
            "country": p.country,
        }
        if args.json:
            print(json.dumps(row, ensure_ascii=False))
        else:
            manager = p.manager or "-"
            roles = ",".join(p.roles) or "-"
            print(
                f"{p.id:<10} {p.name:<14} {p.email:<28} manager={manager:<9} roles={roles:<8} {p.timezone} {p.country}"
            )
    return 0


def _demo(settings: Settings, args: argparse.Namespace) -> int:
    from bot.demo import run_demo

    config = load_config(settings.approvals_config)
    if settings.redis_url is None:
        print("(in-process store: nothing is persisted; set REDIS_URL to use Redis)\n")
    return asyncio.run(run_demo(config, connect(settings.redis_url)))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="approvals-bot", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    people = sub.add_parser("people", help="list the directory")
    people.add_argument("--json", action="store_true", help="one JSON object per line")
    people.set_defaults(run=_people)
    demo = sub.add_parser(
        "demo", help="show the engine working end to end on the demo organisation"
    )
    demo.set_defaults(run=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, read settings once, run the command; errors print one clear line."""
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
        configure_logging(
            settings.log_level if args.command != "demo" else "warning", settings.log_format
        )
        return args.run(settings, args)
    except (SettingsError, WorkflowError) as e:
        print(f"approvals-bot: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
