"""Issue 17's held-out phrasings: scored by `approvals-bot eval`, never tuned on.

Written with the tuned set (`bot/eval/phrasings17.py`) and before the planner learnt either.
The planner's tests never read this module and nobody changes the planner to pass one of
these: a failure here is reported, and a fix, if any, is made against new tuned phrasings.
Today is Wednesday 2 December 2026. Setup requests as in the tuned set: 张三's annual leave
Mon 14 – Tue 15 December (王芳), Oliver's Mon 14 – Wed 16 December (Emma).
"""

from __future__ import annotations

from bot.eval.build import counter_one, counter_too_late, leave, one
from bot.eval.checks import declined, names, proposes
from bot.eval.spec import Scenario

S = "held-out"
SRC = "issue 17"
HELD_OUT_17: tuple[Scenario, ...] = (
    counter_one(
        "h17-counter-sign-off-if-en",
        "emma",
        "I'll sign off if oliver shifts it to wednesday through friday",
        "2026-12-16",
        "2026-12-18",
        about="Sign-off on condition of other days.",
        suite=S,
    ),
    counter_one(
        "h17-counter-propose-en",
        "emma",
        "propose thu-fri to him instead",
        "2026-12-17",
        "2026-12-18",
        about="'Propose … instead'.",
        suite=S,
    ),
    counter_one(
        "h17-counter-only-if-en",
        "emma",
        "only if he moves it to Tue to Thu",
        "2026-12-15",
        "2026-12-17",
        about="'Only if he moves it to …'.",
        suite=S,
    ),
    counter_one(
        "h17-counter-dates-en",
        "emma",
        "suggest dec 15 to dec 17 for oliver's leave instead",
        "2026-12-15",
        "2026-12-17",
        about="Explicit dates suggested instead.",
        suite=S,
    ),
    counter_one(
        "h17-counter-then-zh",
        "wangfang",
        "让张三改到周三周四，我再批",
        "2026-12-16",
        "2026-12-17",
        about="改到某两天，我再批。",
        suite=S,
    ),
    counter_one(
        "h17-counter-if-zh",
        "wangfang",
        "如果他挪到周二到周四就批准",
        "2026-12-15",
        "2026-12-17",
        about="如果挪到……就批准。",
        suite=S,
    ),
    counter_one(
        "h17-counter-swap-zh",
        "wangfang",
        "请张三换成12月16号到17号",
        "2026-12-16",
        "2026-12-17",
        about="换成带月份的日期。",
        suite=S,
    ),
    counter_one(
        "h17-counter-not-these-zh",
        "wangfang",
        "不是这两天，改周三到周五吧",
        "2026-12-16",
        "2026-12-18",
        about="不是这两天，改期。",
        suite=S,
    ),
    counter_too_late(
        "h17-counter-finished-en",
        "ok if he moves it to wed-fri",
        about="A decided request: nothing to counter, nothing changed.",
        suite=S,
    ),
    one(
        "h17-hr-for-wangfang-zh",
        "liuyang",
        "zh",
        "替王芳请明天一天年假",
        proposes(
            **leave(leave_type="annual", start="2026-12-03", end="2026-12-03", on_behalf_of="王芳")
        ),
        about="人事替王芳请一天年假。",
        suite=S,
        source=SRC,
    ),
    one(
        "h17-hr-put-in-en",
        "liuyang",
        "en",
        "put in sick leave for Zhang San tomorrow and Friday",
        proposes(
            **leave(leave_type="sick", start="2026-12-03", end="2026-12-04", on_behalf_of="张三")
        ),
        about="HR names the person by the English spelling of their name.",
        suite=S,
        source=SRC,
    ),
    one(
        "h17-colleague-refused-en",
        "chenjing",
        "en",
        "submit annual leave for Li Si next Monday",
        declined("en"),
        names("HR"),
        about="Not HR: refused, naming who can; nothing drafted.",
        suite=S,
        source=SRC,
    ),
)
