"""`approvals-bot chat`: a scripted conversation through the real agent, planner and engine."""

from __future__ import annotations

import json
import subprocess
import sys

ENV = {"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8", "APPROVALS_NOW": "2026-12-02T09:00"}


def chat(person: str, lines: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", "chat", "--as", person, *extra],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )


def test_json_mode_prints_step_events_with_the_proposal_fields():
    """--json prints one event per line; the proposal carries process, type, dates, half day, reason, approver and days."""
    done = chat("zhangsan", ["明天肚子疼，想请10天假", "y"], "--json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    assert (
        kinds[0] == "turn_started"
        and "proposal" in kinds
        and "final" in kinds
        and kinds[-1] == "confirmed"
    )
    proposal = next(e for e in events if e["event"] == "proposal")
    f = proposal["fields"]
    assert (
        f["process"],
        f["leave_type"],
        f["start"],
        f["end"],
        f["half_day"],
        f["approver"],
        f["working_days"],
    ) == (
        "leave",
        "sick",
        "2026-12-03",
        "2026-12-16",
        "none",
        "王芳",
        10.0,
    )
    assert f["reason"] == "肚子疼"
    assert events[-1]["status"] == "pending"


def test_a_piped_conversation_where_the_approver_approves():
    """Employee asks in English and submits; /as switches to the manager, who approves from /pending."""
    done = chat(
        "oliver",
        [
            "I need annual leave next Monday to Wednesday",
            "y",
            "/as emma",
            "/pending",
            "a",
            "/as oliver",
            "is it approved?",
        ],
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Mon 7 Dec 2026 – Wed 9 Dec 2026 (3 working days)" in out
    assert "Submit? [y/N]" in out and "Pending: with Emma Clarke (Manager)" in out
    last = out.rstrip().splitlines()[-1]  # the status line: what, where it is, the id last
    assert last.startswith("Annual leave, Mon 7 Dec 2026") and " — Approved (R-" in last


def test_declining_the_card_submits_nothing():
    """Answering anything but y cancels the proposal and says nothing was sent."""
    done = chat("chenjing", ["annual leave tomorrow", "n", "my requests"])
    assert done.returncode == 0, done.stderr
    assert "Cancelled: nothing was sent" in done.stdout
    assert "You have no requests." in done.stdout


def test_an_unknown_person_is_refused_in_one_line():
    """--as someone not in the directory stops with one clear line."""
    done = chat("nobody", ["hi"])
    assert done.returncode == 2
    assert "no person 'nobody'" in done.stderr


def test_trace_prints_the_steps_of_a_thread_kept_in_redis():
    """After a chat on Redis, `approvals-bot trace THREAD` prints that turn's steps, ending in its stop reason."""
    from tests.conftest import real_redis_url

    url = real_redis_url()
    env = {**ENV, "REDIS_URL": url}
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "chat", "--as", "priya", "--json"],
        input="what is my balance?\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    thread = json.loads(done.stdout.splitlines()[0])["thread"]
    traced = subprocess.run(
        [sys.executable, "-m", "bot.cli", "trace", thread, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert traced.returncode == 0, traced.stderr
    steps = [json.loads(line) for line in traced.stdout.splitlines()]
    assert next(s["event"] for s in steps) == "turn_started"
    assert steps[-1]["event"] == "final" and steps[-1]["stop_reason"] == "final"
    assert any(s["event"] == "tool_finished" and s["tool"] == "my_balances" for s in steps)
    import redis

    client = redis.Redis.from_url(url)
    client.delete(*client.keys("thread:{" + thread + "}:*"))
    missing = subprocess.run(
        [sys.executable, "-m", "bot.cli", "trace", "cli:nobody:0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert missing.returncode == 1 and "No trace" in missing.stderr


def test_history_prints_the_conversation_not_tool_json():
    """/history shows what was said and a line for each step that adds to the answer after it,
    in words: no JSON, no internal ids, and no step line the answer repeats."""
    done = chat(
        "oliver",
        [
            "I need annual leave next Monday to Wednesday",
            "y",
            "annual leave from 1 Feb to 30 Mar",
            "how many days of annual leave do I have left",
            "/history",
        ],
    )
    assert done.returncode == 0, done.stderr
    history = done.stdout.split("/history", 1)[1]
    assert "you> I need annual leave next Monday to Wednesday" in history
    assert "bot> " in history and "  ✗ Not enough balance left\n" in history, history
    assert history.count("Prepared annual leave") == 1, history
    assert history.count("Your balances for 2026") == 1, history
    assert "{" not in history and '"ok"' not in history
    assert "P-" not in history and "pending_id" not in history


def test_the_terminal_shows_the_answer_without_markdown_marks():
    """'Click **Submit** on the card' is markdown for Slack and Feishu; a terminal shows 'Click Submit'."""
    done = chat("oliver", ["I need annual leave next Monday to Wednesday", "n", "/history"])
    assert done.returncode == 0, done.stderr
    answers = [line for line in done.stdout.splitlines() if "Submit" in line and "Cancel" in line]
    assert answers and all("**" not in line for line in answers), answers
    assert "**" not in done.stdout


def test_the_terminal_shows_the_steps_slack_and_feishu_show():
    """Each finished step is one line with the one-line result Slack and Feishu put under it,
    unless the answer says it: the balance asked for is read once, in the answer; a proposal's
    step is its title alone (the card and the answer say the rest); a refusal's short line stays."""
    done = chat(
        "oliver",
        [
            "how many days of annual leave do I have?",
            "annual leave on 14 Dec",
            "n",
            "annual leave from 1 Feb to 30 Mar",
        ],
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "  ✓ Checking your leave balances" in lines
    assert (
        "bot> Your balances for 2026: Annual leave: 25 of 25 days left (+1 a month); "
        "Sick leave: 10 of 10 days left; Personal leave: 5 of 5 days left."
    ) in lines
    assert done.stdout.count("Annual leave: 25 of 25 days left") == 1, done.stdout
    assert "  ✓ Preparing your annual leave request" in lines
    assert "  ✗ Preparing your annual leave request — Not enough balance left" in lines
    assert not [line for line in lines if line.startswith("  … ")]  # no model thoughts


def test_a_message_in_chinese_gets_its_card_prompt_and_outcome_in_chinese():
    """An English-locale person who writes in Chinese reads the whole turn in Chinese, as on
    Slack and Feishu: the card, its labels and buttons, the y/N question and the outcome."""
    done = chat("oliver", ["下周一到周三请年假", "y"])
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "  ┌─ 提交此申请？" in out and "  │ [提交] [取消]" in out
    # the values line up: a Chinese character takes two columns
    assert "  │ 类型        年假\n" in out and "  │ 提交后余额  剩余 22 天\n" in out
    assert "提交？[y/N]" in out and "（已确认：年假" in out
    assert "Submit" not in out and "Annual leave" not in out


def test_the_prepared_sentence_names_the_leave_type_as_running_text():
    """Mid-sentence a type reads as a word of the sentence ("Prepared sick leave, …"); on the
    card, at the head of its line, it keeps its capital. Chinese has no capitals to drop."""
    done = chat("oliver", ["I'm sick tomorrow", "n"])
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "bot> Prepared sick leave, Thu 3 Dec 2026 (1 working day), approval by Emma" in out
    assert "  │ Type           Sick leave\n" in out
    done = chat("zhangsan", ["明天病假", "n"])
    assert done.returncode == 0, done.stderr
    assert "bot> 已准备：病假，2026年12月3日 周四（1 个工作日），审批人 王芳。" in done.stdout


def test_a_type_named_mid_sentence_keeps_an_acronym():
    from agent.i18n import in_sentence

    assert in_sentence("Sick leave, Thu 3 Dec 2026", "en") == "sick leave, Thu 3 Dec 2026"
    assert in_sentence("PTO, Thu 3 Dec 2026", "en") == "PTO, Thu 3 Dec 2026"
    assert in_sentence("病假，2026年12月3日", "zh") == "病假，2026年12月3日"


def test_a_leave_type_marked_as_a_proper_name_keeps_its_capital_mid_sentence(config):
    """'Christmas leave' is a name, not running text: `proper_name = true` keeps it as written."""
    from agent.tools.describe import what_in_sentence
    from tests.helpers import leave_request
    from workflow.config import LeaveType

    christmas = LeaveType(key="xmas", name="Christmas leave", name_zh="圣诞假", proper_name=True)
    config = config.model_copy(update={"leave_types": [*config.leave_types, christmas]})
    fields = {"leave_type": "xmas", "start": "2026-12-24", "end": "2026-12-24"}
    req = leave_request(fields, 1, requester="oliver")
    assert what_in_sentence(req, config, "en").startswith("Christmas leave, Thu 24 Dec 2026")
    sick = req.model_copy(update={"fields": {**fields, "leave_type": "sick"}})
    assert what_in_sentence(sick, config, "en").startswith("sick leave, Thu 24 Dec 2026")


def test_a_correction_typed_at_the_prompt_is_a_message_not_a_no():
    """A correction ("改成只请明天") typed at 提交？[y/N] goes to the thread, as a reply under the card does on
    Slack and Feishu: the draft is replaced, the new card asked about, and y submits it."""
    done = chat("zhangsan", ["明天和后天请病假", "改成只请明天", "y"])
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "已被下方的新卡片取代" in out and "已取消" not in out, out
    assert "（已确认：病假，2026年12月3日 周四（1 个工作日）" in out, out


def test_the_chinese_confirm_line_and_step_lines_use_chinese_punctuation():
    """张三's "（已确认：…）" line reads like his request list ("…——审批中：…（R-…）"), and a step
    with a line under it is joined by "——", not by the English " — … · R-…"; English keeps its own."""
    import re

    for who, ask, said, expected in (
        (
            "zhangsan",
            "明天和后天请病假",
            "（已确认：",
            r".*（已确认：病假，2026年12月3日 周四 至 12月4日 周五（2 个工作日）"
            r"——审批中：待 王芳 审批（直属主管）（R-[0-9A-Z]+））",
        ),
        (
            "oliver",
            "I'm sick tomorrow",
            "(Confirmed: ",
            r".*\(Confirmed: Sick leave, Thu 3 Dec 2026 \(1 working day\) — "
            r"Pending: with Emma Clarke \(Manager\) \(R-[0-9A-Z]+\)\)",
        ),
    ):
        done = chat(who, [ask, "y"])
        assert done.returncode == 0, done.stderr
        line = next(x for x in done.stdout.splitlines() if said in x)
        assert re.fullmatch(expected, line), line
        assert who != "zhangsan" or (" — " not in line and " · " not in line)


def test_a_balance_asked_in_chinese_is_read_once():
    """张三's "我还有几天年假": the step says what was checked, the answer gives the days, once."""
    done = chat("zhangsan", ["我还有几天年假"])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "  ✓ 查询你的假期余额" in lines, lines
    assert done.stdout.count("年假：剩余 10 天") == 1, done.stdout
