"""Issue 14: the agent holds a conversation — corrections, questions, ambiguity, honest refusals.

Each behaviour in English and Chinese, run through the real agent loop and engine (the eval's
runner), asserting the draft's fields, the kind of answer, and for refusals that nothing
changed. The phrasings here are the tests' own: none comes from the held-out set.
"""

from __future__ import annotations

from datetime import datetime

import fakeredis
import pytest

from agent.events import FinalAnswer, ProposalReady
from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.messages import Message, ModelResponse, ToolSpec
from agent.planner import OfflinePlanner
from agent.testing import FunctionModel, call, reply
from bot.eval import run_scenario
from bot.eval.build import LS_ANNUAL, OL_ANNUAL, PR_ANNUAL, ZS_ANNUAL, decide, leave, say, talk
from bot.eval.checks import (
    NoConsent,
    answered,
    asked,
    called,
    corrected,
    declined,
    names,
    proposes,
    proposes_each,
    request_is,
    requests,
)
from bot.eval.runner import eval_config
from bot.eval.spec import Scenario, Submitted, Turn
from workflow.clock import FixedClock
from workflow.engine import Engine
from workflow.models import PendingStatus


def one(name: str, person: str, lang: str, text: str, *checks, **extra) -> Scenario:
    return talk(name, person, lang, say(text, *checks), about=text, suite="test", **extra)


async def passes(scenario: Scenario) -> None:
    result = await run_scenario(scenario, OfflinePlanner())
    assert result.passed, result.failures


# --- corrections: a new draft with one field changed, the old card superseded ---------------------

CORRECTIONS = [
    talk(
        "move-day-en",
        "oliver",
        "en",
        say("annual leave friday please", proposes(**leave(start="2026-12-04"))),
        say(
            "actually thursday",
            corrected(**leave(leave_type="annual", start="2026-12-03", end="2026-12-03")),
        ),
        about="A weekday alone moves a one-day draft; the type is kept.",
        suite="test",
    ),
    talk(
        "shorten-en",
        "priya",
        "en",
        say(
            "sick leave monday to wednesday, back pain",
            proposes(**leave(start="2026-12-07", end="2026-12-09")),
        ),
        say(
            "sorry only until tuesday",
            corrected(
                **leave(leave_type="sick", start="2026-12-07", end="2026-12-08", reason="back pain")
            ),
        ),
        about="'only until' moves the last day and keeps the reason.",
        suite="test",
    ),
    talk(
        "type-en",
        "oliver",
        "en",
        say("annual leave on the 9th", proposes(**leave(leave_type="annual", start="2026-12-09"))),
        say(
            "make it unpaid instead",
            corrected(**leave(leave_type="unpaid", start="2026-12-09", end="2026-12-09")),
        ),
        about="The type changes, the day stays.",
        suite="test",
    ),
    talk(
        "days-zh",
        "zhangsan",
        "zh",
        say("下周二请病假，感冒", proposes(**leave(start="2026-12-08"))),
        say(
            "改成两天",
            corrected(
                **leave(leave_type="sick", start="2026-12-08", end="2026-12-09", reason="感冒")
            ),
        ),
        about="两天：首日和理由不变。",
        suite="test",
    ),
    talk(
        "afternoon-zh",
        "lisi",
        "zh",
        say("后天请年假", proposes(**leave(start="2026-12-04"))),
        say(
            "下午就行",
            corrected(**leave(leave_type="annual", start="2026-12-04", half_day="afternoon")),
        ),
        about="下午就行：同一天的下午。",
        suite="test",
    ),
    talk(
        "type-zh",
        "zhangsan",
        "zh",
        say("下周四请年假", proposes(**leave(start="2026-12-10"))),
        say(
            "改成事假吧，要去银行",
            corrected(**leave(leave_type="personal", start="2026-12-10", reason="银行")),
        ),
        about="改成事假：换假种，带理由。",
        suite="test",
    ),
    talk(
        "not-but-zh",
        "lisi",
        "zh",
        say("明天请病假", proposes(**leave(start="2026-12-03"))),
        say(
            "不对，是后天",
            corrected(**leave(leave_type="sick", start="2026-12-04", end="2026-12-04")),
        ),
        about="不对，是后天。",
        suite="test",
    ),
]


@pytest.mark.parametrize("scenario", CORRECTIONS, ids=lambda s: s.name)
async def test_a_correction_makes_a_new_draft_with_that_field_changed(scenario):
    await passes(scenario)


async def test_a_correction_after_submit_changes_nothing_and_says_how():
    """The card was confirmed: the correction does not draft again; the request stays as sent."""
    scenario = Scenario(
        name="after-submit",
        person="oliver",
        lang="en",
        turns=(
            Turn("annual leave friday", (proposes(**leave(start="2026-12-04")),), click="confirm"),
            say("actually make it thursday", asked()),
        ),
        end=(requests("oliver", 1, start="2026-12-04"),),
        about="",
    )
    result = await run_scenario(scenario, OfflinePlanner())
    assert result.passed, result.failures
    assert "withdraw" in result.turns[1].final.text


async def test_a_new_full_request_is_not_taken_for_a_correction():
    """'annual leave next Tuesday' after a draft is another request: the first card stays open."""
    scenario = talk(
        "second-request",
        "oliver",
        "en",
        say("sick leave today", proposes(**leave(start="2026-12-02"))),
        say(
            "unpaid leave jan 11 to jan 12",
            proposes(**leave(leave_type="unpaid", start="2027-01-11")),
        ),
        about="",
        suite="test",
    )
    await passes(scenario)


# --- an answer fills the slot that was asked for -------------------------------------------------


@pytest.mark.parametrize(
    "scenario",
    [
        talk(
            "answer-type-en",
            "priya",
            "en",
            say("I'd like friday off", asked()),
            say(
                "personal - parents evening",
                proposes(
                    **leave(leave_type="personal", start="2026-12-04", reason="parents evening")
                ),
            ),
            about="",
            suite="test",
        ),
        talk(
            "answer-dates-zh",
            "lisi",
            "zh",
            say("想请两天年假", asked()),
            say(
                "下周一开始",
                proposes(**leave(leave_type="annual", start="2026-12-07", end="2026-12-08")),
            ),
            about="",
            suite="test",
        ),
    ],
    ids=lambda s: s.name,
)
async def test_an_answer_fills_the_slot_asked_for(scenario):
    await passes(scenario)


# --- questions before slots, with typos -------------------------------------------------------------


@pytest.mark.parametrize(
    ("person", "lang", "text", "tools"),
    [
        ("oliver", "en", "how much sick leave have i got left", ("my_balances",)),
        ("priya", "en", "hw much pto do i hav remaining", ("my_balances",)),
        ("zhangsan", "zh", "我还能请几天年嫁", ("my_balances",)),
        ("lisi", "zh", "事假还剩多少天", ("my_balances",)),
    ],
)
async def test_balance_questions_are_answered_not_drafted(person, lang, text, tools):
    await passes(one("balance", person, lang, text, answered(lang, *tools)))


@pytest.mark.parametrize(
    ("person", "lang", "text", "setup"),
    [
        ("priya", "en", "did emma sign off my holiday yet", PR_ANNUAL),
        ("zhangsan", "zh", "我的年假批了没有", ZS_ANNUAL),
    ],
)
async def test_status_questions_read_the_request(person, lang, text, setup):
    scenario = one(
        "status",
        person,
        lang,
        text,
        answered(lang, "my_requests", "request_details"),
        setup=(Submitted("r1", person, setup),),
    )
    await passes(scenario)


@pytest.mark.parametrize(
    ("person", "lang", "text", "manager"),
    [
        ("oliver", "en", "who approves my time off?", "Emma"),
        ("zhangsan", "zh", "我请假谁来批", "王芳"),
    ],
)
async def test_who_approves_names_the_manager(person, lang, text, manager):
    await passes(one("who", person, lang, text, answered(lang), names(manager)))


@pytest.mark.parametrize(
    ("person", "lang", "text"),
    [("oliver", "en", "what are the rules for sick leave?"), ("lisi", "zh", "病假有什么规定")],
)
async def test_policy_questions_point_to_hr_and_draft_nothing(person, lang, text):
    await passes(one("policy", person, lang, text, answered(lang), names("HR")))


# --- leave types through typos and synonyms; types that do not exist -------------------------------


@pytest.mark.parametrize(
    ("person", "lang", "text", "kind", "start"),
    [
        ("oliver", "en", "anual leave on monday", "annual", "2026-12-07"),
        ("priya", "en", "vacation day on the 18th", "annual", "2026-12-18"),
        ("oliver", "en", "unpiad leave next friday", "unpaid", "2026-12-11"),
        ("zhangsan", "zh", "下周三请年休", "annual", "2026-12-09"),
        ("lisi", "zh", "后天病休", "sick", "2026-12-04"),
        ("zhangsan", "zh", "下周一请个事价，去办签证", "personal", "2026-12-07"),
    ],
)
async def test_leave_types_are_read_through_typos_and_synonyms(person, lang, text, kind, start):
    await passes(one("type", person, lang, text, proposes(**leave(leave_type=kind, start=start))))


@pytest.mark.parametrize(
    ("person", "lang", "text", "types"),
    [
        ("zhangsan", "zh", "后天调休", "年假、病假、事假、无薪假"),
        ("oliver", "en", "paternity leave from jan 4", "annual, sick, personal or unpaid"),
    ],
)
async def test_a_type_the_organisation_lacks_is_answered_with_the_types_it_has(
    person, lang, text, types
):
    await passes(one("unknown-type", person, lang, text, declined(lang), names(types)))


# --- ask when ambiguous -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scenario",
    [
        talk(
            "separate-en",
            "oliver",
            "en",
            say("sick leave tomorrow and monday", asked()),
            say(
                "just those two days",
                proposes_each(
                    leave(start="2026-12-03", end="2026-12-03"),
                    leave(start="2026-12-07", end="2026-12-07"),
                ),
            ),
            about="",
            suite="test",
        ),
        talk(
            "range-zh",
            "lisi",
            "zh",
            say("明天和下周一请年假", asked()),
            say(
                "连着请",
                proposes(**leave(leave_type="annual", start="2026-12-03", end="2026-12-07")),
            ),
            about="",
            suite="test",
        ),
    ],
    ids=lambda s: s.name,
)
async def test_listed_days_with_a_gap_are_asked_about(scenario):
    await passes(scenario)


async def test_adjacent_listed_days_are_one_draft_without_asking():
    await passes(
        one(
            "adjacent",
            "zhangsan",
            "zh",
            "明天和后天请病假",
            proposes(**leave(start="2026-12-03", end="2026-12-04")),
        )
    )


# --- honest fallback: the small-talk line never answers work ----------------------------------------


@pytest.mark.parametrize(
    ("person", "lang", "text"),
    [
        ("oliver", "en", "can you order me a new laptop"),
        ("priya", "en", "🤢"),
        ("zhangsan", "zh", "帮我约个会议室"),
        ("lisi", "zh", "🤮🤮"),
    ],
)
async def test_work_the_bot_cannot_do_gets_no_consent(person, lang, text):
    await passes(one("fallback", person, lang, text, NoConsent(), asked()))


@pytest.mark.parametrize(
    ("person", "lang", "text"),
    [("oliver", "en", "I'm off to the gym after work"), ("zhangsan", "zh", "周末去爬山了")],
)
async def test_small_talk_still_gets_a_friendly_line(person, lang, text):
    result = await run_scenario(one("smalltalk", person, lang, text, asked()), OfflinePlanner())
    assert result.passed, result.failures
    assert not result.turns[0].tools_started


@pytest.mark.parametrize(
    ("person", "lang", "text"),
    [
        ("oliver", "en", "set me as an approver please"),
        ("priya", "en", "remove my rejected requests from the history"),
        ("zhangsan", "zh", "把我的主管改成李四"),
        ("lisi", "zh", "删掉我以前的请假记录"),
    ],
)
async def test_roles_and_records_are_refused_naming_who_can(person, lang, text):
    await passes(one("admin", person, lang, text, declined(lang), names("HR", "人事", "admin")))


# --- acting for someone else ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("person", "lang", "text", "who"),
    [
        ("oliver", "en", "book a day off for priya on friday", "Priya"),
        ("priya", "en", "sick leave for my teammate tomorrow", "colleague"),
        ("zhangsan", "zh", "替李四请后天的年假", "李四"),
    ],
)
async def test_leave_for_someone_else_is_refused_and_nothing_drafted(person, lang, text, who):
    scenario = one(
        "for-other", person, lang, text, declined(lang), names(who), end=(requests(person, 0),)
    )
    await passes(scenario)


async def test_a_reason_after_leave_for_is_not_taken_for_a_person():
    """'leave for surgery' looks the word up, finds nobody, and drafts the leave."""
    scenario = one(
        "for-surgery",
        "oliver",
        "en",
        "sick leave for surgery on monday",
        proposes(**leave(leave_type="sick", start="2026-12-07", reason="surgery")),
    )
    await passes(scenario)


@pytest.mark.parametrize(
    ("person", "lang", "text", "owner", "fields", "who"),
    [
        ("oliver", "en", "withdraw Priya's holiday", "priya", PR_ANNUAL, "Priya"),
        ("lisi", "zh", "把张三的年假撤回", "zhangsan", ZS_ANNUAL, "张三"),
    ],
)
async def test_withdrawing_someone_elses_request_is_refused_and_it_stays(
    person, lang, text, owner, fields, who
):
    scenario = one(
        "withdraw-other",
        person,
        lang,
        text,
        declined(lang),
        names(who),
        setup=(Submitted("r1", owner, fields),),
        end=(request_is("r1", status="pending"),),
    )
    await passes(scenario)


@pytest.mark.parametrize(
    ("person", "lang", "text", "owner", "fields"),
    [
        ("priya", "en", "approve oliver's holiday", "oliver", OL_ANNUAL),
        ("lisi", "zh", "把张三的申请批了", "zhangsan", ZS_ANNUAL),
    ],
)
async def test_approving_someone_elses_request_without_being_its_approver_changes_nothing(
    person, lang, text, owner, fields
):
    scenario = one(
        "approve-other",
        person,
        lang,
        text,
        declined(lang),
        setup=(Submitted("r1", owner, fields),),
        end=(request_is("r1", status="pending"),),
    )
    await passes(scenario)


# --- decisions by chat --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("person", "lang", "text", "owner", "fields", "expected"),
    [
        ("emma", "en", "approve oliver's leave", "oliver", OL_ANNUAL, decide("r1", "approve")),
        (
            "emma",
            "en",
            "reject it - we're short-handed that week",
            "oliver",
            OL_ANNUAL,
            decide("r1", "reject", comment="short-handed"),
        ),
        ("wangfang", "zh", "批准李四的年假", "lisi", LS_ANNUAL, decide("r1", "approve")),
        (
            "wangfang",
            "zh",
            "驳回张三的，月底要交付",
            "zhangsan",
            ZS_ANNUAL,
            decide("r1", "reject", comment="月底要交付"),
        ),
    ],
)
async def test_decisions_by_chat_prepare_the_card_with_the_comment(
    person, lang, text, owner, fields, expected
):
    scenario = one(
        "decide",
        person,
        lang,
        text,
        proposes(**expected),
        called("propose_decision"),
        setup=(Submitted("r1", owner, fields),),
        end=(request_is("r1", status="pending"),),
    )
    await passes(scenario)


# --- the specific failures the issue lists ------------------------------------------------------------


@pytest.mark.parametrize(
    ("person", "text", "expected"),
    [
        (
            "oliver",
            "I've got the flu, can't come in today or tomorrow",
            leave(leave_type="sick", start="2026-12-02", end="2026-12-03", reason="flu"),
        ),
        (
            "priya",
            "sick leave on the morning of the 10th for a dentist appointment",
            leave(leave_type="sick", start="2026-12-10", half_day="morning", reason="dentist"),
        ),
        (
            "zhangsan",
            "下午头疼得厉害，想请半天病假",
            leave(leave_type="sick", start="2026-12-02", half_day="afternoon"),
        ),
        (
            "lisi",
            "元旦前后请几天年假，12月30号到1月4号",
            leave(leave_type="annual", start="2026-12-30", end="2027-01-04"),
        ),
        (
            "oliver",
            "anual leave 21st-23rd dec",
            leave(leave_type="annual", start="2026-12-21", end="2026-12-23"),
        ),
        (
            "priya",
            "personal day on friday - landlord inspection",
            leave(leave_type="personal", start="2026-12-04", reason="landlord inspection"),
        ),
    ],
)
async def test_the_drafts_the_issue_found_wrong(person, text, expected):
    lang = "zh" if any("\u4e00" <= c <= "\u9fff" for c in text) else "en"
    await passes(one("issue", person, lang, text, proposes(**expected)))


# --- with an LLM: a correction supersedes the old draft -------------------------------------------------


def _pending_of(messages: list[Message]) -> str | None:
    """The pending id the last propose_leave result in the thread named (as an LLM reads it)."""
    import json

    for message in reversed(messages):
        if message.role == "tool" and '"pending_id"' in message.content:
            return json.loads(message.content)["pending_id"]
    return None


def _scripted_llm(*, pass_replaces: bool) -> FunctionModel:
    """A model that drafts Friday, then on 'make it Thursday' drafts Thursday (naming the old one or not)."""

    def step(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        last = messages[-1]
        if last.role == "tool":
            return reply("Prepared — click Submit on the card.")
        users = [m for m in messages if m.role == "user"]
        if len(users) == 1:
            return call("propose_leave", leave_type="annual", start="2026-12-04")
        extra = {"replaces": _pending_of(messages)} if pass_replaces else {}
        return call("propose_leave", leave_type="annual", start="2026-12-03", **extra)

    return FunctionModel(step, name="scripted-llm")


@pytest.mark.parametrize("pass_replaces", [True, False])
async def test_an_llm_correction_supersedes_the_old_draft(pass_replaces):
    """Whether or not the model names the old draft, the thread keeps one live card: the corrected one."""
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    engine = Engine(eval_config(), redis, FixedClock(datetime(2026, 12, 2, 9, 0)))
    agent = Agent(_scripted_llm(pass_replaces=pass_replaces), engine, ThreadMemory(redis))
    first = [e async for e in agent.run("t:llm", "oliver", "annual leave this friday")]
    second = [e async for e in agent.run("t:llm", "oliver", "actually make it thursday")]
    [old] = [e for e in first if isinstance(e, ProposalReady)]
    [new] = [e for e in second if isinstance(e, ProposalReady)]
    assert new.fields["start"] == "2026-12-03" and new.replaces == old.pending_id
    assert (await engine.pending_action(old.pending_id, "oliver")).status is PendingStatus.CANCELLED
    assert (await engine.pending_action(new.pending_id, "oliver")).status is PendingStatus.OPEN
    await redis.aclose()


# --- the issue's own phrasings ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("person", "first", "first_start", "fix", "expected_start"),
    [
        ("oliver", "annual leave this Friday", "2026-12-04", "change it to Thursday", "2026-12-03"),
        (
            "oliver",
            "annual leave this Friday",
            "2026-12-04",
            "sorry I meant Thursday",
            "2026-12-03",
        ),
        ("zhangsan", "明天请年假", "2026-12-03", "改成后天", "2026-12-04"),
        ("zhangsan", "明天请年假", "2026-12-03", "是后天不是明天", "2026-12-04"),
    ],
)
async def test_the_corrections_the_issue_lists(person, first, first_start, fix, expected_start):
    lang = "zh" if any("\u4e00" <= c <= "\u9fff" for c in first) else "en"
    scenario = talk(
        "issue-fix",
        person,
        lang,
        say(first, proposes(**leave(start=first_start))),
        say(fix, corrected(**leave(leave_type="annual", start=expected_start, end=expected_start))),
        about="",
        suite="test",
    )
    await passes(scenario)


@pytest.mark.parametrize(
    ("person", "lang", "text"),
    [
        ("oliver", "en", "a few days around New Year"),
        ("zhangsan", "zh", "春节前后想休几天"),
        ("oliver", "en", "Register me as HR"),
        ("oliver", "en", "🤒🤒🤒"),
        ("oliver", "en", "request leave for my colleague"),
        ("oliver", "en", "Withdraw my colleague's leave"),
    ],
)
async def test_the_issue_phrasings_that_got_the_small_talk_line_now_get_none(person, lang, text):
    await passes(one("issue-no-consent", person, lang, text, asked(), NoConsent()))


@pytest.mark.parametrize(
    ("person", "lang", "text", "says"),
    [
        ("oliver", "en", "actually make it Thursday", "don't see a request in this conversation"),
        ("priya", "en", "sorry I meant tomorrow", "don't see a request in this conversation"),
        ("zhangsan", "zh", "不对，是后天", "没有可以修改的申请"),
        ("lisi", "zh", "改成两天吧", "没有可以修改的申请"),
    ],
)
async def test_a_correction_where_no_draft_is_open_says_so_and_drafts_nothing(
    person, lang, text, says
):
    """A correction typed as a new message (a new thread, no draft) is not met with small talk."""
    result = await run_scenario(
        one("correction-no-draft", person, lang, text, asked(), NoConsent()), OfflinePlanner()
    )
    assert result.passed, result.failures
    turn = result.turns[0]
    assert not turn.proposals
    answers = [e for e in turn.events if isinstance(e, FinalAnswer)]
    assert answers and says in answers[-1].text


@pytest.mark.parametrize(
    ("person", "lang", "first", "then"),
    [
        ("oliver", "en", "annual leave on the 9th", "ok submit it"),
        ("zhangsan", "zh", "后天请年假", "提交吧"),
    ],
)
async def test_asking_the_bot_to_submit_points_at_the_button_and_sends_nothing(
    person, lang, first, then
):
    """Only the person's click sends a draft: 'submit it' keeps the card open and says so."""
    scenario = talk(
        "submit-it",
        person,
        lang,
        say(first, proposes(action="submit")),
        say(then, asked(), NoConsent()),
        end=(requests(person, 0),),
        about="",
        suite="test",
    )
    result = await run_scenario(scenario, OfflinePlanner())
    assert result.passed, result.failures
    assert "Submit" in result.turns[1].final.text or "提交" in result.turns[1].final.text


@pytest.mark.parametrize(
    ("person", "lang", "text", "owner", "fields", "who"),
    [
        ("emma", "en", "approve priya's leave", "oliver", OL_ANNUAL, "Priya"),
        ("wangfang", "zh", "驳回李四的，人手不够", "zhangsan", ZS_ANNUAL, "李四"),
    ],
)
async def test_a_decision_naming_someone_else_does_not_pick_the_one_waiting(
    person, lang, text, owner, fields, who
):
    """The only request waiting is Oliver's: 'approve Priya's' prepares nothing and says so."""
    scenario = one(
        "named-other",
        person,
        lang,
        text,
        declined(lang),
        names(who),
        setup=(Submitted("r1", owner, fields),),
        end=(request_is("r1", status="pending"),),
    )
    await passes(scenario)
