"""The `approvals-bot` command: one entry point for every way to run the product."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Coroutine, Sequence
from typing import Any

from bot.logs import configure_logging
from bot.settings import Settings, SettingsError, load_settings
from workflow.config import load_config
from workflow.errors import WorkflowError
from workflow.store import connect


def _people(settings: Settings, args: argparse.Namespace) -> int:
    from workflow.directory_sync import with_synced

    config = with_synced(load_config(settings.approvals_config), settings.redis_url)
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


def _chat(settings: Settings, args: argparse.Namespace) -> int:
    from bot.chat import run_chat
    from bot.runtime import build_runtime

    runtime = build_runtime(settings)
    return asyncio.run(run_chat(runtime, args.person, args.json))


def _trace(settings: Settings, args: argparse.Namespace) -> int:
    from bot.runtime import build_runtime

    async def show() -> int:
        runtime = build_runtime(settings)
        try:
            events = await runtime.memory.read_trace(args.thread)
        finally:
            await runtime.close()
        if not events:
            print(
                f"No trace for thread {args.thread!r} (traces live 14 days; is REDIS_URL the same?)",
                file=sys.stderr,
            )
            return 1
        for e in events:
            if args.json:
                print(json.dumps(e, ensure_ascii=False))
                continue
            kind = e.get("event")
            detail = {k: v for k, v in e.items() if k != "event"}
            print(f"{kind:<14} " + " ".join(f"{k}={v}" for k, v in detail.items()))
        return 0

    return asyncio.run(show())


def run_fast(main: Coroutine[Any, Any, int]) -> int:
    """Run a long-lived process on uvloop (less CPU per request and per turn), asyncio's loop without it."""
    try:
        import uvloop
    except ImportError:  # not built for this platform
        return asyncio.run(main)
    return uvloop.run(main)


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    from bot.ingress_pool import IngressPool
    from bot.serve import serve

    count = args.ingress_processes or settings.ingress_processes
    if not 1 <= count <= 64:
        raise SettingsError(f"--ingress-processes: between 1 and 64, not {count}.")
    if count > 1 and args.socket:
        raise SettingsError(
            "INGRESS_PROCESSES above 1 is for HTTP: Socket Mode has one connection to Slack."
        )
    if count > 1 and not settings.redis_url:
        raise SettingsError(
            "INGRESS_PROCESSES above 1 needs REDIS_URL: without it each process would keep "
            "its own in-process store."
        )
    pool = IngressPool.fork(count)  # before any loop or connection: each process makes its own
    return run_fast(serve(settings, args.socket, pool))


def _worker(settings: Settings, args: argparse.Namespace) -> int:
    from bot.serve import worker

    if settings.worker_nice:
        # Slack wants its ack within 3 s and retries what is late; a turn can wait a moment, so
        # on cores shared with serve the scheduler gives the acks the CPU first
        os.nice(settings.worker_nice)
    return run_fast(worker(settings))


def _turns(settings: Settings, args: argparse.Namespace) -> int:
    from bot.queue.admin import list_dead, replay
    from bot.runtime import build_runtime

    async def run() -> int:
        runtime = build_runtime(settings)
        queue = runtime.turns.queue
        try:
            if args.action == "list":
                print(await list_dead(queue, args.json))
                return 0
            if not args.ids and not args.all:
                print(
                    "Name the dead letters to replay (ids from `turns list`), or --all.",
                    file=sys.stderr,
                )
                return 2
            queued, missing = await replay(queue, args.ids, args.all)
            for entry in queued:
                print(f"queued again as {entry}")
            for dead_id in missing:
                print(f"{dead_id}: no such dead letter", file=sys.stderr)
            return 1 if missing else 0
        finally:
            await runtime.close()

    return asyncio.run(run())


def _sandbox(settings: Settings, args: argparse.Namespace) -> int:
    from bot.sandbox.server import run_sandbox

    return asyncio.run(run_sandbox(settings, args.host, args.port, args.store))


def _requests(settings: Settings, args: argparse.Namespace) -> int:
    from datetime import date

    from bot import admin, heap, request_pages, request_rows
    from bot.runtime import build_runtime
    from workflow.errors import ValidationFailed

    def day(value: str | None):
        try:
            return date.fromisoformat(value) if value else None
        except ValueError:
            raise ValidationFailed(f"{value!r} is not a date; write it like 2026-12-01.") from None

    async def run() -> int:
        runtime = build_runtime(settings)
        engine = runtime.engine
        before = None
        try:
            if args.action == "show":
                if not args.request_id:
                    print("approvals-bot: requests show needs a request id", file=sys.stderr)
                    return 2
                print(admin.details(engine, await admin.get_request(engine, args.request_id)))
                return 0
            if args.action == "archive":
                return await _archive(engine, settings, args.dry_run)
            # the organisation (10,000 people) lives until the command ends and a month's rows
            # are freed as they are written: undone after, as main() may run inside a program
            before = heap.settle()
            if args.action == "keep":
                return await _keep(engine, args.month)
            filters = {
                "since": day(args.since),
                "until": day(args.until),
                "status": args.status,
                "process": args.process,
                "after": request_pages.Cursor.parse(args.after) if args.after else None,
                "archive_dir": settings.archive_dir,
            }
            if args.action == "list":
                limit = None if args.all else args.limit or request_pages.LIST_PAGE
                # a page of the list reads little more than the page
                page = request_pages.PAGE if limit is None else min(request_pages.PAGE, limit + 1)
                out = sys.stdout
                out.write(request_rows.TABLE_HEADER + "\n")
                shown, last = 0, ("", 0)
                async for keys, lines in request_pages.iter_table_pages(
                    engine, **filters, page=page
                ):
                    if limit is not None and shown + len(lines) > limit:
                        take = limit - shown
                        out.write("".join([line + "\n" for line in lines[:take]]))
                        rid, score = keys[take - 1] if take else last
                        print(
                            f"({limit} shown; --all for every one, or the next page: "
                            f"--after {request_pages.Cursor(score, rid)})"
                        )
                        return 0
                    out.write("".join([line + "\n" for line in lines]))
                    shown, last = shown + len(lines), keys[-1]
                print(f"({shown} request{'s' if shown != 1 else ''})")
            else:
                writer = request_rows.ExportWriter(
                    engine, sys.stdout, args.format, args.with_reasons, args.process
                )
                if args.format == "json":
                    async for rows in request_pages.iter_export_pages(
                        engine, **filters, with_reasons=args.with_reasons
                    ):
                        writer.write_rows(rows)
                else:
                    async for lines in request_pages.iter_csv_pages(
                        engine, **filters, with_reasons=args.with_reasons
                    ):
                        writer.write_lines(lines)
                writer.close()
            return 0
        finally:
            if before is not None:
                heap.unsettle(before)
            await runtime.close()

    return asyncio.run(run())


async def _keep(engine, month: str | None) -> int:
    import re

    from bot import month_keeper, month_rows

    if month is None or not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", month):
        print("approvals-bot: requests keep needs --month YYYY-MM, e.g. 2026-11", file=sys.stderr)
        return 2
    if not month_rows.closed(engine, month):
        print(
            f"approvals-bot: {month} is not over yet; only a closed month's rows are kept",
            file=sys.stderr,
        )
        return 2
    rows = await month_keeper.keep(engine, month, "operator")
    print(f"kept {month}: {rows} request{'s' if rows != 1 else ''}")
    return 0


def _directory(settings: Settings, args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from bot import admin

    if settings.redis_url is None:
        print(
            "approvals-bot: the synced directory is kept in Redis; set REDIS_URL", file=sys.stderr
        )
        return 2
    config = load_config(settings.approvals_config)

    async def run() -> int:
        redis = connect(settings.redis_url)
        try:
            rows = await admin.directory_rows(args.source, settings, args)
            change = await admin.directory_sync(
                redis,
                config,
                rows,
                source=args.source,
                default_timezone=args.default_timezone,
                default_country=args.default_country,
                dry_run=args.dry_run,
                now=datetime.now(UTC),
            )
        finally:
            await redis.aclose()
        for line in change.lines():
            print(line)
        print("(dry run: nothing written)" if args.dry_run else f"synced {len(rows)} people")
        return 0

    return asyncio.run(run())


async def _archive(engine, settings: Settings, dry_run: bool) -> int:
    from bot import archive

    months = engine.config.policy.retention_months
    if months is None:
        print(
            "approvals-bot: set [policy] retention_months in the organisation file to archive",
            file=sys.stderr,
        )
        return 2
    if settings.archive_dir is None:
        print("approvals-bot: set ARCHIVE_DIR to where the archive is kept", file=sys.stderr)
        return 2
    run = await archive.archive(engine, settings.archive_dir, months, dry_run=dry_run)
    verb = "would move" if dry_run else "moved"
    print(
        f"{verb} {run.archived} decided request{'s' if run.archived != 1 else ''} older than "
        f"{months} months to {settings.archive_dir}"
        + (f" ({run.kept_changed} changed meanwhile and stay)" if run.kept_changed else "")
    )
    return 0


def _migrate(settings: Settings, args: argparse.Namespace) -> int:
    from bot.runtime import build_runtime
    from workflow.migrate import migrate

    async def run() -> int:
        runtime = build_runtime(settings)
        try:
            done = await migrate(runtime.engine, keep_old=args.keep_old)
        finally:
            await runtime.close()
        print(
            f"moved {done.away} approved leaves, {done.delegations} delegations and "
            f"{done.calendar} calendar entries to the new indexes, {done.out_weeks} leaves to the "
            f"organisation's day indexes of who is out, {done.open_steps} open steps to their "
            f"approvers' lists; rewrote {done.requests} requests"
        )
        return 0

    return asyncio.run(run())


def _eval(settings: Settings, args: argparse.Namespace) -> int:
    from bot.eval import run_eval

    return asyncio.run(
        run_eval(
            settings,
            only=args.only,
            suite=args.suite,
            json_out=args.json,
            concurrency=args.concurrency,
        )
    )


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
    chat = sub.add_parser("chat", help="DM the bot from the terminal (works with piped input)")
    chat.add_argument(
        "--as",
        dest="person",
        required=True,
        help="directory id of the person speaking, e.g. zhangsan",
    )
    chat.add_argument(
        "--json", action="store_true", help="print every step event as one JSON object per line"
    )
    chat.set_defaults(run=_chat)
    trace = sub.add_parser("trace", help="print the steps of a conversation thread")
    trace.add_argument(
        "thread", help="the thread key, e.g. cli:zhangsan:1a2b3c4d or slack:D123:1700000000.1"
    )
    trace.add_argument("--json", action="store_true")
    trace.set_defaults(run=_trace)
    ev = sub.add_parser(
        "eval",
        help="run the agent scenario suite against the configured model (LLM_*, else the offline planner)",
    )
    ev.add_argument(
        "--only", metavar="NAME_SUBSTRING", help="run only scenarios whose name contains this"
    )
    ev.add_argument(
        "--suite",
        choices=["all", "core", "tuned", "held-out", "tuned-2", "held-out-2"],
        default="all",
        help="core scenarios, or a phrasing set: issue 14's tuned or held-out, the everyday asks' "
        "tuned-2 or held-out-2 (default: all, scored apart)",
    )
    ev.add_argument(
        "--json", action="store_true", help="one JSON object per scenario, then a totals line"
    )
    ev.add_argument("--concurrency", type=int, default=1, help="scenarios run at once (default 1)")
    ev.set_defaults(run=_eval)
    req = sub.add_parser(
        "requests", help="HR: list, show or export requests; keep a closed month's rows now"
    )
    req.add_argument("action", choices=["list", "show", "export", "archive", "keep"])
    req.add_argument("request_id", nargs="?", help="for show: the request id")
    req.add_argument("--since", help="submitted on or after (YYYY-MM-DD)")
    req.add_argument("--until", help="submitted on or before (YYYY-MM-DD)")
    req.add_argument("--status", help="pending, approved, rejected, withdrawn, expired")
    req.add_argument("--process", help="leave, expense, business_trip")
    req.add_argument("--format", choices=["csv", "json"], default="csv", help="for export")
    req.add_argument(
        "--limit",
        type=int,
        help="for list: show this many (default 100), then the next page's cursor",
    )
    req.add_argument("--all", action="store_true", help="for list: every request, not a page")
    req.add_argument("--after", metavar="CURSOR", help="for list/export: continue after a page")
    req.add_argument("--dry-run", action="store_true", help="for archive: count, move nothing")
    req.add_argument(
        "--month",
        metavar="YYYY-MM",
        help="for keep: the closed month whose list/export rows to keep now (the worker keeps "
        "each settled month itself)",
    )
    req.add_argument(
        "--with-reasons",
        action="store_true",
        help="include reasons (medical data: handle with care)",
    )
    req.set_defaults(run=_requests)
    directory = sub.add_parser(
        "directory", help="fill the directory from Slack, Feishu or an HRIS CSV (kept in Redis)"
    )
    directory.add_argument("action", choices=["sync"])
    directory.add_argument(
        "--from", dest="source", choices=["slack", "feishu", "csv"], required=True
    )
    directory.add_argument("--file", help="for csv: the export (email,name,manager_email,...)")
    directory.add_argument(
        "--manager-field", help="for slack: the custom profile field id holding the manager"
    )
    directory.add_argument("--managers", help="for slack: a CSV of email,manager_email")
    directory.add_argument(
        "--default-timezone", default="UTC", help="for people whose source gives none"
    )
    directory.add_argument(
        "--default-country", help="for people whose source and time zone give none (CN, GB, US)"
    )
    directory.add_argument(
        "--dry-run", action="store_true", help="show what would change and write nothing"
    )
    directory.set_defaults(run=_directory)
    mig = sub.add_parser(
        "migrate", help="move an organisation's Redis from the older layout (indexes, records)"
    )
    mig.add_argument("--keep-old", action="store_true", help="keep the older layout's keys")
    mig.set_defaults(run=_migrate)
    serve = sub.add_parser(
        "serve",
        help="run the bot: each configured platform's callback URL on PORT (or Slack's --socket)",
    )
    serve.add_argument(
        "--socket", action="store_true", help="Socket Mode instead of HTTP (needs SLACK_APP_TOKEN)"
    )
    serve.add_argument(
        "--ingress-processes",
        type=int,
        default=None,
        metavar="N",
        help="answer PORT with N processes (SO_REUSEPORT; the extra ones only ack); "
        "default INGRESS_PROCESSES or 1",
    )
    serve.set_defaults(run=_serve)
    worker = sub.add_parser(
        "worker", help="run the notifier, scheduler and turn runner (no callback URL)"
    )
    worker.set_defaults(run=_worker)
    turns = sub.add_parser(
        "turns", help="admin: turns that failed three times (dead letters): list, replay"
    )
    turns.add_argument("action", choices=["list", "replay"])
    turns.add_argument("ids", nargs="*", help="replay: dead-letter ids from `turns list`")
    turns.add_argument("--all", action="store_true", help="replay: every dead letter")
    turns.add_argument("--json", action="store_true", help="list: one JSON object")
    turns.set_defaults(run=_turns)
    sandbox = sub.add_parser(
        "sandbox",
        help="run the whole product in a browser: the bot, a local Slack stand-in and a web page",
    )
    sandbox.add_argument("--port", type=int, default=8000, help="port to serve on (default 8000)")
    sandbox.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; the page lets anyone act as anyone)",
    )
    sandbox.add_argument(
        "--store",
        metavar="URL",
        default=None,
        help="'memory' (the default: in-process, nothing persisted) or a Redis URL to run on; "
        "REDIS_URL and .env are not used without it",
    )
    sandbox.set_defaults(run=_sandbox)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, read settings once, run the command; errors print one clear line."""
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
        # demo and chat print the conversation itself; their logs are warnings only (on stderr)
        quiet = args.command in ("demo", "chat", "eval")
        configure_logging("warning" if quiet else settings.log_level, settings.log_format)
        return args.run(settings, args)
    except (SettingsError, WorkflowError) as e:
        print(f"approvals-bot: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
