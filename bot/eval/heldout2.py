"""Everyday asks, the held-out share: scored by `approvals-bot eval`, never tuned on.

Written with `bot/eval/phrasings2.py` and before the planner was changed for them. The
planner's tests never read this module and nobody fixes the planner to pass one of these: a
failure here is reported, and a fix, if any, is made against new phrasings in the tuned share
(or the scenario is moved there and the move said). Today is Wednesday 2 December 2026.
"""

from __future__ import annotations

from functools import partial

from bot.eval.build import (
    EMMA,
    MINE,
    NEXT_WEEK,
    PR_ANNUAL,
    THIS_WEEK,
    decide,
    everyday,
    own,
    say,
    talk,
    waiting,
)
from bot.eval.checks import answered, helps, proposes, small_talk, who_is_out
from bot.eval.spec import Decided, Scenario, Submitted

S = "held-out-2"
_ask = partial(everyday, S)

HELD_OUT_2: tuple[Scenario, ...] = (
    _ask("mine", "h2-requests-open-en", "oliver", "what requests do i have open", "Open requests."),
    _ask(
        "mine",
        "h2-has-emma-signed-en",
        "priya",
        "has Emma signed off my leave yet",
        "Signed off by the named approver.",
        setup=(Submitted("r1", "priya", PR_ANNUAL), Decided("r1", "emma")),
    ),
    _ask("mine", "h2-shenpi-daona-zh", "zhangsan", "我的请假审批到哪了", "审批到哪了。"),
    _ask("mine", "h2-jiatiao-zh", "zhangsan", "我交的假条批了没", "假条批了没。"),
    _ask("mine", "h2-kankan-shenqing-zh", "lisi", "看看我的申请", "看看我的申请。"),
    _ask(
        "balance",
        "h2-vacation-days-got-en",
        "chenjing",
        "how many vacation days have I got?",
        "Vacation days.",
    ),
    _ask("balance", "h2-balance-pls-en", "oliver", "leave balance pls", "Terse."),
    _ask("balance", "h2-nianjia-yue-zh", "lisi", "我的年假余额是多少", "年假余额是多少。"),
    _ask(
        "balance", "h2-hai-neng-qing-zh", "zhangsan", "我还能请几天病假", "还能请几天病假：问余额。"
    ),
    _ask("out", "h2-away-today-en", "oliver", "who's away today", "Today.", start="2026-12-02"),
    _ask(
        "out",
        "h2-mingtian-gongsi-zh",
        "zhangsan",
        "明天有谁不在公司",
        "明天不在公司。",
        start="2026-12-03",
    ),
    _ask(
        "out",
        "h2-houtian-zuli-zh",
        "wangfang",
        "后天组里有人请假吗",
        "后天组里有人请假吗。",
        start="2026-12-04",
        scope="team",
    ),
    _ask(
        "out",
        "h2-quan-gongsi-zh",
        "liuyang",
        "今天全公司谁请假了",
        "全公司，今天。",
        start="2026-12-02",
        scope="all",
    ),
    _ask("queue", "h2-approval-queue-en", "emma", "what's in my approval queue?", "Queue."),
    _ask("queue", "h2-waiting-on-me-en", "emma", "any requests waiting on me", "Waiting on me."),
    _ask(
        "withdraw",
        "h2-cancel-time-off-en",
        "priya",
        "please cancel my time off on the 21st",
        "Cancel with a date.",
    ),
    _ask("withdraw", "h2-chexiao-zh", "zhangsan", "我想撤销那个请假申请", "撤销那个请假申请。"),
    _ask("withdraw", "h2-buxiu-chehui-zh", "lisi", "年假不休了，撤回吧", "不休了，撤回吧。"),
    _ask(
        "remind", "h2-chase-up-en", "oliver", "could you chase up my holiday request", "'chase up'."
    ),
    _ask(
        "remind",
        "h2-boss-nudge-en",
        "priya",
        "give my boss a nudge about my leave",
        "Nudge the boss.",
    ),
    _ask("remind", "h2-cuicui-zh", "zhangsan", "催催我的年假", "催催。"),
    _ask("helps", "h2-good-morning-en", "oliver", "good morning!", "Good morning."),
    _ask("helps", "h2-help-en", "priya", "help", "Help alone."),
    _ask("thanks", "h2-cheers-en", "oliver", "cheers mate", "Cheers."),
    _ask("helps", "h2-hi-zh", "zhangsan", "嗨", "嗨。"),
    _ask("helps", "h2-dou-neng-zh", "lisi", "你都能帮我做什么", "都能做什么。"),
    _ask("thanks", "h2-duoxie-zh", "wangfang", "多谢多谢", "多谢。"),
    _ask("refused", "h2-salary-en", "priya", "what's my salary?", "Salary."),
    _ask(
        "refused",
        "h2-table-friday-en",
        "oliver",
        "book a table for lunch on friday",
        "A weekday, not leave.",
    ),
    _ask("refused", "h2-joke-en", "chenjing", "tell me a joke", "A joke."),
    _ask("refused", "h2-zhoubao-zh", "zhangsan", "帮我写个周报", "写周报。"),
    _ask("refused", "h2-kuaidi-zh", "lisi", "帮我查下快递到哪了", "查快递。"),
    _ask("refused", "h2-diannao-zh", "liuyang", "电脑坏了你能修吗", "修电脑。"),
    # --- follow-ups ----------------------------------------------------------------------------
    talk(
        "h2-approved-then-nudge-en",
        "oliver",
        "en",
        say("is my holiday approved yet?", answered("en", *MINE)),
        say("give her a nudge", proposes(action="remind", request="r1", to=EMMA)),
        setup=own("oliver"),
        about="Status, then 'give her a nudge'.",
        suite=S,
    ),
    talk(
        "h2-vacation-then-personal-en",
        "chenjing",
        "en",
        say("how much annual leave is left for me", answered("en", "my_balances")),
        say("what about personal leave?", answered("en", "my_balances")),
        about="Balance, then another type.",
        suite=S,
    ),
    talk(
        "h2-today-then-friday-en",
        "oliver",
        "en",
        say("anyone out today?", who_is_out("2026-12-02")),
        say("and on friday?", who_is_out("2026-12-04")),
        about="Who's out, then 'and on friday?'.",
        suite=S,
    ),
    talk(
        "h2-queue-then-approve-en",
        "emma",
        "en",
        say("got anything for me to approve today?", answered("en", "my_pending_approvals")),
        say("ok approve Priya's", proposes(**decide("r1", "approve"))),
        setup=waiting("emma"),
        about="The queue, then approve by name.",
        suite=S,
    ),
    talk(
        "h2-benzhou-then-xiazhou-zh",
        "zhangsan",
        "zh",
        say("这礼拜谁休假", who_is_out(*THIS_WEEK)),
        say("下周呢", who_is_out(*NEXT_WEEK)),
        about="这礼拜，然后下周呢。",
        suite=S,
    ),
    talk(
        "h2-shenqing-then-chehui-zh",
        "lisi",
        "zh",
        say("我提交的申请呢", answered("zh", *MINE)),
        say("不要了，撤回", proposes(action="withdraw", request="r1")),
        setup=own("lisi"),
        about="我的申请，然后撤回。",
        suite=S,
    ),
    talk(
        "h2-help-then-thanks-zh",
        "liuyang",
        "zh",
        say("你能帮我什么忙", helps("zh")),
        say("明白了，多谢", small_talk()),
        about="问能做什么，然后道谢。",
        suite=S,
    ),
)
