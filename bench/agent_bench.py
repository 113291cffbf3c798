"""Agent benchmark: model calls and prompt tokens per completed leave request, and loop overhead per step.

Runs the real agent (OpenAI-compatible client, tools, engine, thread memory) against a
fake OpenAI-compatible server with a fixed latency. Prints one JSON object.

    python bench/agent_bench.py [--requests 50] [--latency 0.05] [--redis-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from datetime import date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import structlog
from fake_llm import FakeLLM

from agent.events import FinalAnswer, ProposalReady
from agent.llm.openai_compat import OpenAICompatModel
from agent.llm.options import options_for
from agent.loop import Agent
from agent.memory import ThreadMemory
from workflow import calendar
from workflow.clock import FixedClock
from workflow.config import Organisation, load_config
from workflow.engine import Engine
from workflow.store import connect

PEOPLE = ["zhangsan", "lisi", "chenjing", "oliver", "priya", "emma", "wangfang", "sarah", "liuyang"]


def working_days_everywhere(first: date, count: int) -> list[date]:
    """Days that are working days in both of the demo's countries."""
    out, day = [], first
    while len(out) < count:
        if all(calendar.is_working_day(day, c, s) for c, s in (("CN", None), ("GB", "ENG"))):
            out.append(day)
        day += timedelta(days=1)
    return out


async def run(requests: int, latency: float, redis_url: str | None) -> dict:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    llm = FakeLLM(latency_s=latency)
    await llm.start()
    redis = connect(redis_url)
    config = load_config().model_copy(
        update={"organisation": Organisation(id="agentbench", name="Bench")}
    )
    engine = Engine(config, redis, FixedClock(datetime(2026, 12, 2, 9, 0)))
    model = OpenAICompatModel(
        options_for("generic", base_url=llm.base_url, model="fake", api_key="x")
    )
    agent = Agent(model, engine, ThreadMemory(redis))
    overheads, turn_ms, calls, proposals = [], [], [], 0
    days = working_days_everywhere(date(2027, 3, 1), requests // len(PEOPLE) + 1)
    try:
        for i in range(requests):
            person = PEOPLE[i % len(PEOPLE)]
            # one distinct working day per request of a person: no overlap, no balance exhausted
            start = days[i // len(PEOPLE)].isoformat()
            text = f"annual leave from {start} to {start}, reason: family visit"
            async for event in agent.run(f"bench:{i}", person, text):
                if isinstance(event, ProposalReady):
                    proposals += 1
                if isinstance(event, FinalAnswer):
                    calls.append(event.model_calls)
                    turn_ms.append(event.latency_ms)
                    overheads.append(event.overhead_ms / max(1, event.model_calls))
    finally:
        await model.close()
        await llm.stop()
        if redis_url:
            async for key in redis.scan_iter(match="*agentbench*"):
                await redis.delete(key)
            async for key in redis.scan_iter(match="thread:{bench:*"):
                await redis.delete(key)
        await redis.aclose()
    q = statistics.quantiles(overheads, n=20) if len(overheads) > 1 else overheads * 19
    return {
        "requests": requests,
        "completed_proposals": proposals,
        "model_latency_ms": latency * 1000,
        "llm_calls_per_request": round(sum(calls) / requests, 3),
        "prompt_tokens_per_request": round(llm.prompt_tokens / requests, 1),
        "completion_tokens_per_request": round(llm.completion_tokens / requests, 1),
        "loop_overhead_ms_per_step_median": round(statistics.median(overheads), 3),
        "loop_overhead_ms_per_step_p95": round(q[18], 3),
        "turn_ms_median": round(statistics.median(turn_ms), 2),
        "store": "redis" if redis_url else "fakeredis",
        "note": "overhead = turn time minus model and tool time, per model call; tokens estimated at 4 characters each",
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per model call")
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.requests, args.latency, args.redis_url))
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
