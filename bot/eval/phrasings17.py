"""Issue 17's phrasings (the tuned set): counter-offers in chat and HR acting for someone.

Written before the offline planner learnt either, each with the result a person would expect.
The planner may be tuned against this set; its twin, `bot/eval/heldout17.py`, is never tuned on.
Today is Wednesday 2 December 2026: next Monday is 7 December. Setup requests: 张三's annual
leave Mon 14 – Tue 15 December (王芳 approves), Oliver's Mon 14 – Wed 16 December (Emma
approves). A weekday alone in a counter-offer is that day in the request's own week.
"""

from __future__ import annotations

from bot.eval.build import (
    COUNTERED,
    STILL_ASKED,
    counter,
    counter_one,
    counter_too_late,
    leave,
    one,
    say,
    talk,
)
from bot.eval.checks import asked, declined, names, proposes, refused
from bot.eval.spec import Scenario

S = "tuned"
SRC = "issue 17"
_COUNTER: tuple[Scenario, ...] = (
    counter_one(
        "t17-counter-if-moves-en",
        "emma",
        "approve it if he moves it to Tue–Thu",
        "2026-12-15",
        "2026-12-17",
        about="The issue's own phrasing: approval on condition of other days is a counter-offer.",
        suite=S,
    ),
    counter_one(
        "t17-counter-how-about-en",
        "emma",
        "not those days — how about Tue-Thu?",
        "2026-12-15",
        "2026-12-17",
        about="'Not those days, how about …' from the approver.",
        suite=S,
    ),
    counter_one(
        "t17-counter-instead-en",
        "emma",
        "tell Oliver I'd approve Wednesday to Friday instead",
        "2026-12-16",
        "2026-12-18",
        about="Approval of other days 'instead', the requester named.",
        suite=S,
    ),
    counter_one(
        "t17-counter-suggest-en",
        "emma",
        "suggest wed-fri to oliver instead",
        "2026-12-16",
        "2026-12-18",
        about="'Suggest … instead' names other days for the requester.",
        suite=S,
    ),
    counter_one(
        "t17-counter-explicit-dates-en",
        "emma",
        "ok if he takes Dec 16-18 instead",
        "2026-12-16",
        "2026-12-18",
        about="Dates with a month are taken as written.",
        suite=S,
    ),
    counter_one(
        "t17-counter-word-en",
        "emma",
        "counter-offer oliver's leave: wed and thu",
        "2026-12-16",
        "2026-12-17",
        about="The word itself: a counter-offer of two days.",
        suite=S,
    ),
    counter_one(
        "t17-counter-let-zh",
        "wangfang",
        "让他改到周二到周四再批",
        "2026-12-15",
        "2026-12-17",
        about="问题原句：改到周二到周四再批。",
        suite=S,
    ),
    counter_one(
        "t17-counter-then-approve-zh",
        "wangfang",
        "改成周三周四的话我就批",
        "2026-12-16",
        "2026-12-17",
        about="改成某几天就批：条件式批准即建议改期。",
        suite=S,
    ),
    counter_one(
        "t17-counter-suggest-zh",
        "wangfang",
        "建议张三改到12月16日到17日",
        "2026-12-16",
        "2026-12-17",
        about="建议改期，带月份的日期照写。",
        suite=S,
    ),
    counter_one(
        "t17-counter-tell-zh",
        "wangfang",
        "跟张三说换到周三到周五可以批",
        "2026-12-16",
        "2026-12-18",
        about="跟某人说换到某几天可以批。",
        suite=S,
    ),
    counter_one(
        "t17-counter-not-these-zh",
        "wangfang",
        "这两天不行，让他改周二到周四吧",
        "2026-12-15",
        "2026-12-17",
        about="这两天不行，改期。",
        suite=S,
    ),
    talk(
        "t17-counter-ask-dates-en",
        "emma",
        "en",
        say("I'd approve oliver's leave if he moved it", asked()),
        say("wed to fri", proposes(**counter("r1", "2026-12-16", "2026-12-18"))),
        setup=(COUNTERED["emma"],),
        end=STILL_ASKED,
        about="A counter-offer without the days asks for them, then takes the answer.",
        suite=S,
        source=SRC,
    ),
    counter_too_late(
        "t17-counter-finished-en",
        "approve it if he moves it to Tue–Thu",
        about="A decided request has nothing left to counter: said plainly, nothing changed.",
        suite=S,
    ),
    one(
        "t17-counter-not-approver-zh",
        "lisi",
        "zh",
        "让张三改到周二到周四再批",
        refused(),
        setup=(COUNTERED["wangfang"],),
        end=STILL_ASKED,
        about="不是审批人：没有可建议改期的申请，不做任何更改。",
        suite=S,
        source=SRC,
    ),
)


def _for(name: str, lang: str, text: str, who: str, about: str, **fields: str) -> Scenario:
    """HR (刘洋) asks for a leave of `who`: one draft of theirs, awaiting HR's click."""
    return one(
        name,
        "liuyang",
        lang,  # type: ignore[arg-type]
        text,
        proposes(**leave(**fields, on_behalf_of=who)),
        about=about,
        suite=S,
        source=SRC,
    )


def _not_hr(name: str, person: str, lang: str, text: str, hr: str, about: str) -> Scenario:
    """Someone without the hr role asks the same: refused, naming HR (`hr`); nothing drafted."""
    checks = (*declined(lang), names(hr))
    return one(name, person, lang, text, checks, about=about, suite=S, source=SRC)  # type: ignore[arg-type]


_SICK_MON_WED = {"leave_type": "sick", "start": "2026-12-07", "end": "2026-12-09"}
_FRIDAY = {"leave_type": "annual", "start": "2026-12-04", "end": "2026-12-04"}

_ACTING: tuple[Scenario, ...] = (
    _for(
        "t17-hr-files-for-en",
        "en",
        "file 3 days of sick leave for 张三 from Monday",
        "张三",
        "The issue's own phrasing: HR files a person's sick leave.",
        **_SICK_MON_WED,
    ),
    _for(
        "t17-hr-files-for-zh",
        "zh",
        "帮张三请下周一起三天病假",
        "张三",
        "人事代张三请病假。",
        **_SICK_MON_WED,
    ),
    _for(
        "t17-hr-files-annual-zh",
        "zh",
        "给李四提交周五的年假",
        "李四",
        "人事代李四提交年假。",
        **_FRIDAY,
    ),
    _for(
        "t17-hr-books-en",
        "en",
        "book annual leave for Oliver Smith on Friday",
        "Oliver Smith",
        "HR names the person in English.",
        **_FRIDAY,
    ),
    _not_hr(
        "t17-colleague-refused-zh",
        "lisi",
        "zh",
        "帮张三请下周一起三天病假",
        "人事",
        "不是人事：说明只有人事可以代办，不做任何更改。",
    ),
    _not_hr(
        "t17-manager-refused-en",
        "emma",
        "en",
        "file 3 days of sick leave for Oliver from Monday",
        "HR",
        "A manager is not HR: refused with who can, nothing drafted.",
    ),
)

TUNED_17: tuple[Scenario, ...] = _COUNTER + _ACTING
