"""Token benchmark: prompt and completion tokens per conversation and per completed request,
our agent against the naive design of ../shared/SCENARIOS.md.

Ours: the real agent loop (OpenAI-compatible client, native tool calls, real tools over the
engine on fakeredis, thread memory), driven by a scripted fake model (bench/fake_llm.py with
a per-conversation script) so that every run makes the same calls. Tokens are fake_llm's
estimate (4 characters a token, over the JSON of what is sent), so the figures compare
designs, not tokenizers.

The naive baseline is built here from the same conversations (the same person, the same
messages): a text-ReAct prompt with the six tools of the naive demo (list workflows, list
users, start workflow, list to-dos, handle a to-do, send email) and the whole history —
every earlier message, thought, action and observation — sent again as ONE prompt on every
call. Its steps are the ones SCENARIOS.md records for such a bot: it does not know who is
speaking or which workflow and approver to use, so it lists the workflows and the users
(the whole directory) before it starts a workflow; it answers status questions from memory
and has no balance tool. Observations are the real data of the organisation (its processes
and its directory), rendered as a naive workflow API would return them.

    python bench/token_bench.py [--directory-size 0]   # extra generated people in the naive list_users

Prints one JSON object; writes bench/results/tokens.png.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import deque
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fakeredis
import structlog
from fake_llm import FakeLLM, estimate_tokens

from agent.llm.openai_compat import OpenAICompatModel
from agent.llm.options import options_for
from agent.loop import Agent
from agent.memory import ThreadMemory
from workflow.clock import FixedClock
from workflow.config import Organisation, load_config
from workflow.engine import Engine

RESULTS = Path(__file__).resolve().parent / "results"
RATIO_TARGET = 0.5
NOW = datetime(2026, 12, 2, 9, 0)  # Wednesday


# --- the scripted conversations ------------------------------------------------------------


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool": name, "args": args}


def say(text: str) -> dict[str, Any]:
    return {"final": text}


@dataclass
class Turn:
    text: str
    ours: list[dict[str, Any]]  # our model's replies, in order
    naive: list[dict[str, Any]]  # the naive bot's steps (tool calls, then its answer)


@dataclass
class Conversation:
    name: str
    person: str
    turns: list[Turn]
    completes_request: bool = False


NAIVE_LEAVE = [
    call("list_workflows"),
    call("list_users"),
    call("start_workflow", workflowKey="leave", userId="?", approver="?", variables={}),
]


def conversations() -> list[Conversation]:
    """The scenarios: complete facts, facts over two messages, Chinese, questions, small talk."""
    return [
        Conversation(
            "leave_all_facts_en",
            "oliver",
            [
                Turn(
                    "annual leave from 2027-03-01 to 2027-03-03, reason: family visit",
                    [
                        call(
                            "propose_leave",
                            leave_type="annual",
                            start="2027-03-01",
                            end="2027-03-03",
                            reason="family visit",
                        ),
                    ],
                    [*NAIVE_LEAVE, say("I have started the leave workflow for you.")],
                )
            ],
            completes_request=True,
        ),
        Conversation(
            "leave_over_two_messages_en",
            "priya",
            [
                Turn(
                    "I need some time off in March",
                    [say("Sure — which days, and which kind of leave (annual, sick, personal)?")],
                    [say("Please give me your user id, the workflow key and the approver's id.")],
                ),
                Turn(
                    "annual, 8 to 10 March 2027",
                    [
                        call(
                            "propose_leave",
                            leave_type="annual",
                            start="2027-03-08",
                            end="2027-03-10",
                        ),
                    ],
                    [*NAIVE_LEAVE, say("Your leave workflow has been started.")],
                ),
            ],
            completes_request=True,
        ),
        Conversation(
            "sick_leave_zh",
            "zhangsan",
            [
                Turn(
                    "明天肚子疼，想请10天假",
                    [
                        call(
                            "propose_leave",
                            leave_type="sick",
                            start="明天",
                            days=10,
                            reason="肚子疼",
                        ),
                    ],
                    [say("请提供你的用户 ID、流程 key 和审批人。")],
                ),
                Turn(
                    "你自己查啊，为什么问我？",
                    [say("已经准备好了：请点击卡片上的提交按钮。")],
                    [*NAIVE_LEAVE, say("已为你发起请假流程。")],
                ),
            ],
            completes_request=True,
        ),
        Conversation(
            "balance_question",
            "priya",
            [
                Turn(
                    "how many annual leave days do I have left?",
                    [
                        call("my_balances"),
                        say("You have 25 days of annual leave available in 2026."),
                    ],
                    [call("list_users"), say("I can't see leave balances; please ask HR.")],
                )
            ],
        ),
        Conversation(
            "small_talk",
            "oliver",
            [
                Turn(
                    "hi, what can you do?",
                    [
                        say(
                            "I can request leave, expenses and trips for you, show your balances and requests, and help you approve what waits for you."
                        )
                    ],
                    [
                        say(
                            "I can list workflows and users, start workflows, list and handle to-dos, and send emails."
                        )
                    ],
                ),
                Turn(
                    "I'm having skewers with Emma tonight",
                    [say("Enjoy the skewers!")],
                    [call("list_todos", userId="emma"), say("Emma has no pending to-dos.")],
                ),
            ],
        ),
        Conversation(
            "approver_whats_waiting",
            "emma",
            [
                Turn(
                    "what is waiting for my approval?",
                    [
                        call("my_pending_approvals"),
                        say("Nothing is waiting for your approval right now."),
                    ],
                    [
                        call("list_users"),
                        call("list_todos", userId="emma"),
                        say("You have no pending to-dos."),
                    ],
                )
            ],
        ),
        Conversation(
            "status_check",
            "oliver",
            [
                Turn(
                    "is my leave approved yet?",
                    [
                        call("my_requests"),
                        say("Your annual leave for 1–3 March 2027 is waiting for Emma Clarke."),
                    ],
                    [say("Yes, your leave has been approved.")],  # from memory (SCENARIOS #7)
                )
            ],
        ),
        Conversation(
            "long_thread_en",
            "oliver",
            [
                Turn(
                    "hi!", [say("Hi Oliver! How can I help?")], [say("Hello! How can I help you?")]
                ),
                Turn(
                    "how many days of annual leave do I have?",
                    [
                        call("my_balances"),
                        say("You have 25 days of annual leave available in 2026."),
                    ],
                    [call("list_users"), say("I can't see balances; please ask HR.")],
                ),
                Turn(
                    "ok, I'd like some of them in April",
                    [say("Which days in April?")],
                    [say("Please give me your user id, the workflow key and the approver's id.")],
                ),
                Turn(
                    "12 to 16 April 2027",
                    [
                        call(
                            "propose_leave",
                            leave_type="annual",
                            start="2027-04-12",
                            end="2027-04-16",
                        ),
                    ],
                    [*NAIVE_LEAVE, say("Your leave workflow has been started.")],
                ),
                Turn(
                    "who else is out that week?",
                    [
                        call("who_is_out", start="2027-04-12", end="2027-04-16"),
                        say("Nobody else in your team is out that week."),
                    ],
                    [
                        call("list_users"),
                        call("list_todos", userId="emma"),
                        say("I can't tell who is out."),
                    ],
                ),
                Turn(
                    "thanks, is it approved?",
                    [call("my_requests"), say("Not yet: it is waiting for Emma Clarke.")],
                    [say("Yes, it has been approved.")],
                ),
            ],
            completes_request=True,
        ),
    ]


# --- ours: the real agent with a scripted fake model ------------------------------------------


class ScriptedLLM(FakeLLM):
    """Answers each call with the next scripted reply (a tool call or a final answer)."""

    def __init__(self) -> None:
        super().__init__(latency_s=0.0, keep_bodies=True)
        self.script = deque()

    def reply_for(self, body: dict[str, Any]) -> dict[str, Any]:
        step = self.script.popleft()
        if "final" in step:
            return {"role": "assistant", "content": step["final"]}
        tool_call = {
            "id": f"call_{self.calls}",
            "type": "function",
            "function": {
                "name": step["tool"],
                "arguments": json.dumps(step["args"], ensure_ascii=False),
            },
        }
        return {"role": "assistant", "content": "", "tool_calls": [tool_call]}


async def run_ours(convs: list[Conversation]) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    llm = ScriptedLLM()
    await llm.start()
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    config = load_config().model_copy(
        update={"organisation": Organisation(id="tokbench", name="Acme Robotics")}
    )
    engine = Engine(config, redis, FixedClock(NOW))
    model = OpenAICompatModel(
        options_for("generic", base_url=llm.base_url, model="fake", api_key="x")
    )
    agent = Agent(model, engine, ThreadMemory(redis))
    out: dict[str, dict[str, Any]] = {}
    breakdown = {"calls": 0, "system": 0, "tools": 0, "history_and_turn": 0}
    try:
        for conv in convs:
            before = llm.stats()
            first_body = len(llm.bodies)
            for i, turn in enumerate(conv.turns):
                llm.script.extend(turn.ours)
                async for _ in agent.run(f"tok:{conv.name}", conv.person, turn.text):
                    pass
                if llm.script:
                    raise RuntimeError(
                        f"{conv.name} turn {i}: {len(llm.script)} scripted replies unused"
                    )
            after = llm.stats()
            for body in llm.bodies[first_body:]:
                system = [m for m in body["messages"] if m["role"] == "system"]
                rest = [m for m in body["messages"] if m["role"] != "system"]
                breakdown["calls"] += 1
                breakdown["system"] += estimate_tokens({"messages": system})
                breakdown["tools"] += estimate_tokens({"tools": body.get("tools", [])})
                breakdown["history_and_turn"] += estimate_tokens({"messages": rest})
            out[conv.name] = {
                "calls": after["calls"] - before["calls"],
                "prompt_tokens": after["prompt_tokens"] - before["prompt_tokens"],
                "completion_tokens": after["completion_tokens"] - before["completion_tokens"],
            }
        per_call = {
            k: round(v / max(1, breakdown["calls"]), 1)
            for k, v in breakdown.items()
            if k != "calls"
        }
        info = {
            "per_call_prompt_tokens": per_call,
            "tool_count": len(llm.bodies[0].get("tools", [])) if llm.bodies else 0,
            "tool_schema_tokens_each": {
                t["function"]["name"]: estimate_tokens(t)
                for t in (llm.bodies[0].get("tools", []) if llm.bodies else [])
            },
        }
        return out, info
    finally:
        await model.close()
        await llm.stop()
        await redis.aclose()


# --- the naive design ---------------------------------------------------------------------------

NAIVE_TOOLS = [
    (
        "list_workflows",
        "List all workflow definitions (key, name, form fields, approval steps).",
        {},
    ),
    ("list_users", "List all users (id, name, email, title, department, manager).", {}),
    (
        "start_workflow",
        "Start a workflow instance. workflowKey: the workflow definition key; userId: the starter's user id; approver: the approver's user id; variables: the form fields.",
        {"workflowKey": "string", "userId": "string", "approver": "string", "variables": "object"},
    ),
    ("list_todos", "List the to-do tasks of a user.", {"userId": "string"}),
    (
        "handle_todo",
        "Complete a to-do task: approve or reject it.",
        {"taskId": "string", "userId": "string", "action": "approve|reject", "comment": "string"},
    ),
    ("send_email", "Send an email.", {"to": "string", "subject": "string", "body": "string"}),
]

NAIVE_TEMPLATE = """You are an office assistant that helps employees with approval workflows.
Answer the following questions as best you can. You have access to the following tools:

{tools}

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [{names}]
Action Input: the input to the action, as JSON
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Previous conversation:
{history}

Begin!

Question: {input}
Thought:{scratchpad}"""


def naive_observations(config, extra_people: int) -> dict[str, str]:
    processes = [
        {
            "key": p.key,
            "name": p.name,
            "fields": [
                {
                    k: v
                    for k, v in f.model_dump().items()
                    if v not in (None, [], (), "", False) and not k.endswith("_zh")
                }
                for f in p.fields
            ],
            "steps": [{"name": s.name, "approver": s.approver} for s in p.steps],
        }
        for p in config.processes
    ]
    people = [
        {
            "id": p.id,
            "name": p.name,
            "email": p.email,
            "title": p.title,
            "department": p.team,
            "manager": p.manager,
        }
        for p in config.people
    ]
    people += [
        {
            "id": f"user{i:04d}",
            "name": f"Employee {i:04d}",
            "email": f"user{i:04d}@acme.example",
            "title": "Engineer",
            "department": "engineering",
            "manager": "wangfang",
        }
        for i in range(extra_people)
    ]
    return {
        "list_workflows": json.dumps(processes, ensure_ascii=False),
        "list_users": json.dumps(people, ensure_ascii=False),
        "start_workflow": json.dumps({"processInstanceId": "PI-100234", "status": "RUNNING"}),
        "list_todos": json.dumps({"tasks": []}),
        "handle_todo": json.dumps({"ok": True}),
        "send_email": json.dumps({"sent": True}),
    }


def run_naive(convs: list[Conversation], extra_people: int) -> dict[str, dict[str, Any]]:
    config = load_config()
    observations = naive_observations(config, extra_people)
    tools = "\n".join(
        f"{name}: {desc} Args: {json.dumps(args)}" for name, desc, args in NAIVE_TOOLS
    )
    names = ", ".join(name for name, _, _ in NAIVE_TOOLS)
    out: dict[str, dict[str, Any]] = {}
    for conv in convs:
        history: list[str] = []
        calls = prompt = completion = 0
        for turn in conv.turns:
            scratchpad = ""
            for step in turn.naive:
                text = NAIVE_TEMPLATE.format(
                    tools=tools,
                    names=names,
                    history="\n".join(history) or "(none)",
                    input=turn.text,
                    scratchpad=scratchpad,
                )
                if "final" in step:
                    reply = f" I now know the final answer\nFinal Answer: {step['final']}"
                else:
                    reply = (
                        f" I need to call {step['tool']}.\nAction: {step['tool']}\n"
                        f"Action Input: {json.dumps(step['args'], ensure_ascii=False)}"
                    )
                calls += 1
                prompt += estimate_tokens({"messages": [{"role": "user", "content": text}]})
                completion += estimate_tokens({"role": "assistant", "content": reply})
                scratchpad += reply
                if "final" not in step:
                    scratchpad += f"\nObservation: {observations[step['tool']]}\nThought:"
            # the whole exchange, scratchpad included, is resent on every later call
            history.append(f"Human: {turn.text}\nAI:{scratchpad}")
        out[conv.name] = {"calls": calls, "prompt_tokens": prompt, "completion_tokens": completion}
    return out


# --- report ----------------------------------------------------------------------------------


def plot(rows: dict[str, dict[str, Any]], sweep: dict[str, float], path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    names = list(rows)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(14, 4.6), gridspec_kw={"width_ratios": [2.2, 1]})
    width = 0.38
    xs = range(len(names))
    ours = [rows[n]["ours"]["prompt_tokens"] + rows[n]["ours"]["completion_tokens"] for n in names]
    naive = [
        rows[n]["naive"]["prompt_tokens"] + rows[n]["naive"]["completion_tokens"] for n in names
    ]
    ax.bar([x - width / 2 for x in xs], ours, width, label="ours")
    ax.bar(
        [x + width / 2 for x in xs],
        naive,
        width,
        label="naive (whole history + every tool, one prompt)",
    )
    for x, n in zip(xs, names, strict=True):
        ax.text(
            x,
            max(ours[x], naive[x]),
            f"{rows[n]['ratio']:.2f}",
            ha="center",
            va="bottom",
            fontsize=8,
        )
    ax.set_xticks(list(xs), names, rotation=20, ha="right", fontsize=8)
    ax.set(
        ylabel="tokens per conversation (prompt + completion)",
        title="Tokens: ours vs the naive design (ratio above each pair)",
    )
    ax.legend(fontsize=8)
    sizes = [int(k) for k in sweep]
    ax2.plot(sizes, list(sweep.values()), "o-")
    ax2.axhline(RATIO_TARGET, color="red", ls="--", lw=1, label=f"target {RATIO_TARGET}")
    ax2.axhline(1.0, color="grey", ls=":", lw=1)
    ax2.set(
        xscale="log",
        yscale="log",
        xlabel="people in the directory (naive list_users)",
        ylabel="ours / naive, per completed request",
        title="Ratio by directory size",
    )
    ax2.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--directory-size",
        type=int,
        default=0,
        help="people added to the naive list_users beyond the demo directory",
    )
    parser.add_argument("--plot", type=Path, default=RESULTS / "tokens.png")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    convs = conversations()
    ours, info = asyncio.run(run_ours(convs))
    naive = run_naive(convs, args.directory_size)

    def total(d: dict[str, Any]) -> int:
        return d["prompt_tokens"] + d["completion_tokens"]

    rows = {
        c.name: {
            "ours": ours[c.name],
            "naive": naive[c.name],
            "ratio": round(total(ours[c.name]) / max(1, total(naive[c.name])), 3),
            "completes_request": c.completes_request,
        }
        for c in convs
    }
    requests = [c for c in convs if c.completes_request]

    def per_request(side: dict[str, dict[str, Any]], key: str) -> float:
        return round(sum(side[c.name][key] for c in requests) / max(1, len(requests)), 1)

    ours_req = {k: per_request(ours, k) for k in ("calls", "prompt_tokens", "completion_tokens")}
    naive_req = {k: per_request(naive, k) for k in ("calls", "prompt_tokens", "completion_tokens")}
    ratio_req = round(
        (ours_req["prompt_tokens"] + ours_req["completion_tokens"])
        / max(1, naive_req["prompt_tokens"] + naive_req["completion_tokens"]),
        3,
    )

    def request_ratio(naive_side: dict[str, dict[str, Any]]) -> float:
        o = sum(total(ours[c.name]) for c in requests)
        n = sum(total(naive_side[c.name]) for c in requests)
        return round(o / max(1, n), 3)

    base_people = len(load_config().people)
    sweep = {
        str(base_people + extra): request_ratio(run_naive(convs, extra))
        for extra in sorted({0, 40, 90, 190, 490, 990, args.directory_size})
    }
    all_ours = sum(total(v) for v in ours.values())
    all_naive = sum(total(v) for v in naive.values())
    result: dict[str, Any] = {
        "benchmark": "tokens",
        "estimate": "fake_llm.estimate_tokens: JSON characters / 4, on what is sent (messages + tools) and received",
        "naive_directory_people": len(load_config().people) + args.directory_size,
        "conversations": rows,
        "per_completed_request": {"ours": ours_req, "naive": naive_req, "ratio": ratio_req},
        "all_conversations_ratio": round(all_ours / max(1, all_naive), 3),
        "target_ratio": RATIO_TARGET,
        "target_met": ratio_req <= RATIO_TARGET,
        "ours_prompt_breakdown": info,
        "ratio_per_completed_request_by_directory_size": sweep,
    }
    if not args.no_plot:
        written = plot(rows, sweep, args.plot)
        result["plot"] = str(written) if written else None
    print(json.dumps(result, ensure_ascii=False))
    return result


if __name__ == "__main__":
    main()
