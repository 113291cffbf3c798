"""Reading one user message: its intent and the facts (slots) it gives, in English or Chinese.

Rules, not a language model: each intent has a few keyword patterns, checked in a fixed order
so that the more specific reading wins ("下周谁请假" is who-is-out, not a leave request).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from typing import Any

from agent.dates import find_dates, parse_days
from agent.planner._context import Context
from agent.planner._counter import counter_slots, is_counter
from agent.planner._forms import FORM
from agent.planner._slots import (
    HALF_ALONE,
    REASON_MARK,
    REQUEST_ID,
    SCOPE_ALL,
    STATUS_FILTERS,
    choice_of,
    comment_of,
    expense_slots,
    explicit_reason,
    leave_slots,
    leave_type,
    normalize,
    note_of,
    range_slots,
    request_ids,
    rx,
    trip_slots,
    unknown_type,
    year_of,
)
from agent.planner._typos import mend
from workflow.acting import ACT_FOR_ROLE

__all__ = [
    "Intent",
    "Reading",
    "follow_up",
    "looks_like_question",
    "looks_like_request",
    "read_message",
]


class Intent(StrEnum):
    """What a message asks for."""

    IDENTITY = "identity"  # claims another identity or tries to override the rules
    SELF_APPROVE = "self_approve"  # "approve my leave": only the approver can
    OTHERS = "others"  # "Li Si's leave request": not the user's to see
    STATUS = "status"  # "is it approved?", "批了吗", "is this for real?"
    PENDING_APPROVALS = "pending_approvals"
    APPROVE = "approve"
    REJECT = "reject"
    WITHDRAW = "withdraw"
    REMIND = "remind"
    APPROVER_CHOICE = "approver_choice"  # "Li Si then", "让李四审批"
    WORKING_DAYS = "working_days"
    BALANCE = "balance"
    WHO_IS_OUT = "who_is_out"
    MY_REQUESTS = "my_requests"
    EXPENSE = "expense"
    TRIP = "business_trip"
    LEAVE = "leave"
    PROCESSES = "processes"
    FIND_PEOPLE = "find_people"
    CANCEL_DRAFT = "cancel_draft"
    CAPABILITIES = "capabilities"
    THANKS = "thanks"
    WHO_APPROVES = "who_approves"  # "who signs off my leave?", "谁审批我的请假"
    POLICY = "policy"  # "do I need a doctor's note?", "事假是怎么规定的"
    ADMIN = "admin"  # roles, managers, permissions, deleting records: HR's or an admin's to do
    FOR_OTHER = "for_other"  # leave for, or withdrawing, someone else's request
    SUBMIT_DRAFT = "submit_draft"  # "submit it": only the person's click sends a draft
    COUNTER = "counter"  # "approve it if she moves it to Tue–Thu": other days for a request


# Intents that collect facts over several messages; the others answer in one turn.
TASKS = frozenset(
    {
        Intent.APPROVE,
        Intent.REJECT,
        Intent.WITHDRAW,
        Intent.REMIND,
        Intent.COUNTER,
        Intent.EXPENSE,
        Intent.TRIP,
        Intent.LEAVE,
        Intent.WHO_IS_OUT,
        Intent.WORKING_DAYS,
    }
)


@dataclass
class Reading:
    """What one message says: an intent (None when it only gives facts) and its slots."""

    intent: Intent | None
    slots: dict[str, Any] = field(default_factory=dict)
    text: str = ""


# --- intent patterns, in the order they are tried ---------------------------------------------

_IDENTITY = rx(
    r"\byou\s*(?:are|'re)\s+(?:now\s+)?(?!welcome\b|right\b|great\b|the best\b|a\s+bot\b)(?P<name>[a-z][\w ]{1,30}?)\s+now\b"
    r"|\byou\s*(?:are|'re)\s+now\s+(?P<name2>[a-z][\w ]{1,30})"
    r"|\b(?:act|acting|pretend|behave)\s+(?:as|like|to be)\b|\bon\s+behalf\s+of\b|\bimpersonate\b"
    r"|\bi\s*(?:am|'m)\s+(?:now\s+)?(?:actually\s+|really\s+)?(?:the\s+)?(?:your\s+)?(?:admin|administrator|manager|hr|boss|ceo|approver|root|developer)\b"
    r"|\b(?:i\s*(?:am|'m)|this\s+is)\s+(?:actually\s+|really\s+)?(?P<claim>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\s*(?:now|here|speaking)\b"
    r"|\bignore\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|system)?\s*(?:instructions|rules|prompts?)\b"
    r"|\b(?:disregard|forget)\s+(?:all\s+|your\s+|the\s+)*(?:previous\s+|prior\s+)?(?:instructions|rules)\b"
    r"|\bsystem\s+prompt\b|\bdeveloper\s+mode\b|\bjailbreak\b"
    r"|你(?:现在)?(?:就)?是(?P<zhname>[\u4e00-\u9fff]{2,3}?)(?:了|啦)"
    r"|你现在是|(?:假装|扮演|冒充)|以(?P<zhname2>[\u4e00-\u9fff]{2,4}?)的身份|替(?P<zhname3>[\u4e00-\u9fff]{2,4}?)(?:批|审批|同意|通过)"
    r"|我(?:现在)?(?:就)?是(?:你的)?(?:管理员|经理|主管|领导|老板|审批人|人事|HR)"
    r"|(?:我|这里)(?:现在)?是(?P<zhclaim>[\u4e00-\u9fff]{2,3})(?:了|啦|本人)"
    r"|忽略(?:之前|以上|上面|前面|所有)?的?(?:指令|规则|提示|设定)|系统提示"
    r"|我是\S{0,6}的(?:经理|主管|领导|老板)"
)
_OTHERS = rx(
    r"\b(?-i:(?!I\b)[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)'s\s+(?:\w+\s+)?(?:requests?|leave|reason|balances?|applications?|claims?|expenses?)\b"
    r"|(?:^\s*|(?:看|查|查看|显示|告诉我|打开)(?:一下|看)?)(?P<owner>[\u4e00-\u9fff]{2,3}?)的(?:申请|请假|假期|余额|理由|事由|报销)"
)
_SELF_APPROVE = rx(
    r"\bapprove\s+(?:my|our)\s+own\b|\bapprove\s+(?:it|this|that)\s+for\s+(?:me|him|her|them)\b"
    r"|\b(?:approve|accept)\s+my\s+(?:own\s+)?(?:\w+\s+)?(?:leave|request|expense|trip|claim)"
    r"|批准我(?:自己)?的|自己批|给我(?:自己)?(?:的申请)?批(?:了|一下)?|把我的(?:申请|请假|报销)(?:批|通过)"
)
_SELF_CLAIM = rx(
    r"\b(?:i\s*(?:am|'m)|this\s+is)\s+(?P<en>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\b"
    r"|我是(?P<zh>[\u4e00-\u9fff]{2,3})(?=[，,。.!！\s]|$)"
)
_STATUS = rx(
    r"\b(?:is|was|has|have|did|were)\s+(?:\S+\s+){0,5}?(?:been\s+|got\s+|get\s+)?(?:approved|accepted|rejected|declined|gone\s+through|go\s+through|submitted|sent|real)\b"
    r"|\bapproved\s+(?:yet|already)\b|\b(?:for\s+real|is\s+(?:this|that|it)\s+(?:real|true))\b"
    r"|^\s*(?:really|seriously|are\s+you\s+sure)\s*\??\s*$|\bstatus\s+of\b|\bwhat(?:'s|\s+is)\s+the\s+status\b"
    r"|\bany\s+(?:news|update)s?\b|\bwhere\s+is\s+my\s+(?:request|leave|claim)\b"
    r"|\bwhere\s+(?:do|does)\s+(?:things|it|that|my\s+\w+(?:\s+request)?)\s+stand\b"
    r"|\bgot\s+(?:approved|rejected|declined|accepted|signed\s+off)\b|\bstatus\s+(?:on|for)\b"
    r"|(?:批|批准|通过|同意)了?我的.{0,6}?(?:吗|没|么)|有结果(?:吗|没|么)|(?:申请|审批|请假|流程|报销)\S{0,2}到哪"
    r"|(?:批|批准|通过|同意|驳回|拒绝|审批|提交)了(?:吗|没|么|没有)|批下来|被(?:驳回|拒绝|批准|退回)"
    r"|真的吗|真的假的|真的么|是真的吗|^\s*真的\s*[?？]?\s*$|审批到哪|(?:申请|请假|审批|报销|出差)进度|怎么样了|什么状态|状态如何|有结果了"
)
_PENDING_APPROVALS = rx(
    r"\bpending\s+approvals?\b|\bapprovals?\s+(?:pending|waiting|queue|list|inbox)\b"
    r"|\b(?:anything|something|what|things|requests?)\s+(?:(?:do|for)\s+(?:i|me)\s+)?(?:to|need\s+to|waiting\s+(?:for\s+)?(?:my\s+)?)\s*approv"
    r"|\bwaiting\s+(?:for|on)\s+(?:my|me)\b|\bmy\s+(?:approvals|to-?dos?|inbox)\b|\bneed(?:s)?\s+my\s+(?:approval|sign-?\s?off|ok|okay|decision|signature)\b"
    r"|\bfor\s+me\s+to\s+(?:approve|sign(?:\s+off)?|okay|ok|decide\s+on)\b|有(?:人|谁)找我(?:审批|批)|没(?:批|审批)的|(?:需)?要我(?:来)?(?:批|审批|处理|签字|签)"
    r"|\bwhat\s+(?:should|must|do)\s+i\s+approve\b|\bto\s+approve\b"
    r"|待(?:我)?审批|待我?批|待办|要(?:我)?审批的|需要我(?:批|审批|处理)|有什么要(?:审批|批)|有(?:什么|哪些)(?:要|需要)?(?:我)?(?:审批|批)|审批列表|等我(?:批|审批)"
)
_REJECT = rx(r"\b(?:reject|decline|deny|refuse|turn\s+down)\b|驳回|拒绝|不同意|不批|否决|退回")
_APPROVE = rx(
    r"\b(?:approve|accept|sign\s+off(?:\s+on)?|okay\s+it|ok\s+it)\b|批准|同意|审批通过|批了它|批一下|批掉|给(?:他|她|它)?通过|^\s*通过\s*$|^\s*批\s*$"
    r"|(?:的假|的申请|那个|那条|的)\s*(?:给)?批了|批了吧|准了吧"
)
_WITHDRAW = rx(
    r"\b(?:withdraw|retract|take\s+back|pull\s+back)\b|\bcancel\s+(?:my|the|this|that|it|R-)"
    r"|\b(?:scrap|drop|ditch|bin|kill|call\s+off)\s+(?:my|the|this|that)\s+(?:\w+\s+)?(?:request|leave|holiday|pto|vacation|time\s+off|claim|application|trip|expense)\b"
    r"|撤回|撤销|撤掉|取消(?:我的|这个|那个)?(?:申请|请假|请求|报销|出差)|不请了|不请假了"
    r"|把(?:我的)?(?:这个|那个)?(?:年假|病假|事假|假|请假|申请|报销|出差)(?:申请)?(?:给)?(?:取消|撤)"
)
_REMIND = rx(
    r"\b(?:remind|reminder|hurry|chase|nudge|ping|follow\s+up|speed\s+(?:it\s+)?up)\b|催|提醒|督促"
)
_APPROVER_CHOICE = rx(
    r"\bapprover\b|\b(?:let|have|ask)\s+\w+(?:\s+\w+)?\s+(?:to\s+)?approve\b|\bsend\s+it\s+to\b"
    r"|^\s*(?!(?:ok|okay|fine|alright|all\s+right|good|great|yes|no|thanks|bye|sure|cool|and|so)\b)\w+(?:\s+\w+)?\s+then\s*[.!]?\s*$"
    r"|审批人|让(?P<zh>[\u4e00-\u9fff]{2,4}?)(?:来)?(?:批|审批)|找(?:[\u4e00-\u9fff]{2,4}?)(?:批|审批)|换(?:个|成)?(?:[\u4e00-\u9fff]{2,4}?)(?:批|审批)"
)
_WORKING_DAYS = rx(
    r"\bhow\s+many\s+(?:working|work|business)\s+days\b|\b(?:working|business)\s+days\s+(?:are\s+there\s+)?(?:between|from|in)\b"
    r"|(?:几个|多少(?:个)?)工作日|工作日(?:有)?(?:几天|多少)"
)
_BALANCE = rx(
    r"\bbalances?\b|\ballowance\b|\bentitlement\b|\bhow\s+many\s+(?:\w+\s+){0,3}(?:days|holidays|leave)\b(?!.*\b(?:off|take|taking)\b)"
    r"|\bhow\s+many\s+(?:\w+\s+){0,2}days\s+off\s+(?:do|have|did)\s+i\s+(?:have|got|get)\b"
    r"|\b(?:days|leave|holidays?|pto|vacation)\s+(?:do\s+i\s+have\s+)?(?:left|remaining)\b|\bremaining\s+(?:leave|days|holiday|pto|vacation|annual|sick|personal)"
    r"|\b(?:have\s+i\s+got|i\s+have|do\s+i\s+have|are|is)\s+(?:\w+\s+){0,2}(?:left|remaining)\b|\bhow\s+much\s+(?:\w+\s+){0,3}(?:left|remaining)\b"
    r"|\bhow\s+much\s+(?:\w+\s+){0,2}(?:leave|holiday|holidays|pto|vacation|time\s+off)\s+(?:do|have|did)\s+i\s+(?:have|got|get)\b(?!.*\b(?:take|taking|book)\b)"
    r"|余额|额度|还有几天|还有多少(?:天)?(?:年假|病假|事假|假|假期|调休)|(?:假期|年假|病假|事假|调休|假)(?:还有|还剩|剩)(?:多少|几天|几|吗|么|没有)|还剩|剩(?:几|多少)|剩余|有几天(?:年假|假|病假)|(?:年假|病假|事假|假期)(?:有)?(?:多少|几)天|多少天(?:年假|假|病假|事假)|还能(?:休|请)(?:几|多少)天"
)
# A time said between "who" and "on leave" ("谁下周请假", "哪些人明天不在"): still a question.
_ZH_WHEN = (
    r"(?:(?:今天|明天|后天|这周|本周|下周|下下周|上周|这个?星期|下个?星期|这个月|下个?月|月底|年底)"
    r"[一二三四五六日天]?|(?:周|星期|礼拜)[一二三四五六日天])?(?:都|还|会|要|也)?"
)
_WHO_IS_OUT = rx(
    r"\bwho(?:'s|\s+is|\s+are|\s+will\s+be)?\s+(?:out|off|away|absent|on\s+(?:leave|holiday|vacation|pto))\b"
    r"|\banyone\s+(?:out|off|away|on\s+leave)\b|\bwho\s+else\s+is\s+(?:out|off)\b"
    r"|\b(?:is\s+|are\s+)?(?:anyone|anybody|who)\s+(?:(?:on|in|from|of)\s+(?:my|our|the)\s+(?:whole\s+)?(?:team|company|department|dept|office|org(?:anisation|anization)?)|(?:here|else))\s+(?:\w+\s+)?(?:out|off|away|absent|on\s+(?:leave|holiday|vacation|pto))\b"
    r"|\b(?:anybody|who(?:'s|\s+is|\s+are|\s+will\s+be)?|which\s+of\s+(?:my|our|the)\s+\w+|(?:which|what)\s+(?:colleagues|teammates|people|coworkers|co-workers))(?:\s+(?:is|are|will\s+be))?\s+(?:out|off|away|absent|not\s+around|not\s+in|on\s+(?:leave|holiday|vacation|pto))\b"
    rf"|谁{_ZH_WHEN}(?:在)?(?:请假|休假|不在|休息|放假)|(?:哪些|哪个|哪位|几个)(?:人|同事|组员|同学){_ZH_WHEN}(?:在)?(?:请假|休假|不在|休息)|有(?:谁|人){_ZH_WHEN}(?:请假|休假|不在)|(?:请假|休假)的(?:人|同事)"
)
_MY_REQUESTS = rx(
    r"\bmy\s+(?:\w+\s+)?(?:requests?|applications?|submissions?|claims?)\b|\brequests?\s+(?:status|history)\b"
    r"|\b(?:list|show)\s+(?:me\s+)?(?:my\s+)?requests\b"
    r"|\b(?:what|which|any|how\s+many)\s+(?:\w+\s+)?(?:requests?|applications?|claims?)\s+(?:do|have|did|has)\s+i\b"
    r"|\b(?:what|which)\s+(?:have|did)\s+i\s+(?:submitted|submit|requested|request|asked\s+for|ask\s+for|applied\s+for|apply\s+for|put\s+in|filed|file)\b"
    r"|\b(?:have|do)\s+i\s+(?:got|have)\s+(?:any|some)\s+(?:\w+\s+)?(?:requests?|applications?|claims?)\b"
    r"|\b(?:anything|any|which|what)\s+(?:\w+\s+)?of\s+mine\b"
    r"|\b(?:what(?:'s|\s+is|\s+has)?\s+(?:happened|happening|become)\s+(?:to|with|of)|any\s+(?:news|word)\s+(?:on|about))\s+my\s+(?:\w+\s+){0,2}(?:leave|holiday|vacation|pto|time\s+off|days?\s+off|requests?|claims?|expenses?|trip)\b"
    r"|我(?:之前|上次|最近|刚才)?的(?:年假|病假|事假)?(?:申请|请假|请求|报销|出差)|我(?:提交|申请)的|申请记录|请假记录|报销记录"
    r"|我(?:有|都有|现在有)?(?:哪些|什么|几个|多少)(?:申请|请假|报销)|我.{0,4}(?:提交|申请|交)(?:过|了)(?:什么|哪些|几个)"
)
_EXPENSE = rx(
    r"\b(?:expenses?|reimburse(?:ment)?|claim|receipt)\b|\b(?:spent|paid)\s+(?:[£$€¥]\s*)?\d|报销|报账|发票"
)
_TRIP = rx(
    r"\bbusiness\s+trip\b|\bwork\s+trip\b|\b(?:travel|travelling|traveling|fly|flying|go|going)\s+to\s+\w+.*\bfor\s+(?:a\s+|the\s+)?(?:meeting|conference|client|customer|workshop|training|summit)"
    r"|出差"
)
_LEAVE_STRONG = rx(
    r"\b(?:leave|day\s+off|days\s+off|time\s+off|pto|out\s+of\s+(?:the\s+)?office|ooo|absence|absent)\b"
    r"|\b(?:won't|will\s+not|can't|cannot|can\s+not)\s+(?:be\s+in|come\s+in|make\s+it\s+(?:in|to\s+work))\b|\bnot\s+coming\s+in\b"
    r"|请假|休假|请(?:[0-9一二两三四五六七八九十半]+)?(?:个)?(?:天)?(?:的)?(?:病|年|事|无薪)?假|(?:病|年|事)假|假期"
)
_POLICY = rx(
    r"怎么算|怎么计算|如何计算|怎么扣|规则|政策|制度|\bpolicy\b|\bpolicies\b|\brules?\b"
    r"|\bhow\s+(?:is|are|does|do)\b.*\b(?:calculated|counted|work|accrue)"
)
_LEAVE_WEAK = rx(r"\boff\b|休息|不来|来不了|不上班")
_PROCESSES = rx(
    r"\b(?:processes|workflows|request\s+types|kinds\s+of\s+requests?|what\s+can\s+i\s+(?:request|apply\s+for|submit))\b"
    r"|有哪些流程|流程列表|(?:能|可以)(?:申请|提交)(?:什么|哪些)"
)
_FIND_PEOPLE = rx(
    r"^\s*(?:who\s+is|who's|find|look\s+up|search\s+for)\s+(?P<en>(?!out\b|off\b|away\b|on\s)[A-Za-z][\w .'-]{1,40}?)\s*\??\s*$"
    r"|^\s*(?P<zh>[\u4e00-\u9fffA-Za-z ]{2,12}?)是谁\s*[?？]?\s*$|^\s*(?:查一下|找一下|找找)(?P<zh2>[\u4e00-\u9fffA-Za-z ]{2,12}?)(?:的(?:邮箱|联系方式|信息))?\s*$"
)
_CANCEL_DRAFT = rx(
    r"^\s*(?:cancel|cancel\s+it|never\s*mind|nevermind|forget\s+it|don't\s+send\s+it|scrap\s+that)\s*[.!]?\s*$"
    r"|^\s*(?:取消|算了|不要了|不用了|别提交|先不要)\s*[。!！]?\s*$"
)
_SUBMIT_DRAFT = rx(
    r"^\s*(?:yes[,.]?\s*|ok(?:ay)?[,.]?\s*|please\s+)?(?:submit|send|confirm|go\s+ahead(?:\s+and\s+submit)?)(?:\s+(?:it|that|this|the\s+request|the\s+draft))?(?:\s+(?:please|pls|now|for\s+me))?\s*[.!]?\s*$"
    r"|^\s*(?:帮我|请|你)?(?:提交|确认提交|确认|发送|提交吧|确认吧|就这样提交|直接提交)(?:吧|一下|了吧)?\s*[。!！]?\s*$"
)
_CAPABILITIES = rx(
    r"^\s*(?:hi|hello|hey|yo|hiya|morning|good\s+(?:morning|afternoon|evening))\b|\bwhat\s+can\s+you\s+do\b|\b(?:what|how)\s+can\s+you\s+(?:help|assist)\b|\bwhat\s+(?:are\s+you|is\s+this(?:\s+bot)?)\s+(?:for|good\s+for|here\s+for)\b|\bhow\s+(?:do|can)\s+(?:i\s+use\s+)?(?:you|this)\b"
    r"|\bwho\s+are\s+you\b|^\s*(?:help|/help|\?)\s*[!?.]*\s*$|\bwhat\s+do\s+you\s+do\b"
    r"|你好|您好|在吗|在不在|你能做什么|你会什么|你能干什么|能干什么|能做什么|能帮我(?:做)?什么|(?:能|可以|会)(?:帮我)?(?:干嘛|干啥|做啥|干些什么|做些什么)|可以做什么|帮助|怎么用|你是谁|^\s*嗨|^\s*哈喽"
    r"|^\s*(?:早上好|上午好|下午好|晚上好|早安|早)\s*[!！。.]?\s*$"
)
_THANKS = rx(
    r"^\s*(?:thanks|thank\s+you|thx|ty|cheers|great|ok|okay|cool|perfect|got\s+it)\b.{0,20}$|^\s*(?:谢谢|多谢|感谢|好的|好|收到|知道了|明白)\s*\S{0,6}$"
)


_STATUS_ASKED = rx(
    r"^\s*(?:did|has|have)\s+(?!i\b|you\b)\w+(?:\s+\w+)?\s+(?:approve|approved|sign(?:ed)?\s+off|reject|rejected|decline|declined|ok|okay)\b"
)
_WHO_APPROVES = rx(
    r"\bwho\s+(?:approves|signs\s+off|signs|okays|decides|will\s+approve|has\s+to\s+approve|needs\s+to\s+approve|do\s+i\s+ask)\b"
    r"|\bwho(?:'s|\s+is)\s+my\s+approver\b|\bwho\s+(?:will\s+)?(?:approve|sign)\b"
    r"|谁(?:来)?(?:审批|批准|批|审核|签字)|找谁(?:批|审批|签)|审批人是谁|(?:要|需要)?(?:谁|哪个人)(?:来)?(?:批|审批)"
)
_ADMIN = rx(
    r"\b(?:register|make|set|add|promote|assign|give)\s+me\s+(?:as\s+|to\s+)?(?:an?\s+|the\s+)?(?:hr|admin|administrator|approver|manager|finance|superuser|boss)\b"
    r"|\b(?:change|switch|update|set|reassign)\s+(?:my\s+)?(?:manager|approver|role|permissions?|boss|line\s+manager)\b"
    r"|\b(?:delete|remove|erase|wipe|clear|purge)\b.{0,40}\b(?:requests?|records?|history|data|approvals?|leaves?)\b"
    r"|\badmin(?:istrator)?\s+(?:rights|access|permissions?|role)\b"
    r"|(?:删除|删掉|清空|清除|抹掉|删).{0,12}(?:记录|历史|数据)|(?:把|将).{0,12}(?:记录|申请|请假).{0,4}(?:清空|删除|删掉|删了)"
    r"|(?:角色|权限|身份).{0,3}(?:改|换|设|开)|(?:改|换|设|开|给我开).{0,6}(?:角色|权限|管理员)"
    r"|把我(?:的)?(?:主管|经理|领导|上级|审批人)(?:改|换)|(?:注册|设置|设)(?:我)?(?:为|成)(?:HR|人事|管理员|审批人)"
)
_POLICY_Q = rx(
    r"\bpolic(?:y|ies)\b|\brules?\b|\bhow\s+does\b.{0,40}\bwork\b|\bdo\s+i\s+need\s+(?:a\s+)?(?:doctor'?s?|medical|sick|fit)\s+note\b"
    r"|\bhow\s+(?:is|are)\b.{0,30}\b(?:calculated|counted)\b"
    r"|规定|规则|政策|制度|怎么算|怎么计算|如何计算|怎么扣|要不要.{0,6}(?:证明|材料|病历)|需不需要.{0,6}(?:证明|材料)"
)
_COLLEAGUE = r"(?:my\s+)?(?:colleague|coworker|co-worker|teammate|team\s*mate|boss|manager|friend)"
_FOR_OTHER_EN = (
    rx(
        rf"\b(?:leave|day\s+off|days\s+off|time\s+off|holiday|pto|sick\s+day|vacation|annual\s+leave|sick\s+leave)\s+for\s+(?P<coll>{_COLLEAGUE})?\s*(?P<who>[a-z]+(?:\s+san|\s+si|\s+fang|\s+jing)?|[\u4e00-\u9fff]{{2,4}})?"
    ),
    rx(
        r"\b(?:book|request|submit|put\s+in|file|apply\s+for)\s+(?P<coll>)?(?P<who>[a-z]+)(?:'s)?\s+(?:leave|day\s+off|holiday|pto)\b"
    ),
)
_WITHDRAW_OTHER_EN = rx(
    rf"\b(?:withdraw|retract|cancel|delete|take\s+back|pull)\s+(?P<who>{_COLLEAGUE}|(?!my\b|our\b|the\b|this\b|that\b|it\b)[a-z]+(?:\s+(?!leave\b|request\b)[a-z]+)?)'s\b"
)
_FOR_OTHER_ZH = re.compile(
    r"(?:帮|替|给|为)(?:我)?(?:的)?(?P<coll>同事|同学|朋友|领导|老板|经理|主管)?(?!查|看|问|找|催|撤|取消)(?P<who>[\u4e00-\u9fff]{2,3}?)(?:请|提交|申请|交|报)"
)
_WITHDRAW_OTHER_ZH = re.compile(
    r"(?:撤回|撤销|撤掉|取消|撤)(?:一下)?(?P<who>[\u4e00-\u9fff]{2,3}?)的"
    r"|把(?P<who2>[\u4e00-\u9fff]{2,3}?)的(?:请假|申请|假|年假|病假|事假)?(?:申请)?(?:给)?(?:撤|取消)"
)
# Words after "leave for" that are reasons or times, never a person.
_NOT_A_PERSON = frozenset(
    [
        "a",
        "an",
        "the",
        "my",
        "me",
        "myself",
        "some",
        "this",
        "that",
        "next",
        "these",
        "those",
        "one",
        "two",
        "three",
        "four",
        "five",
        "day",
        "days",
        "week",
        "weeks",
        "month",
        "today",
        "tomorrow",
        "tonight",
        "christmas",
        "new",
        "year",
        "surgery",
        "dentist",
        "doctor",
        "gp",
        "hospital",
        "wedding",
        "funeral",
        "moving",
        "family",
        "personal",
        "medical",
        "health",
        "childcare",
        "school",
        "exam",
        "travel",
        "vacation",
        "holiday",
        "rest",
        "recovery",
        "appointment",
        "reasons",
        "reason",
        "religious",
        "jury",
        "court",
        "bereavement",
        "maternity",
        "paternity",
        "study",
        "training",
        "interview",
        "home",
        "house",
        "visa",
        "passport",
        "kids",
        "kid",
        "son",
        "daughter",
        "mum",
        "mom",
        "dad",
        "mother",
        "father",
        "wife",
        "husband",
        "partner",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "morning",
        "afternoon",
        "dec",
        "december",
        "jan",
        "january",
        "half",
        "whole",
        "rest",
        "a",
        "couple",
        "of",
        "all",
        "it",
    ]
)
_OWN = re.compile(r"我|你|自己|本人|咱")


def others_named(text: str, ctx: Context) -> tuple[str, str, bool] | None:
    """(what, who, sure) when the message asks to act for someone else: leave or withdrawal.

    `what` is "leave" or "withdraw"; `who` is the name as written ("" for "my colleague");
    `sure` is False for an English word after "leave for" that might be a reason, which the
    planner looks up in the directory before refusing.
    """
    for pattern, what in ((_WITHDRAW_OTHER_ZH, "withdraw"), (_FOR_OTHER_ZH, "leave")):
        if found := pattern.search(text):
            who = found.group("who") if "who" in found.groupdict() and found.group("who") else ""
            who = who or (found.groupdict().get("who2") or "")
            if who and not _OWN.search(who) and who.lower() not in _own_names(ctx):
                return what, who, True
            if what == "leave" and found.groupdict().get("coll"):
                return what, "", True
    if found := _WITHDRAW_OTHER_EN.search(text):
        who = found.group("who").strip()
        if re.fullmatch(_COLLEAGUE, who, re.IGNORECASE):
            return "withdraw", "", True
        if who.lower() not in _own_names(ctx):
            return "withdraw", who.title(), True
    for found in (m for pattern in _FOR_OTHER_EN for m in pattern.finditer(text)):
        who = (found.group("who") or "").strip()
        if who.split()[0:1] and who.split()[0].lower() in _NOT_A_PERSON:
            who = ""
        if who and who.lower() in _own_names(ctx):
            return None
        if found.group("coll"):
            return "leave", who.title(), True
        if who:
            return "leave", who.title(), False
    return None


def _without(text: str, who: str) -> str:
    """The message with the person it is for left out, so their name is read as no reason."""
    return re.sub(rf"(?:\b(?:for|of)\s+)?{re.escape(who)}(?:'s)?", " ", text, flags=re.IGNORECASE)


def read_message(text: str, ctx: Context, awaiting: str | None = None) -> Reading:
    """The intent and slots of one user message.

    `awaiting` is the slot the previous turn asked for: a free-text slot (a reason, a
    description) takes the whole message when nothing else in it reads as a fact.
    """
    norm = mend(normalize(text)).strip()
    if awaiting and awaiting.startswith(FORM) and _intent(norm, ctx) not in _INTERRUPTS:
        return Reading(None, {awaiting: text.strip()}, norm)  # the answer, as the person wrote it
    today = ctx.today
    ids = request_ids(norm)
    slots: dict[str, Any] = {}
    if ids:
        slots["request_id"] = ids[0]
    if choice := choice_of(norm):
        slots["choice"] = choice

    # What follows "reason:" / "because" / "理由" is data for a field, never a command.
    head = REASON_MARK.split(norm, maxsplit=1)[0]
    intent = (_intent(head, ctx) if head.strip() else None) or _intent(norm, ctx)
    if awaiting in _FREE_TEXT and intent is not None and intent not in _INTERRUPTS:
        asked = norm.rstrip().endswith(("?", "？"))
        if not (intent in _QUESTIONS and asked) and not (ids and awaiting != "comment"):
            intent = None
    if intent is Intent.FOR_OTHER:
        found = others_named(norm, ctx)
        if found is not None:
            what, who, sure = found
            slots |= {"what": what, "who": who, "sure": sure}
            if what == "leave" and who and ACT_FOR_ROLE in ctx.roles:  # HR may file it for them
                slots |= leave_slots(_without(norm, who), today)
            elif not sure:  # perhaps a reason ("leave for surgery"): read the leave too
                slots |= leave_slots(norm, today)
    elif intent is Intent.LEAVE or (intent is None and awaiting in _LEAVE_SLOTS):
        slots |= leave_slots(norm, today)
        if (kind := unknown_type(norm)) and "leave_type" not in slots:
            slots["unknown_type"] = kind
    elif intent is Intent.COUNTER or (intent is None and awaiting == "counter_dates"):
        slots |= counter_slots(norm, today)
    elif intent in (Intent.APPROVE, Intent.REJECT):
        if comment := comment_of(norm):
            slots["comment"] = comment
    elif intent is Intent.WITHDRAW:
        if reason := explicit_reason(norm):
            slots["reason"] = reason
    elif intent is Intent.REMIND:
        if note := note_of(norm):
            slots["note"] = note
    elif intent in _ASKED:
        slots |= _asked_slots(intent, norm, today)
        if intent is Intent.WORKING_DAYS and (days := parse_days(norm)):
            slots["days"] = days
    elif intent is Intent.EXPENSE or (intent is None and awaiting in _EXPENSE_SLOTS):
        slots |= expense_slots(norm, ctx)
    elif intent is Intent.TRIP or (intent is None and awaiting in _TRIP_SLOTS):
        slots |= trip_slots(norm, today)
    elif intent is Intent.FIND_PEOPLE:
        match = _FIND_PEOPLE.search(norm)
        if match:
            query = match.group("en") or match.group("zh") or match.group("zh2") or ""
            slots["query"] = query.strip()

    if awaiting == "days_or_range" and (split := _split_answer(norm)) is not None:
        slots["split"] = split
        slots.pop("days", None)
    if intent is None and awaiting in _FREE_TEXT and not _has_facts(slots, awaiting):
        free = _free_text(norm)
        if free:
            slots[awaiting] = free
    return Reading(intent, slots, norm)


# A short follow-up that only names what changes: "and sick days?", "what about next week?",
# "后天呢", "那病假呢".
_FOLLOW_UP = rx(
    r"^\s*(?:and|what\s+about|how\s+about|and\s+what\s+about|what\s+of|same\s+for|also)\b"
    r"|呢\s*[?？]?\s*$|^\s*(?:那|还有)"
)
# The reads a follow-up asks again, by the tool that answered the message before it.
_ASKED_AGAIN = {
    "my_balances": Intent.BALANCE,
    "who_is_out": Intent.WHO_IS_OUT,
    "working_days": Intent.WORKING_DAYS,
    "my_requests": Intent.MY_REQUESTS,
}


_ASKED = frozenset(_ASKED_AGAIN.values())


def follow_up(reading: Reading, answered_by: list[str], ctx: Context) -> Reading:
    """The reading of a short follow-up to a question the tools just answered.

    "and sick days?" after a balance is the balance again, not a sick-leave request; "后天呢"
    after who is out tomorrow is who is out on Friday. Anything else is left as it was read.
    """
    before = next((_ASKED_AGAIN[t] for t in reversed(answered_by) if t in _ASKED_AGAIN), None)
    norm = reading.text
    if before is None or reading.intent not in (None, Intent.LEAVE, before):
        return reading
    if reading.intent is Intent.LEAVE and (
        before is not Intent.BALANCE or set(reading.slots) - {"leave_type"}
    ):
        return reading  # "那我后天请假": a request after all, not the same question again
    if len(norm) > 40 or not _FOLLOW_UP.search(norm):
        return reading
    slots = _asked_slots(before, norm, ctx.today)
    if before in (Intent.WHO_IS_OUT, Intent.WORKING_DAYS) and "start" not in slots:
        return reading
    return Reading(before, slots, norm)


def _asked_slots(intent: Intent, norm: str, today: date) -> dict[str, Any]:
    """The slots of a question the tools answer: a balance's year, a list's status, the days."""
    if intent is Intent.BALANCE:
        year = year_of(norm, today)
        return {} if year is None else {"year": year}
    if intent is Intent.MY_REQUESTS:
        status = next((name for name, pattern in STATUS_FILTERS if pattern.search(norm)), None)
        return {} if status is None else {"status": status}
    slots = range_slots(norm, today)
    if intent is Intent.WHO_IS_OUT and SCOPE_ALL.search(norm):
        slots["scope"] = "all"
    return slots


_LEAVE_SLOTS = frozenset({"leave_type", "dates", "start", "reason", "days_or_range"})
_SEPARATE = rx(
    r"\b(?:separate(?:ly)?|just\s+(?:those|these|the\s+two)|only\s+(?:those|these|the\s+two)|those\s+two|both\s+days|two\s+single|single\s+days|individual|each\s+day|not\s+the\s+(?:whole|days\s+in\s+between))\b"
    r"|分开|单独|就这两天|只请这两天|只要这两天|这两天|两个单天|不连着"
)
_WHOLE = rx(
    r"\b(?:whole|entire|all\s+of\s+it|everything|in\s+between|the\s+range|straight|continuous|all\s+the\s+days|full\s+week)\b"
    r"|连着|连续|整段|中间也|全部|都请|一起请|整周"
)


def _split_answer(text: str) -> bool | None:
    """True for 'just those two days', False for 'the whole range', None if neither."""
    if _WHOLE.search(text):
        return False
    if _SEPARATE.search(text):
        return True
    return None


_EXPENSE_SLOTS = frozenset({"amount", "currency", "category", "spent_on", "description"})
_TRIP_SLOTS = frozenset({"destination", "trip_dates", "purpose", "estimated_cost"})
_FREE_TEXT = frozenset({"reason", "comment", "note", "description", "purpose", "destination"})


def _has_facts(slots: dict[str, Any], awaiting: str) -> bool:
    return any(key != awaiting and key != "choice" for key in slots)


def _free_text(text: str) -> str:
    return re.sub(r"^[\s:：,，]+|[\s.。!！]+$", "", text)


def _intent(text: str, ctx: Context) -> Intent | None:
    for intent, test in _ORDER:
        if test(text, ctx):
            return intent
    return None


def _approve(text: str, ctx: Context) -> bool:
    found = _APPROVE.search(text)
    if found is None or re.search(r"\bapproved\b", text, re.IGNORECASE):
        return False
    remind = _REMIND.search(text)  # "提醒领导审批一下": a reminder that names the approving
    return remind is None or found.start() < remind.start()


def _others(text: str, ctx: Context) -> bool:
    """Asking about someone else's request, balance or reason (which the planner never looks up)."""
    match = _OTHERS.search(text)
    if match is None or _APPROVE.search(text) or _REJECT.search(text):
        return False
    owner = (match.group("owner") or match.group(0).split("'s")[0]).strip()
    if re.search(r"我|你|自己|这|那|上次|之前|刚才", owner) or find_dates(owner, ctx.today):
        return False
    return owner.lower() not in _own_names(ctx)


def _working_days(text: str, ctx: Context) -> bool:
    if _WORKING_DAYS.search(text):
        return True
    if _LEAVE_STRONG.search(text) and not looks_like_question(text.replace("几天", "")):
        return False  # "元旦那几天想休年假": a request, not a count
    return bool(_HOW_MANY_DAYS.search(text)) and bool(find_dates(text, ctx.today))


def _policy(text: str, ctx: Context) -> bool:
    """A question about the rules ("do I need a doctor's note?"), with no dates to act on."""
    if not _POLICY_Q.search(text):
        return False
    return not (find_dates(text, ctx.today) or parse_days(text))


_HOW_MANY_DAYS = rx(r"\bhow\s+many\s+days\b|几天|多少天")


def _approver_choice(text: str, ctx: Context) -> bool:
    if not _APPROVER_CHOICE.search(text) or _has_task_words(text):
        return False
    if _REMIND.search(text) or _WITHDRAW.search(text):
        return False
    return not find_dates(text, ctx.today) and not parse_days(text)


_ORDER: tuple[tuple[Intent, Any], ...] = (
    (Intent.IDENTITY, lambda t, c: _is_identity_claim(t, c)),
    (Intent.STATUS, lambda t, c: bool(_STATUS_ASKED.search(t))),
    (Intent.ADMIN, lambda t, c: bool(_ADMIN.search(t))),
    (Intent.COUNTER, lambda t, c: is_counter(t, c.today)),
    (Intent.FOR_OTHER, lambda t, c: others_named(t, c) is not None),
    (Intent.WHO_APPROVES, lambda t, c: bool(_WHO_APPROVES.search(t)) and not REQUEST_ID.search(t)),
    (Intent.POLICY, lambda t, c: _policy(t, c)),
    (Intent.SELF_APPROVE, lambda t, c: bool(_SELF_APPROVE.search(t))),
    (Intent.OTHERS, lambda t, c: _others(t, c)),
    (Intent.CANCEL_DRAFT, lambda t, c: bool(_CANCEL_DRAFT.search(t))),
    (Intent.SUBMIT_DRAFT, lambda t, c: bool(_SUBMIT_DRAFT.search(t))),
    (Intent.STATUS, lambda t, c: bool(_STATUS.search(t))),
    (
        Intent.PENDING_APPROVALS,
        lambda t, c: bool(_PENDING_APPROVALS.search(t)) and not REQUEST_ID.search(t),
    ),
    (Intent.APPROVER_CHOICE, _approver_choice),
    (Intent.REJECT, lambda t, c: bool(_REJECT.search(t))),
    (Intent.APPROVE, _approve),
    (Intent.WITHDRAW, lambda t, c: bool(_WITHDRAW.search(t))),
    (Intent.REMIND, lambda t, c: bool(_REMIND.search(t))),
    (Intent.WORKING_DAYS, lambda t, c: _working_days(t, c)),
    (Intent.BALANCE, lambda t, c: bool(_BALANCE.search(t))),
    (Intent.WHO_IS_OUT, lambda t, c: bool(_WHO_IS_OUT.search(t))),
    (Intent.MY_REQUESTS, lambda t, c: bool(_MY_REQUESTS.search(t))),
    (Intent.EXPENSE, lambda t, c: bool(_EXPENSE.search(t))),
    (Intent.TRIP, lambda t, c: bool(_TRIP.search(t))),
    (Intent.LEAVE, lambda t, c: _is_leave(t, c.today)),
    (Intent.PROCESSES, lambda t, c: bool(_PROCESSES.search(t))),
    (Intent.CAPABILITIES, lambda t, c: bool(_CAPABILITIES.search(t))),
    (Intent.FIND_PEOPLE, lambda t, c: bool(_FIND_PEOPLE.search(t))),
    (Intent.THANKS, lambda t, c: bool(_THANKS.search(t))),
)

# While a free-text answer is awaited, only these intents interrupt it (and the questions
# among them only when asked as a question).
_INTERRUPTS = frozenset(
    {Intent.IDENTITY, Intent.SELF_APPROVE, Intent.OTHERS, Intent.CANCEL_DRAFT, Intent.SUBMIT_DRAFT}
)
_QUESTIONS = frozenset(
    {
        Intent.BALANCE,
        Intent.MY_REQUESTS,
        Intent.PENDING_APPROVALS,
        Intent.WHO_IS_OUT,
        Intent.CAPABILITIES,
        Intent.STATUS,
        Intent.PROCESSES,
        Intent.WORKING_DAYS,
    }
)


_QUESTION = rx(
    r"[?？]\s*$|^\s*(?:what|how|why|when|where|who|which|can|could|is|are|do|does|will)\b"
    r"|吗|什么|怎么|如何|为什么|为啥|哪|谁|几|多少"
)


def looks_like_question(text: str) -> bool:
    """Whether a message asks something (for the tone of a reply to it)."""
    return bool(_QUESTION.search(text))


_REQUEST = rx(
    r"\b(?:can\s+you|could\s+you|would\s+you|will\s+you|please|pls|help\s+me|i\s+(?:want|need|would\s+like)|i'd\s+like"
    r"|book|reserve|schedule|register|delete|remove|make\s+me|set|change|cancel|send|order|buy|create|add|move|postpone|reschedule|sign\s+me)\b"
    r"|^\s*(?:write|tell|translate|summari[sz]e|draft|compose|generate|explain|calculate|play|sing|fix|reset|call|text|find|get|give|show|plan|organi[sz]e)\b|\b(?:me|us)\s+(?:a|an|some)\s+\w+"
    r"|帮|请你|给我|把|删|取消|订|预订|预定|安排|推迟|推了|改|设置|开通|注册|我想|我要|能不能|可不可以|麻烦"
)
_NO_WORDS = re.compile(r"^[\W\d_]*$")


def looks_like_request(text: str) -> bool:
    """Whether a message asks the bot to do something, or says nothing readable (an emoji).

    Such a message never gets the small-talk line, which reads as agreement.
    """
    return bool(_REQUEST.search(text)) or bool(_NO_WORDS.match(text))


def _has_task_words(text: str) -> bool:
    return bool(
        _LEAVE_STRONG.search(text)
        or _EXPENSE.search(text)
        or _TRIP.search(text)
        or leave_type(text)
    )


def _is_identity_claim(text: str, ctx: Context) -> bool:
    match = _IDENTITY.search(text)
    if not match:
        claim = _SELF_CLAIM.search(text)
        if claim is None or not (_APPROVE.search(text) or _REJECT.search(text)):
            return False
        claimed = (claim.group("en") or claim.group("zh") or "").strip().lower()
        return claimed not in _own_names(ctx)
    groups = match.groupdict()
    claimed = next(
        (groups[k] for k in ("name", "name2", "claim", "zhname", "zhclaim") if groups.get(k)), None
    )
    if claimed is None:
        return True
    return claimed.strip().lower() not in _own_names(ctx)


def _own_names(ctx: Context) -> set[str]:
    return {ctx.user_name.lower(), ctx.user_id.lower(), ctx.first_name.lower()} - {""}


# Days off around a holiday, without the days: a leave request to ask about, not small talk.
_VAGUE_PERIOD = rx(
    r"\b(?:a\s+few|some|several|a\s+couple\s+of)\s+days\b.{0,20}\b(?:around|over|during|before|after)\b"
    r"|\b(?:around|over|during)\s+(?:the\s+)?(?:new\s+year|christmas|xmas|easter|the\s+holidays|chinese\s+new\s+year|spring\s+festival)\b"
    r"|(?:元旦|春节|过年|国庆|圣诞|中秋|五一|清明|端午)(?:前后|期间|那几天|左右)"
)


def _is_leave(text: str, today: date) -> bool:
    if _POLICY.search(text) and not (find_dates(text, today) or parse_days(text)):
        return False  # "年假怎么算": a question about the rules, not a request
    if _LEAVE_STRONG.search(text) or leave_type(text) or unknown_type(text):
        return True
    if _VAGUE_PERIOD.search(text):
        return True
    if _LEAVE_WEAK.search(text) or HALF_ALONE.search(text):
        return bool(find_dates(text, today) or parse_days(text) or HALF_ALONE.search(text))
    return False
