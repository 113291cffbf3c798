"""What the planner says, in English and Chinese.

Questions end with a question mark: the planner reads its own earlier question back from the
history that way, to know that the next message answers it.
"""

from __future__ import annotations

from typing import Any

from agent.catalogue import say
from agent.planner._context import Context, Lang

# What to click on a confirm card, by what it confirms: the card's own button, never Submit for
# all (the sentences are the catalogue's, shared with the agent loop's closing line).
CONFIRM_KINDS = ("submit", "approve", "reject", "withdraw", "remind", "delegate")
CONFIRM_HINTS: dict[str, dict[Lang, str]] = {
    kind: {"en": say(f"hint.confirm.{kind}", "en"), "zh": say(f"hint.confirm.{kind}", "zh")}
    for kind in CONFIRM_KINDS
}

_TEXT: dict[str, dict[Lang, str]] = {
    "ask_type_and_dates": {
        "en": "Sure — what kind of leave (annual, sick, personal or unpaid), and which days?",
        "zh": "好的，请问请哪种假（年假、病假、事假或无薪假），哪几天？",
    },
    "ask_leave_type": {
        "en": "What kind of leave: annual, sick, personal or unpaid?",
        "zh": "请问是哪种假：年假、病假、事假还是无薪假？",
    },
    "ask_dates": {
        "en": "Which days do you need off (for example tomorrow, next Monday to Wednesday, or Friday afternoon)?",
        "zh": "可以说“明天”“下周一到周三”或“周五下午”——请问需要请哪几天？",
    },
    "ask_start": {
        "en": "From which day (for example tomorrow or next Monday)?",
        "zh": "从哪天开始（例如明天、下周一）？",
    },
    "sorry_sick": {"en": "Sorry to hear that. ", "zh": "抱歉听到你不舒服。"},
    "ask_comment": {
        "en": "The requester will see it — what's the reason for rejecting {request_id}?",
        "zh": "申请人会看到驳回理由——请问驳回 {request_id} 的理由是什么？",
    },
    "ask_amount": {
        "en": "How much was it, and in which currency?",
        "zh": "请问金额是多少？",
    },
    "ask_currency": {
        "en": "Which currency: CNY, GBP, USD or EUR?",
        "zh": "币种是人民币（CNY）、英镑（GBP）、美元（USD）还是欧元（EUR）？",
    },
    "ask_spent_on": {
        "en": "On which day did you spend it?",
        "zh": "这笔钱是哪天花的？",
    },
    "ask_description": {
        "en": "What was it for (for example a taxi, a team lunch, a keyboard)?",
        "zh": "这笔费用是做什么用的（例如打车、团队午餐、键盘）？",
    },
    "ask_destination": {"en": "Where are you going?", "zh": "请问去哪里出差？"},
    "ask_trip_dates": {
        "en": "Which days — when do you leave and when do you return?",
        "zh": "哪天出发、哪天返回？",
    },
    "ask_purpose": {"en": "What is the trip for?", "zh": "出差事由是什么？"},
    "ask_estimated_cost": {
        "en": "Roughly how much will it cost?",
        "zh": "预计费用大概多少？",
    },
    "ask_working_dates": {
        "en": "Which dates should I count (for example Dec 21 - Jan 4)?",
        "zh": "要统计哪段日期（例如12月21日到1月4日）？",
    },
    "pushback": {
        "en": "I can't guess this for you, and nothing is sent until you confirm. ",
        "zh": "这一项我不能替你猜，而且在你确认之前什么都不会提交。",
    },
    "ask_request_id": {
        "en": "Which request is it (its id, like R-7K3F9Q2M)?",
        "zh": "请问是哪个申请（申请编号，例如 R-7K3F9Q2M）？",
    },
    "choose": {
        "en": "Which one do you mean: {ids}?",
        "zh": "请问是哪一个：{ids}？",
    },
    "none_to_decide": {
        "en": "Nothing is waiting for your approval right now.",
        "zh": "目前没有等待你审批的申请。",
    },
    "none_from": {
        "en": "Nothing from {who} is waiting for your approval, so there is nothing to prepare.",
        "zh": "目前没有{who}的申请在等你审批，无需准备。",
    },
    "none_pending": {
        "en": "You have no pending request right now, so there is nothing to {action}.",
        "zh": "你目前没有审批中的申请，无需{action}。",
    },
    "what_to_change": {
        "en": "What should I change?",
        "zh": "需要怎么调整？",
    },
    "identity": {
        "en": (
            "I act only as you, {name} — the signed-in user — and saying otherwise in the chat "
            "doesn't change that. I can't approve or reject anything on anyone's behalf: a "
            "decision counts only when the assigned approver clicks **Approve** or **Reject** "
            "on their own card. I can prepare a request for you, show your requests, or send "
            "your approver a reminder."
        ),
        "zh": (
            "我只以你（{name}，当前登录的用户）的身份办事，在对话里声称别的身份不会改变这一点。"
            "我也不能替任何人批准或驳回：只有被指派的审批人在自己的卡片上点击「批准」或「驳回」才算数。"
            "我可以帮你准备申请、查看你的申请，或提醒审批人。"
        ),
    },
    "self_approve": {
        "en": (
            "I can't approve requests — yours or anyone's. Only the assigned approver can, with "
            "a click on their own card. I can show where your request stands or send your "
            "approver a reminder."
        ),
        "zh": "我不能批准申请（无论是你的还是别人的），只有被指派的审批人在自己的卡片上点击才算数。我可以帮你查看申请进度，或提醒审批人。",
    },
    "others": {
        "en": (
            "I can only show your own requests and balances, and requests waiting for your "
            "decision. If someone's request waits for you, ask me what's waiting for your approval."
        ),
        "zh": "我只能查看你自己的申请和假期余额，以及等待你审批的申请。如果别人的申请在等你审批，可以问我“有什么待我审批的”。",
    },
    "your_manager_is": {
        "en": "Your manager is {manager}; requests go to them first, then to any further steps the process requires.",
        "zh": "你的直属主管是{manager}，申请会先交给他/她审批，再按流程进入后续步骤。",
    },
    "approver_choice": {
        "en": (
            "I can't choose the approver: it comes from the approval chain ({manager}, then "
            "any further steps the process requires). If someone on the chain is away, the "
            "engine routes the request to their delegate and tells both sides why. Nothing is "
            "sent until you click **Submit** on the card."
        ),
        "zh": (
            "审批人不能由我指定：它来自审批流程（{manager}，以及流程规定的后续审批人）。"
            "如果审批人不在，系统会自动转给其代理人，并告知双方原因。在你点击卡片上的「提交」之前，什么都不会发送。"
        ),
    },
    "your_manager": {"en": "your manager", "zh": "你的直属主管"},
    "cancel_draft": {
        "en": (
            "To drop a prepared request, click **Cancel** on its card — nothing was sent. To "
            "withdraw a request you already submitted, say 'withdraw' and its id (R-…)."
        ),
        "zh": "如果要放弃已准备好的申请，请点击卡片上的「取消」——它还没有提交。要撤回已提交的申请，请说“撤回”加申请编号（R-…）。",
    },
    "submit_draft": {
        "en": "I can't send it for you: click **Submit** on the card — nothing is sent until you do.",
        "zh": "我不能替你提交：请点击卡片上的「提交」——你点击之前什么都不会发送。",
    },
    "thanks": {
        "en": "You're welcome! Tell me whenever you need leave, an expense or an approval.",
        "zh": "不客气！需要请假、报销或审批时随时找我。",
    },
    "smalltalk": {
        "en": "Sounds good — enjoy! If you need anything for work (leave, expenses, approvals), just tell me.",
        "zh": "听起来不错，祝你愉快！需要请假、报销或处理审批时，随时告诉我。",
    },
    "off_topic": {
        "en": "I can't help with that one — I handle leave, expenses, business trips, balances, your requests and approvals.",
        "zh": "这个我帮不上忙——我负责请假、报销、出差、假期余额、申请进度和审批。",
    },
    "unavailable": {
        "en": "I can't do that from this conversation right now.",
        "zh": "目前在这个对话里无法完成这项操作。",
    },
    "cannot_finish": {
        "en": "I couldn't finish that. Please try again, or rephrase what you need.",
        "zh": "这次没能完成，请再试一次，或换个说法告诉我。",
    },
    "no_summary": {"en": "Done.", "zh": "已查询。"},
    "prepared": {
        "en": "I've prepared it for you; nothing is sent yet.",
        "zh": "已为你准备好，尚未提交。",
    },
    "failed": {
        "en": "That didn't work.",
        "zh": "没能完成。",
    },
    "unknown_type": {
        "en": "There's no {kind} leave here — the leave types are {types}. Which one should I use?",
        "zh": "这里没有{kind}——可用的假种有{types}。要用哪一种？",
    },
    "admin": {
        "en": (
            "I can't do that — only HR or an administrator can change roles, managers or "
            "permissions, or delete records. I can prepare your own leave, expense and trip "
            "requests and show where they stand."
        ),
        "zh": "这个我做不了——只有 HR（人事）或管理员可以修改角色、主管、权限或删除记录。我可以帮你准备自己的请假、报销、出差申请，并查看进度。",
    },
    "for_other": {
        "en": (
            "I can't do that — only {who} can ask for their own leave (they can message me "
            "themselves). I can prepare leave for you."
        ),
        "zh": "这个我做不了——只有{who}本人可以为自己请假（可以让{who}直接找我）。我可以帮你准备你自己的请假。",
    },
    "withdraw_other": {
        "en": "I can't withdraw {who}'s request — only {who} can withdraw it. I can withdraw your own requests.",
        "zh": "我不能撤回{who}的申请——只有{who}本人可以撤回。我可以帮你撤回你自己的申请。",
    },
    "a_colleague": {"en": "your colleague", "zh": "你的同事"},
    "policy": {
        "en": (
            "I don't hold the policy documents — HR can answer that. The leave types here are "
            "{types}; I can show your balances or prepare a request."
        ),
        "zh": "我这里没有制度文件——这个问题请问 HR（人事）。这里的假种有{types}；我可以帮你查余额或准备申请。",
    },
    "unclear": {
        "en": (
            "I can't do that — I can prepare leave, expense and business-trip requests, show "
            "your balances and where your requests stand, and prepare approvals."
        ),
        "zh": "这个我做不了——我可以帮你准备请假、报销和出差申请，查看假期余额和申请进度，以及准备审批。",
    },
    "no_draft_to_change": {
        "en": (
            "I don't see a request in this conversation to change. Reply in the thread of the "
            "card you want to change, or tell me the whole request (type and dates)."
        ),
        "zh": "这个对话里没有可以修改的申请。请在要修改的卡片下回复，或者把完整的申请告诉我（假种和日期）。",
    },
    "days_or_range": {
        "en": "Do you mean just those days ({days}), or everything from {start} to {end}?",
        "zh": "是只请这几天（{days}），还是从{start}到{end}连着请？",
    },
    "already_submitted": {
        "en": (
            "{request_id} is already submitted, so I can't change it. To change it, withdraw "
            "it (say 'withdraw {request_id}') and ask again."
        ),
        "zh": "{request_id} 已经提交，不能直接修改。如需修改，请先撤回（说“撤回 {request_id}”），再重新申请。",
    },
    "ask_half": {"en": "Which half: the morning or the afternoon?", "zh": "请问是上午还是下午？"},
    "withdraw": {"en": "withdraw", "zh": "撤回"},
    "remind": {"en": "remind anyone about", "zh": "催办"},
}

_CAPABILITIES: dict[Lang, list[str]] = {
    "en": [
        "Hi{name}! Here's what I can do for you:",
        '• Request leave — e.g. "sick tomorrow", "annual leave next Monday to Wednesday", "Friday afternoon off"',
        "• Claim an expense or plan a business trip",
        "• Check your leave balances and the status of your requests",
        "• Remind your approver, or withdraw a request before it is decided",
    ],
    "zh": [
        "你好{name}！我可以帮你：",
        "• 请假——例如“明天请病假”“下周一到周三请年假”“周五下午请半天假”",
        "• 报销费用、申请出差",
        "• 查询假期余额和申请进度",
        "• 催审批人处理，或在审批前撤回申请",
    ],
}
_APPROVALS_LINE: dict[Lang, dict[bool | None, str]] = {
    "en": {
        True: "• Approvals: show what's waiting for you and prepare your approve/reject decision",
        None: "• If you approve others' requests: show what's waiting for you and prepare your decision",
    },
    "zh": {
        True: "• 审批：查看待你审批的申请，并准备批准或驳回",
        None: "• 如果你负责审批：查看待你审批的申请，并准备批准或驳回",
    },
}
_CAPABILITIES_END = {
    "en": "I prepare everything; nothing is sent until you click **Submit** on the card.",
    "zh": "我负责准备，只有你在卡片上点击「提交」后才会发送。",
}


def text(key: str, lang: Lang, **values: Any) -> str:
    """One message of the catalogue in `lang`, with `values` filled in."""
    template = _TEXT[key][lang]
    return template.format(**values) if values else template


def capabilities(ctx: Context, lang: Lang) -> str:
    """What the planner can do for this user, approvals only for approvers (or when unknown)."""
    name = ctx.first_name
    lines = list(_CAPABILITIES[lang])
    lines[0] = lines[0].format(name=(f" {name}" if lang == "en" else name) if name else "")
    if ctx.is_approver is not False:
        lines.append(_APPROVALS_LINE[lang][ctx.is_approver])
    lines.append(_CAPABILITIES_END[lang])
    return "\n".join(lines)


def join_ids(ids: list[str], lang: Lang) -> str:
    """Request ids as a list in running text."""
    if lang == "zh":
        return "、".join(ids)
    return ", ".join(ids[:-1]) + f" or {ids[-1]}" if len(ids) > 1 else ids[0]


_LABEL_KEYS = (
    ("requester_name", "requester"),
    ("process_name", "process"),
    ("leave_type_name", "leave_type"),
)


def item_line(item: dict[str, Any]) -> str:
    """One request of a list result as a short line: id, who, what, when, status."""
    request_id = str(item.get("request_id") or item.get("id") or "")
    if isinstance(item.get("summary"), str) and item["summary"]:
        return f"• {request_id} — {item['summary']}" if request_id else f"• {item['summary']}"
    if item.get("what"):
        who = f"{item['requester']}: " if item.get("requester") else ""
        return f"• {request_id} {who}{item['what']}"
    parts: list[str] = []
    for keys in _LABEL_KEYS:
        for key in keys:
            if item.get(key):
                parts.append(str(item[key]))
                break
    fields = item.get("fields") if isinstance(item.get("fields"), dict) else item
    start, end = fields.get("start"), fields.get("end")
    if start:
        parts.append(f"{start}–{end}" if end and end != start else str(start))
    if item.get("status"):
        parts.append(str(item["status"]))
    label = ", ".join(parts)
    return f"• {request_id} — {label}" if label else f"• {request_id}"


_TYPE_NAMES = {
    "annual": ("annual", "年假"),
    "sick": ("sick", "病假"),
    "personal": ("personal", "事假"),
    "unpaid": ("unpaid", "无薪假"),
}


def type_list(keys: tuple[str, ...], lang: Lang) -> str:
    """The organisation's leave types in running text: 'annual, sick or unpaid' / '年假、病假、无薪假'."""
    names = [_TYPE_NAMES.get(k, (k, k))[1 if lang == "zh" else 0] for k in keys]
    if lang == "zh":
        return "、".join(names)
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else "".join(names)
