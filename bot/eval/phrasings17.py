"""Issue 17's phrasings (the tuned set): counter-offers in chat and HR acting for someone.

Written before the offline planner learnt either, each with the result a person would expect.
The planner may be tuned against this set; its twin, `bot/eval/heldout17.py`, is never tuned on.
Today is Wednesday 2 December 2026: next Monday is 7 December. Setup requests: 张三's annual
leave Mon 14 – Tue 15 December (王芳 approves), Oliver's Mon 14 – Wed 16 December (Emma
approves). A weekday alone in a counter-offer is that day in the request's own week.
"""

from __future__ import annotations

from bot.eval.build import OL_ANNUAL, ZS_ANNUAL, counter, leave, one, say, talk
from bot.eval.checks import asked, declined, names, proposes, refused, request_is
from bot.eval.spec import Decided, Scenario, Submitted

S = "tuned"
SRC = "issue 17"
_OLIVER = (Submitted("r1", "oliver", OL_ANNUAL),)
_ZHANGSAN = (Submitted("r1", "zhangsan", ZS_ANNUAL),)
_STILL_ASKED = (request_is("r1", status="pending", start="2026-12-14"),)


def _c(name: str, person: str, lang: str, text: str, start: str, end: str, about: str):
    """One message that must leave one counter-offer card on r1 with these dates."""
    setup = _OLIVER if person == "emma" else _ZHANGSAN
    return one(
        name,
        person,
        lang,  # type: ignore[arg-type]
        text,
        proposes(**counter("r1", start, end)),
        setup=setup,
        end=_STILL_ASKED,  # nothing moves before the approver's click and the requester's Accept
        about=about,
        suite=S,
        source=SRC,
    )


_COUNTER: tuple[Scenario, ...] = (
    _c(
        "t17-counter-if-moves-en",
        "emma",
        "en",
        "approve it if he moves it to Tue–Thu",
        "2026-12-15",
        "2026-12-17",
        "The issue's own phrasing: approval on condition of other days is a counter-offer.",
    ),
    _c(
        "t17-counter-how-about-en",
        "emma",
        "en",
        "not those days — how about Tue-Thu?",
        "2026-12-15",
        "2026-12-17",
        "'Not those days, how about …' from the approver.",
    ),
    _c(
        "t17-counter-instead-en",
        "emma",
        "en",
        "tell Oliver I'd approve Wednesday to Friday instead",
        "2026-12-16",
        "2026-12-18",
        "Approval of other days 'instead', the requester named.",
    ),
    _c(
        "t17-counter-suggest-en",
        "emma",
        "en",
        "suggest wed-fri to oliver instead",
        "2026-12-16",
        "2026-12-18",
        "'Suggest … instead' names other days for the requester.",
    ),
    _c(
        "t17-counter-explicit-dates-en",
        "emma",
        "en",
        "ok if he takes Dec 16-18 instead",
        "2026-12-16",
        "2026-12-18",
        "Dates with a month are taken as written.",
    ),
    _c(
        "t17-counter-word-en",
        "emma",
        "en",
        "counter-offer oliver's leave: wed and thu",
        "2026-12-16",
        "2026-12-17",
        "The word itself: a counter-offer of two days.",
    ),
    _c(
        "t17-counter-let-zh",
        "wangfang",
        "zh",
        "让他改到周二到周四再批",
        "2026-12-15",
        "2026-12-17",
        "问题原句：改到周二到周四再批。",
    ),
    _c(
        "t17-counter-then-approve-zh",
        "wangfang",
        "zh",
        "改成周三周四的话我就批",
        "2026-12-16",
        "2026-12-17",
        "改成某几天就批：条件式批准即建议改期。",
    ),
    _c(
        "t17-counter-suggest-zh",
        "wangfang",
        "zh",
        "建议张三改到12月16日到17日",
        "2026-12-16",
        "2026-12-17",
        "建议改期，带月份的日期照写。",
    ),
    _c(
        "t17-counter-tell-zh",
        "wangfang",
        "zh",
        "跟张三说换到周三到周五可以批",
        "2026-12-16",
        "2026-12-18",
        "跟某人说换到某几天可以批。",
    ),
    _c(
        "t17-counter-not-these-zh",
        "wangfang",
        "zh",
        "这两天不行，让他改周二到周四吧",
        "2026-12-15",
        "2026-12-17",
        "这两天不行，改期。",
    ),
    talk(
        "t17-counter-ask-dates-en",
        "emma",
        "en",
        say("I'd approve oliver's leave if he moved it", asked()),
        say("wed to fri", proposes(**counter("r1", "2026-12-16", "2026-12-18"))),
        setup=_OLIVER,
        end=_STILL_ASKED,
        about="A counter-offer without the days asks for them, then takes the answer.",
        suite=S,
        source=SRC,
    ),
    one(
        "t17-counter-finished-en",
        "emma",
        "en",
        "approve it if he moves it to Tue–Thu",
        refused(),
        setup=(*_OLIVER, Decided("r1", "emma")),
        end=(request_is("r1", status="approved", start="2026-12-14"),),
        about="A decided request has nothing left to counter: said plainly, nothing changed.",
        suite=S,
        source=SRC,
    ),
    one(
        "t17-counter-not-approver-zh",
        "lisi",
        "zh",
        "让张三改到周二到周四再批",
        refused(),
        setup=_ZHANGSAN,
        end=_STILL_ASKED,
        about="不是审批人：没有可建议改期的申请，不做任何更改。",
        suite=S,
        source=SRC,
    ),
)

_SICK_FOR_ZS = leave(leave_type="sick", start="2026-12-07", end="2026-12-09", on_behalf_of="张三")

_ACTING: tuple[Scenario, ...] = (
    one(
        "t17-hr-files-for-en",
        "liuyang",
        "en",
        "file 3 days of sick leave for 张三 from Monday",
        proposes(**_SICK_FOR_ZS),
        about="The issue's own phrasing: HR files a person's sick leave.",
        suite=S,
        source=SRC,
    ),
    one(
        "t17-hr-files-for-zh",
        "liuyang",
        "zh",
        "帮张三请下周一起三天病假",
        proposes(**_SICK_FOR_ZS),
        about="人事代张三请病假。",
        suite=S,
        source=SRC,
    ),
    one(
        "t17-hr-files-annual-zh",
        "liuyang",
        "zh",
        "给李四提交周五的年假",
        proposes(
            **leave(leave_type="annual", start="2026-12-04", end="2026-12-04", on_behalf_of="李四")
        ),
        about="人事代李四提交年假。",
        suite=S,
        source=SRC,
    ),
    one(
        "t17-hr-books-en",
        "liuyang",
        "en",
        "book annual leave for Oliver Smith on Friday",
        proposes(
            **leave(
                leave_type="annual",
                start="2026-12-04",
                end="2026-12-04",
                on_behalf_of="Oliver Smith",
            )
        ),
        about="HR names the person in English.",
        suite=S,
        source=SRC,
    ),
    one(
        "t17-colleague-refused-zh",
        "lisi",
        "zh",
        "帮张三请下周一起三天病假",
        declined("zh"),
        names("人事"),
        about="不是人事：说明只有人事可以代办，不做任何更改。",
        suite=S,
        source=SRC,
    ),
    one(
        "t17-manager-refused-en",
        "emma",
        "en",
        "file 3 days of sick leave for Oliver from Monday",
        declined("en"),
        names("HR"),
        about="A manager is not HR: refused with who can, nothing drafted.",
        suite=S,
        source=SRC,
    ),
)

TUNED_17: tuple[Scenario, ...] = _COUNTER + _ACTING
