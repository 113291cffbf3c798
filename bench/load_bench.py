"""Load benchmark: N employees DM the real bot at once, over signed HTTP events, to the approval.

The bot runs as it does in production, as subprocesses: `approvals-bot serve` (the Bolt app
on /slack/events) and `approvals-bot worker` (the notifier), both started through
bench/_instrument.py, which only counts Redis round trips. A subprocess is measured
honestly: its CPU time and peak RSS are its own, and the driver (the Slack stand-in, the
signing simulator) and the fake model (its own process) take nothing from its event loop.
Redis is a private redis-server (so INFO commandstats counts only this run) unless
--redis-url is given.

Each employee sends "annual leave from D to D, reason: bench"; the fake model answers with
one propose_leave call, then a final answer (two model calls, so the floor of a turn is
2 × the model latency). Arrivals are spread evenly over --ramp seconds, or, with --burst,
every DM is prepared and signed first and then all are sent at once (each ack timed at the
client from its send to the response). Phases: the turns (DM → confirm card and the streamed
answer), the Submit clicks (→ the approver's card from the worker), the Approve clicks (→ the
requester's "approved" DM); --turns-only stops after the first.

    python bench/load_bench.py                       # 10, 100, 500 employees, 300 ms model
    python bench/load_bench.py --burst --turns-only --users 500,1000   # all at once
    python bench/load_bench.py --users 1000 --ramp 2 --redis-max-connections 2000
    python bench/load_bench.py --users 100 --profile bench/results/serve.svg   # py-spy

Prints one JSON object; writes bench/results/load.png.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _rig import RESULTS, RunConfig, interrupt_on_sigterm, machine, run_load

ACK_TARGET_MS = 50.0  # p99 at 500 concurrent
BURST_TARGETS_MS = {500: 50.0, 1000: 100.0}  # ack p99 with every DM sent at once
RATIO_TARGET = 1.2  # at 100 concurrent


def verdicts(runs: list[dict[str, Any]]) -> dict[str, Any]:
    by_users = {r["users"]: r for r in runs}
    out: dict[str, Any] = {}
    if runs and runs[0].get("burst"):
        for n, target in BURST_TARGETS_MS.items():
            if n in by_users:
                r = by_users[n]
                p99 = r["ack_ms_dm"]["p99"]
                out[f"burst_ack_p99_ms_at_{n}"] = {
                    "target": target,
                    "measured": p99,
                    "turns_completed": r["users"] - r["lost"]["turn_failed_or_unfinished"],
                    "lost": sum(r["lost"].values()),
                    "duplicated": r["duplicate_turns"],
                    "refused_non_2xx": r["dm_refused_non_2xx"],
                    "met": p99 < target
                    and not any(r["lost"].values())
                    and not r["duplicate_turns"],
                }
        return out
    if 500 in by_users:
        r = by_users[500]
        p99 = r["ack_ms_all"]["p99"]
        out["ack_p99_ms_at_500"] = {
            "target": ACK_TARGET_MS,
            "measured": p99,
            "met": p99 < ACK_TARGET_MS and not any(r["lost"].values()),
            "lost_requests": sum(r["lost"].values()),
        }
    if 100 in by_users:
        r = by_users[100]
        ratio = r["turn_to_floor_ratio"]
        out["turn_ratio_at_100"] = {
            "target": RATIO_TARGET,
            "measured_mean": ratio["mean"],
            "measured_p99": ratio["p99"],
            "met": ratio["mean"] <= RATIO_TARGET and not any(r["lost"].values()),
        }
    return out


def plot(runs: list[dict[str, Any]], path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    users = [r["users"] for r in runs]
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(15, 4.4))
    for key, label, style in (
        ("ack_ms_dm", "DM event", "o-"),
        ("ack_ms_click", "button click", "s-"),
    ):
        ax1.plot(users, [r[key]["p50"] for r in runs], style, label=f"{label} p50")
        ax1.plot(users, [r[key]["p99"] for r in runs], style, label=f"{label} p99", alpha=0.6)
    ax1.axhline(ACK_TARGET_MS, color="red", ls="--", lw=1, label="target p99 (500 users)")
    ax1.set(xscale="log", yscale="log", xlabel="concurrent employees", ylabel="ms")
    ax1.set_title("Ack latency of /slack/events")
    ax1.legend(fontsize=7)
    ax2.plot(users, [r["turn_to_floor_ratio"]["p50"] for r in runs], "o-", label="p50")
    ax2.plot(users, [r["turn_to_floor_ratio"]["p99"] for r in runs], "s-", label="p99")
    ax2.axhline(RATIO_TARGET, color="red", ls="--", lw=1, label="target (100 users)")
    ax2.axhline(1.0, color="grey", ls=":", lw=1)
    ax2.set(
        xscale="log", xlabel="concurrent employees", ylabel="turn time / (model calls × latency)"
    )
    ax2.set_title("Turn time over its floor")
    for r in runs:
        lost = sum(r["lost"].values())
        if lost:
            ax2.annotate(
                f"{lost} of {r['users']} requests lost",
                (r["users"], r["turn_to_floor_ratio"]["p50"]),
                textcoords="offset points",
                xytext=(-120, 0),
                fontsize=8,
                color="red",
            )
    ax2.legend(fontsize=7)
    width = 0.25
    xs = range(len(runs))
    ax3.bar(
        [x - width for x in xs],
        [r["serve_cpu_ms_per_turn"] for r in runs],
        width,
        label="serve CPU ms / turn",
    )
    ax3.bar(
        list(xs),
        [r["redis_round_trips_per_turn"] for r in runs],
        width,
        label="Redis round trips / turn",
    )
    ax3.bar(
        [x + width for x in xs],
        [r["worker_cpu_ms_per_request"] for r in runs],
        width,
        label="worker CPU ms / request",
    )
    ax3.set_xticks(list(xs), [str(u) for u in users])
    ax3.set(xlabel="concurrent employees")
    ax3.set_title("Cost per turn")
    ax3.legend(fontsize=7)
    m = machine()
    fig.suptitle(
        f"approvals-bot load: serve + worker subprocesses, fake model {runs[0]['model_latency_ms']:.0f} ms, "
        f"arrivals over {runs[0]['ramp_s']} s — {m['cpus']} cores, {m['cpu']}",
        fontsize=9,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


async def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.acks_only:
        args.burst, args.turns_only, args.workers_run_turns, args.workers = True, True, True, 0
    runs = []
    for n in args.users:
        cfg = RunConfig(
            users=n,
            latency_s=args.latency,
            ramp_s=args.ramp,
            serves=args.serves,
            workers=args.workers,
            redis_url=args.redis_url,
            redis_max_connections=args.redis_max_connections,
            log_level=args.log_level,
            profile=args.profile if n == max(args.users) else None,
            stall_s=args.stall,
            burst=args.burst,
            turns_only=args.turns_only,
            serve_runs_turns=not args.workers_run_turns,
            fresh_connections=args.fresh_connections,
            close_connections=args.close_connections,
            acks_only=args.acks_only,
            ingress_processes=args.ingress_processes,
            extra_env={"WORKER_NICE": str(args.worker_nice)} if args.worker_nice else {},
        )
        runs.append(await run_load(cfg))
    return {"benchmark": "load", "runs": runs, "targets": verdicts(runs)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--users",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[10, 100, 500],
        help="comma-separated, e.g. 10,100,500",
    )
    parser.add_argument(
        "--latency", type=float, default=0.3, help="seconds per model call (default 0.3)"
    )
    parser.add_argument(
        "--ramp", type=float, default=1.0, help="arrivals spread over this many seconds (default 1)"
    )
    parser.add_argument(
        "--burst", action="store_true", help="send every DM at once (prepared and signed first)"
    )
    parser.add_argument(
        "--fresh-connections",
        action="store_true",
        help="with --burst: connect as part of the burst (default: every connection open first)",
    )
    parser.add_argument(
        "--close-connections",
        action="store_true",
        help="with --burst: each request says Connection: close (default: keep-alive)",
    )
    parser.add_argument(
        "--acks-only",
        action="store_true",
        help="with --burst: serve only acks, no process runs turns; stop once all are queued",
    )
    parser.add_argument("--turns-only", action="store_true", help="stop after the turns phase")
    parser.add_argument(
        "--workers-run-turns",
        action="store_true",
        help="SERVE_RUNS_TURNS=false: serve only acks; the worker processes run the turns",
    )
    parser.add_argument(
        "--worker-nice",
        type=int,
        default=0,
        help="WORKER_NICE for the worker processes (0-19): acks on the same cores come before turns",
    )
    parser.add_argument(
        "--ingress-processes",
        type=int,
        default=1,
        help="INGRESS_PROCESSES: each serve answers its port with N processes (SO_REUSEPORT)",
    )
    parser.add_argument("--serves", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--redis-url",
        default=None,
        help="default: a private redis-server; redis+cluster://… for a cluster",
    )
    parser.add_argument(
        "--redis-max-connections",
        type=int,
        default=None,
        help="pool size given to the bot in REDIS_URL (default: redis-py's)",
    )
    parser.add_argument(
        "--log-level", default="info", choices=["debug", "info", "warning", "error"]
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="py-spy the serve process during the turns of the largest run (.svg, .json or .txt)",
    )
    parser.add_argument(
        "--stall",
        type=float,
        default=20.0,
        help="a phase without progress for this long ends; the rest counts as lost",
    )
    parser.add_argument("--plot", type=Path, default=RESULTS / "load.png")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    interrupt_on_sigterm()
    result = asyncio.run(run(args))
    if not args.no_plot:
        written = plot(result["runs"], args.plot)
        result["plot"] = str(written) if written else None
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
