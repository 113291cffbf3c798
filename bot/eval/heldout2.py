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
    WANGFANG,
    decide,
    everyday,
    own,
    say,
    talk,
    waiting,
)
from bot.eval.checks import answered, helps, one_of, proposes, small_talk, who_is_out
from bot.eval.spec import Decided, Scenario, Submitted

S = "held-out-2"
_ask = partial(everyday, S)

HELD_OUT_2: tuple[Scenario, ...] = (
    _ask("mine", "h2-requests-open-en", "oliver", "what requests do i have open", "Open requests."),
    _ask(
        "mine", "h2-got-any-in-en", "priya", "have I got any requests in?", "'got any requests in'."
    ),
    _ask(
        "mine",
        "h2-holiday-got-approved-en",
        "oliver",
        "can you check if my holiday got approved",
        "Check approval.",
    ),
    _ask("mine", "h2-status-pto-en", "priya", "status on my PTO?", "Terse status."),
    _ask(
        "mine", "h2-what-did-i-ask-en", "oliver", "what did I ask for again?", "What I asked for."
    ),
    _ask(
        "mine",
        "h2-has-emma-signed-en",
        "priya",
        "has Emma signed off my leave yet",
        "Signed off by the named approver.",
        setup=(Submitted("r1", "priya", PR_ANNUAL), Decided("r1", "emma")),
    ),
    _ask("mine", "h2-shenpi-daona-zh", "zhangsan", "我的请假审批到哪了", "审批到哪了。"),
    _ask("mine", "h2-zhiqian-jieguo-zh", "lisi", "我之前的申请有结果吗", "之前的申请有结果吗。"),
    _ask("mine", "h2-jiatiao-zh", "zhangsan", "我交的假条批了没", "假条批了没。"),
    _ask("mine", "h2-kankan-shenqing-zh", "lisi", "看看我的申请", "看看我的申请。"),
    _ask(
        "mine", "h2-tongguo-meiyou-zh", "zhangsan", "领导同意我的年假了没有？", "领导同意了没有。"
    ),
    _ask(
        "balance",
        "h2-vacation-days-got-en",
        "chenjing",
        "how many vacation days have I got?",
        "Vacation days.",
    ),
    _ask("balance", "h2-balance-pls-en", "oliver", "leave balance pls", "Terse."),
    _ask("balance", "h2-pto-remaining-en", "priya", "remaining pto?", "Remaining PTO."),
    _ask("balance", "h2-nianjia-yue-zh", "lisi", "我的年假余额是多少", "年假余额是多少。"),
    _ask(
        "balance", "h2-hai-neng-qing-zh", "zhangsan", "我还能请几天病假", "还能请几天病假：问余额。"
    ),
    _ask("balance", "h2-jiaqi-duoshao-zh", "wangfang", "我今年的假期还有多少", "假期还有多少。"),
    _ask("out", "h2-away-today-en", "oliver", "who's away today", "Today.", start="2026-12-02"),
    _ask(
        "out",
        "h2-teammates-next-week-en",
        "priya",
        "which of my teammates are out next week?",
        "Teammates, next week.",
        start="2026-12-07",
        end=one_of("2026-12-11", "2026-12-13"),
    ),
    _ask(
        "out",
        "h2-anybody-monday-en",
        "emma",
        "is anybody off on monday?",
        "Monday.",
        start="2026-12-07",
    ),
    _ask(
        "out",
        "h2-out-rest-of-week-en",
        "chenjing",
        "who's not around this week",
        "'not around'.",
        start=one_of("2026-11-30", "2026-12-02"),
        end=one_of("2026-12-04", "2026-12-06"),
    ),
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
        "h2-benzhou-tongshi-zh",
        "lisi",
        "本周哪些同事休假",
        "本周哪些同事休假。",
        start=one_of("2026-11-30", "2026-12-02"),
        end=one_of("2026-12-04", "2026-12-06"),
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
    _ask("queue", "h2-anything-sign-off-en", "emma", "anything for me to sign off?", "'sign off'."),
    _ask("queue", "h2-waiting-on-me-en", "emma", "any requests waiting on me", "Waiting on me."),
    _ask("queue", "h2-zhao-wo-shenpi-zh", "wangfang", "有人找我审批吗", "有人找我审批吗。"),
    _ask("queue", "h2-meipi-zh", "wangfang", "我还有几个没批的", "还有几个没批的。"),
    _ask(
        "withdraw",
        "h2-cancel-time-off-en",
        "priya",
        "please cancel my time off on the 21st",
        "Cancel with a date.",
    ),
    _ask(
        "withdraw",
        "h2-scrap-holiday-en",
        "oliver",
        "scrap my holiday request, plans changed",
        "'scrap'.",
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
    _ask(
        "remind", "h2-tixing-lingdao-zh", "lisi", "能不能提醒领导审批一下我的假", "提醒领导审批。"
    ),
    _ask("helps", "h2-good-morning-en", "oliver", "good morning!", "Good morning."),
    _ask("helps", "h2-help-en", "priya", "help", "Help alone."),
    _ask("helps", "h2-what-are-you-for-en", "chenjing", "what are you for?", "What is it for."),
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
        "h2-in-then-withdraw-en",
        "priya",
        "en",
        say("anything of mine still pending?", answered("en", *MINE)),
        say("withdraw it please", proposes(action="withdraw", request="r1")),
        setup=own("priya"),
        about="Pending requests, then withdraw.",
        suite=S,
    ),
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
        "h2-jindu-then-cui-zh",
        "zhangsan",
        "zh",
        say("我的年假申请到哪一步了", answered("zh", *MINE)),
        say("催催王芳", proposes(action="remind", request="r1", to=WANGFANG)),
        setup=own("zhangsan"),
        about="进度，然后催。",
        suite=S,
    ),
    talk(
        "h2-yue-then-shijia-zh",
        "lisi",
        "zh",
        say("看下我的年假余额", answered("zh", "my_balances")),
        say("事假还有吗", answered("zh", "my_balances")),
        about="余额，然后事假还有吗。",
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
        "h2-daiban-then-tongyi-zh",
        "wangfang",
        "zh",
        say("有要我处理的申请吗", answered("zh", "my_pending_approvals")),
        say("同意吧", proposes(**decide("r1", "approve"))),
        setup=waiting("wangfang"),
        about="待办，然后同意吧。",
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
