"""CPU per ack of a long-running `serve`: several true bursts of signed DMs at one serve (acks only).

`load_bench.py --acks-only` measures one burst at a freshly started serve, from /proc in 10 ms
ticks and with the sender's sockets closing inside the window. Here one serve (its ingress
processes, no process running turns) takes `--bursts` bursts of `--dms` DMs after one burst
that is not counted (as a serve that has been up a while sees them: its heap and garbage
collector no longer fresh from start-up); each burst is sent by bench/_burst_client.py on
keep-alive connections opened first, and the serve's CPU (every ingress process) is read from
the go to the last answer, before the connections close.

    python bench/ack_cpu.py --dms 1000 --bursts 6 --ingress-processes 1

Prints one JSON object: CPU per ack (ms, all ingress processes together) over all bursts and
per burst, each burst's ack p99 at the client, the statuses, and the turns queued (each DM once).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _rig import (
    BURST_CLIENT,
    Rig,
    RunConfig,
    User,
    dm_event,
    employee_slack_id,
    interrupt_on_sigterm,
    manager_slack_id,
    pid_cpu_s,
)

PEOPLE = 50  # who sends the DMs (each DM is its own event and thread)


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return round(ordered[max(0, int(len(ordered) * 0.99) - 1)], 2)


async def burst(rig: Rig, dms: int, pids: list[int]) -> dict[str, Any]:
    """One burst: prepared and signed, connected, sent at once; the serve's CPU until answered."""
    sim = rig.sims[0]
    requests = []
    for i in range(dms):
        u = User(i % PEOPLE, employee_slack_id(i % PEOPLE), manager_slack_id(0), "leave tomorrow")
        message = rig.standin.post_user_message(u.slack_id, u.text)
        u.channel, u.thread = message["channel"], message["ts"]
        body = json.dumps(sim.envelope(dm_event(u, message, rig.team)))
        requests.append(
            {"port": rig.serves[0].http_port, "body": body, "headers": sim.signed_headers(body)}
        )
    spec = rig.tmp / "burst.json"
    spec.write_text(
        json.dumps({"host": "127.0.0.1", "path": "/slack/events", "requests": requests})
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(BURST_CLIENT), str(spec), "--hold",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    if (await asyncio.wait_for(proc.stdout.readline(), 120)).strip() != b"ready":
        raise RuntimeError("the burst sender did not start")
    await asyncio.sleep(0.5)  # serve has accepted the connections and is idle again
    before = sum(pid_cpu_s(p) for p in pids)
    proc.stdin.write(b"go\n")
    await proc.stdin.drain()
    await proc.stdout.readline()  # every answer is in
    cpu_s = sum(pid_cpu_s(p) for p in pids) - before
    proc.stdin.write(b"close\n")
    await proc.stdin.drain()
    sent = json.loads(await proc.stdout.readline())
    await proc.wait()
    acks = [a for a in sent["ack_ms"] if a is not None]
    return {"cpu_s": cpu_s, "status": sent["status"], "p99_ms": p99(acks) if acks else None}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    cfg = RunConfig(
        users=PEOPLE,
        burst=True,
        turns_only=True,
        acks_only=True,
        workers=0,
        serve_runs_turns=False,
        ingress_processes=args.ingress_processes,
    )
    rig = Rig(cfg)
    try:
        await rig.start()
        pids = [rig.serves[0].popen.pid, *rig.serves[0].children()]
        runs = [await burst(rig, args.dms, pids) for _ in range(args.bursts + 1)][1:]
        queued = await rig.queued_turns()
    finally:
        await rig.stop()
    acks = args.dms * args.bursts
    per_burst = [round(r["cpu_s"] / args.dms * 1000, 4) for r in runs]
    statuses: dict[str, int] = {}
    for r in runs:
        for s in r["status"]:
            statuses[str(s)] = statuses.get(str(s), 0) + 1
    return {
        "benchmark": "ack_cpu",
        "dms_per_burst": args.dms,
        "bursts": args.bursts,
        "ingress_processes": args.ingress_processes,
        "cpu_ms_per_ack": round(sum(r["cpu_s"] for r in runs) / acks * 1000, 4),
        "cpu_ms_per_ack_median_burst": statistics.median(per_burst),
        "cpu_ms_per_ack_per_burst": per_burst,
        "ack_p99_ms_per_burst": [r["p99_ms"] for r in runs],
        "statuses": statuses,
        "turns_queued": queued,
        "dms_sent": args.dms * (args.bursts + 1),
        "measurement": "utime+stime of every ingress process (/proc) from the go to the "
        "burst's last answer, before the sender closes its connections; the first burst "
        "is not counted",
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dms", type=int, default=1000, help="DMs per burst (default 1000)")
    parser.add_argument("--bursts", type=int, default=6, help="bursts counted (default 6)")
    parser.add_argument("--ingress-processes", type=int, default=1)
    args = parser.parse_args(argv)
    interrupt_on_sigterm()
    result = asyncio.run(run(args))
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
