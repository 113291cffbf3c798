"""Everything the bot and the agent say, in English and Chinese, keyed by codes.

The one catalogue: modules name a code and its values; none writes a sentence of its own.
It lives below `bot` so the agent's tools and loop read from it too (agent never imports bot).
Values are filled with str.format; `{from_}` because `from` is a keyword.
"""

from __future__ import annotations

CATALOGUE: dict[str, tuple[str, str]] = {
    # refusals by the engine, as the answer says them (agent/refusals.py)
    # a reminder asked for again too soon (agent/refusals.py): when the next one may go
    "refusal.too_soon": (
        "A reminder for this request was already sent; the next one can go after {at} "
        "(at most one every {hours} hours).",
        "这个申请刚催办过，下次最早可在 {at}发送（每 {hours} 小时最多一次）。",
    ),
    "refusal.overlap": (
        "You already have leave awaiting approval on {dates}; withdraw it or choose other days.",
        "你在{dates}已有待审批的请假，请先撤回或换其他日期。",
    ),
    "refusal.overlap.approved": (
        "You already have approved leave on {dates}; withdraw it or choose other days.",
        "你在{dates}已有获批的请假，请先撤回或换其他日期。",
    ),
    # a request's status and where it is (agent/tools/describe.py)
    "status.draft": ("Draft", "草稿"),
    "status.pending": ("Pending", "审批中"),
    "status.approved": ("Approved", "已批准"),
    "status.rejected": ("Rejected", "已驳回"),
    "status.withdrawn": ("Withdrawn", "已撤回"),
    "status.expired": ("Expired", "已过期"),
    "what.leave": ("{type}, {dates} ({days})", "{type}，{dates}（{days}）"),
    "what.expense": (
        "{name}: {amount} {currency} ({category})",
        "{name}：{amount} {currency}（{category}）",
    ),
    "line.step_with": (
        "step {n} of {total} ({name}) with {who}",
        "第 {n}/{total} 步（{name}），待 {who} 审批",
    ),
    "line.step_with.only": ("with {who} ({name})", "待 {who} 审批（{name}）"),
    "line.whose": ("{who}: {what}", "{who}：{what}"),
    "line.status_where": ("{status}: {where}", "{status}：{where}"),
    "line.then": ("Then: {who} ({step})", "之后：{who}（{step}）"),
    # the leave form (bot/presentation/forms.py; labels of fields the process does not define)
    "form.leave.title": ("Request leave", "请假申请"),
    "form.leave.leave_type": ("Type of leave", "假期类型"),
    "form.leave.start": ("First day", "开始日期"),
    "form.leave.end": ("Last day", "结束日期"),
    "form.leave.start_half": ("First day: afternoon only", "首日仅下午"),
    "form.leave.end_half": ("Last day: morning only", "末日仅上午"),
    "form.leave.reason": ("Reason", "事由"),
    "form.leave.halves": ("Half days", "半天"),
    "form.leave.whole_days": ("Whole days", "整天"),
    "form.leave.pick_date": ("Pick a date", "选择日期"),
    "form.leave.choose_type": ("Choose a type", "选择假期类型"),
    "form.leave.reason_hint": ("Only your approvers and HR see it.", "仅审批人和人事可见。"),
    "form.leave.reason_required": ("Required for {types}. ", "{types}必填。"),
    "form.leave.chain_later": ("decided when you submit", "提交时确定"),
    "form.leave.approval": ("Approval: {chain}", "审批：{chain}"),
    "form.leave.checked": (
        "For {who}. Working days, your balance and clashes are checked when you submit.",
        "申请人：{who}。提交时会核对工作日、余额和日期冲突。",
    ),
    "word.list_sep": (", ", "、"),
    # the reject-reason modal (Slack)
    "form.reject.title": ("Reject request", "驳回申请"),
    "form.reject.reason_for": ("Reason ({who} will see it)", "驳回理由（{who} 可见）"),
    "form.reject.why": ("Why is it rejected?", "请说明驳回原因"),
    # Slack's Home tab
    "home.title": ("Leave and approvals · {who}", "请假与审批 · {who}"),
    "home.new_leave": ("New leave request", "新建请假"),
    "home.delegate": ("Delegate my approvals", "委托审批"),
    "home.balances": ("My balances", "我的假期余额"),
    "home.year": (" ({year})", "（{year}）"),
    "home.balance.unlimited": ("no allowance · {used} used", "不限额 · 已用 {used} 天"),
    "home.balance.left": ("{left} left of {of}", "剩余 {left}，共 {of} 天"),
    "home.no_leave_types": ("No leave types are set up.", "尚未设置假期类型。"),
    "home.my_requests": ("My open requests", "我的进行中申请"),
    "home.no_requests": ("No open requests.", "没有进行中的申请。"),
    "home.withdraw.text": (
        "{what} will be withdrawn and your approver told.",
        "将撤回{what}，并通知审批人。",
    ),
    "home.approvals": ("Waiting for my approval", "待我审批"),
    "home.no_approvals": ("Nothing is waiting for you.", "没有待你审批的申请。"),
    "home.out": ("Also out then: {out}", "同期请假：{out}"),
    "home.out.more": (" and {more} more", "，另有 {more} 人"),
    "button.keep": ("Keep it", "保留"),
    "word.comma": (", ", "，"),
    # what the read tools answer (the model reads these too)
    "read.processes": ("You can request: {names}.", "可以申请：{names}。"),
    "read.found": ("Found: {names}.", "找到：{names}。"),
    "read.found_nobody": ("Nobody matches '{query}'.", "没有找到“{query}”。"),
    "read.balance": ("{name}: {left} of {of} days left", "{name}：剩余 {left} 天，共 {of} 天"),
    "read.balance_pending": (", {n} pending", "，{n} 天审批中"),
    "read.balances": ("Your balances for {year}: ", "你 {year} 年的假期余额："),
    # a request in a list the model and the person read: what, where it is, the id last
    "read.request_line": ("{what} — {where} ({id})", "{what}——{where}（{id}）"),
    "read.working_days": ("{dates}: {days}{extra}", "{dates}：{days}{extra}"),
    "read.holidays": (" (public holidays: {holidays})", "（含公共假期：{holidays}）"),
    # a list's first line says how many (it is the step's line under "Checking your requests")
    "read.no_requests": ("You have no requests.", "你还没有任何申请。"),
    "read.no_requests.status": (
        "You have no requests with the status “{status}”.",
        "你没有状态为「{status}」的申请。",
    ),
    "read.requests.one": ("You have one request:\n", "你有 1 个申请：\n"),
    "read.requests": ("You have {count} requests:\n", "你有 {count} 个申请：\n"),
    "read.requests.latest": ("Your {count} latest requests:\n", "你最近的 {count} 个申请：\n"),
    "read.no_approvals": ("Nothing is waiting for your approval.", "没有待你审批的申请。"),
    "read.approvals": ("{count} waiting for your approval:\n", "{count} 个申请待你审批：\n"),
    "read.nobody_out": ("Nobody is out {dates}.", "{dates} 没有人请假。"),
    "read.out": ("Out {dates}:\n", "{dates} 请假的人：\n"),
    "read.out.page": (
        "Out {dates}: showing {first}–{last} of {total} people across the organisation, "
        "by first day off:\n",
        "{dates} 全公司共 {total} 人请假，按开始日期显示第 {first}–{last} 人：\n",
    ),
    "read.out.rest": (
        "Say “more” for the next {count}, or ask about your team or fewer days to narrow it down.",
        "回复“更多”看接下来的 {count} 人，或只问你的团队、缩短日期来缩小范围。",
    ),
    "read.out.past": (
        "{total} people are out {dates}: {pages} pages in all, and this page is past the last.",
        "{dates} 共 {total} 人请假，一共 {pages} 页，这一页已超出最后一页。",
    ),
    "word.semicolon": ("; ", "；"),
    "word.full_stop": (".", "。"),
    # dates and day counts in running text (agent/i18n.py, bot/wording.py)
    # no brackets: a leave's dates are followed by "(1 working day)" in `what.leave`
    "date.afternoon": ("{date} afternoon", "{date}下午"),
    "date.morning": ("{date} morning", "{date}上午"),
    "date.range": ("{first} – {last}", "{first} 至 {last}"),
    "days.working.one": ("{n} working day", "{n} 个工作日"),
    "days.working": ("{n} working days", "{n} 个工作日"),
    "days.one": ("{n} day", "{n} 天"),
    "days.many": ("{n} days", "{n} 天"),
    # the offline planner's questions and answers (agent/planner/_replies.py); a question ends
    # with a question mark: the planner reads its own question back from the history that way
    "planner.ask_type_and_dates": (
        "Sure — what kind of leave (annual, sick, personal or unpaid), and which days?",
        "好的，请问请哪种假（年假、病假、事假或无薪假），哪几天？",
    ),
    "planner.ask_leave_type": (
        "What kind of leave: annual, sick, personal or unpaid?",
        "请问是哪种假：年假、病假、事假还是无薪假？",
    ),
    "planner.ask_dates": (
        "Which days do you need off (for example tomorrow, next Monday to Wednesday, or Friday afternoon)?",
        "可以说“明天”“下周一到周三”或“周五下午”——请问需要请哪几天？",
    ),
    "planner.ask_start": (
        "From which day (for example tomorrow or next Monday)?",
        "从哪天开始（例如明天、下周一）？",
    ),
    "planner.sorry_sick": ("Sorry to hear that. ", "抱歉听到你不舒服。"),
    "planner.ask_comment": (
        "The requester will see it — what's the reason for rejecting “{request}”?",
        "申请人会看到驳回理由——请问驳回“{request}”的理由是什么？",
    ),
    "planner.ask_comment.unnamed": (
        "The requester will see it — what's the reason for rejecting it?",
        "申请人会看到驳回理由——请问驳回的理由是什么？",
    ),
    "planner.ask_amount": ("How much was it, and in which currency?", "请问金额是多少？"),
    "planner.ask_currency": (
        "Which currency: CNY, GBP, USD or EUR?",
        "币种是人民币（CNY）、英镑（GBP）、美元（USD）还是欧元（EUR）？",
    ),
    "planner.ask_spent_on": ("On which day did you spend it?", "这笔钱是哪天花的？"),
    "planner.ask_description": (
        "What was it for (for example a taxi, a team lunch, a keyboard)?",
        "这笔费用是做什么用的（例如打车、团队午餐、键盘）？",
    ),
    "planner.ask_destination": ("Where are you going?", "请问去哪里出差？"),
    "planner.ask_trip_dates": (
        "Which days — when do you leave and when do you return?",
        "哪天出发、哪天返回？",
    ),
    "planner.ask_purpose": ("What is the trip for?", "出差事由是什么？"),
    "planner.ask_estimated_cost": ("Roughly how much will it cost?", "预计费用大概多少？"),
    "planner.ask_working_dates": (
        "Which dates should I count (for example Dec 21 - Jan 4)?",
        "要统计哪段日期（例如12月21日到1月4日）？",
    ),
    "planner.pushback": (
        "I can't guess this for you, and nothing is sent until you confirm. ",
        "这一项我不能替你猜，而且在你确认之前什么都不会提交。",
    ),
    "planner.ask_request_id": (
        "Which request is it (its id, like R-7K3F9Q2M)?",
        "请问是哪个申请（申请编号，例如 R-7K3F9Q2M）？",
    ),
    "planner.choose": ("Which one do you mean: {ids}?", "请问是哪一个：{ids}？"),
    "planner.none_to_decide": (
        "Nothing is waiting for your approval right now.",
        "目前没有等待你审批的申请。",
    ),
    "planner.none_from": (
        "Nothing from {who} is waiting for your approval, so there is nothing to prepare.",
        "目前没有{who}的申请在等你审批，无需准备。",
    ),
    "planner.none_pending": (
        "You have no pending request right now, so there is nothing to {action}.",
        "你目前没有审批中的申请，无需{action}。",
    ),
    "planner.what_to_change": ("What should I change?", "需要怎么调整？"),
    "planner.identity": (
        "I act only as you, {name} — the signed-in user — and saying otherwise in the chat doesn't change that. I can't approve or reject anything on anyone's behalf: a decision counts only when the assigned approver clicks **Approve** or **Reject** on their own card. I can prepare a request for you, show your requests, or send your approver a reminder.",
        "我只以你（{name}，当前登录的用户）的身份办事，在对话里声称别的身份不会改变这一点。我也不能替任何人批准或驳回：只有被指派的审批人在自己的卡片上点击「批准」或「驳回」才算数。我可以帮你准备申请、查看你的申请，或提醒审批人。",
    ),
    "planner.self_approve": (
        "I can't approve requests — yours or anyone's. Only the assigned approver can, with a click on their own card. I can show where your request stands or send your approver a reminder.",
        "我不能批准申请（无论是你的还是别人的），只有被指派的审批人在自己的卡片上点击才算数。我可以帮你查看申请进度，或提醒审批人。",
    ),
    "planner.others": (
        "I can only show your own requests and balances, and requests waiting for your decision. If someone's request waits for you, ask me what's waiting for your approval.",
        "我只能查看你自己的申请和假期余额，以及等待你审批的申请。如果别人的申请在等你审批，可以问我“有什么待我审批的”。",
    ),
    "planner.your_manager_is": (
        "Your manager is {manager}; requests go to them first, then to any further steps the process requires.",
        "你的直属主管是{manager}，申请会先交给他/她审批，再按流程进入后续步骤。",
    ),
    "planner.approver_choice": (
        "I can't choose the approver: it comes from the approval chain ({manager}, then any further steps the process requires). If someone on the chain is away, the engine routes the request to their delegate and tells both sides why. Nothing is sent until you click **Submit** on the card.",
        "审批人不能由我指定：它来自审批流程（{manager}，以及流程规定的后续审批人）。如果审批人不在，系统会自动转给其代理人，并告知双方原因。在你点击卡片上的「提交」之前，什么都不会发送。",
    ),
    "planner.your_manager": ("your manager", "你的直属主管"),
    "planner.cancel_draft": (
        "To drop a prepared request, click **Cancel** on its card — nothing was sent. To withdraw a request you already submitted, say 'withdraw' and its id (R-…).",
        "如果要放弃已准备好的申请，请点击卡片上的「取消」——它还没有提交。要撤回已提交的申请，请说“撤回”加申请编号（R-…）。",
    ),
    "planner.submit_draft": (
        "I can't send it for you: click **Submit** on the card — nothing is sent until you do.",
        "我不能替你提交：请点击卡片上的「提交」——你点击之前什么都不会发送。",
    ),
    "planner.thanks": (
        "You're welcome! Tell me whenever you need leave, an expense or an approval.",
        "不客气！需要请假、报销或审批时随时找我。",
    ),
    "planner.smalltalk": (
        "Sounds good — enjoy! If you need anything for work (leave, expenses, approvals), just tell me.",
        "听起来不错，祝你愉快！需要请假、报销或处理审批时，随时告诉我。",
    ),
    "planner.off_topic": (
        "I can't help with that one — I handle leave, expenses, business trips, balances, your requests and approvals.",
        "这个我帮不上忙——我负责请假、报销、出差、假期余额、申请进度和审批。",
    ),
    "planner.unavailable": (
        "I can't do that from this conversation right now.",
        "目前在这个对话里无法完成这项操作。",
    ),
    "planner.cannot_finish": (
        "I couldn't finish that. Please try again, or rephrase what you need.",
        "这次没能完成，请再试一次，或换个说法告诉我。",
    ),
    "planner.no_summary": ("Done.", "已查询。"),
    "planner.failed": ("That didn't work.", "没能完成。"),
    "planner.unknown_type": (
        "There's no {kind} leave here — the leave types are {types}. Which one should I use?",
        "这里没有{kind}——可用的假种有{types}。要用哪一种？",
    ),
    "planner.admin": (
        "I can't do that — only HR or an administrator can change roles, managers or permissions, or delete records. I can prepare your own leave, expense and trip requests and show where they stand.",
        "这个我做不了——只有 HR（人事）或管理员可以修改角色、主管、权限或删除记录。我可以帮你准备自己的请假、报销、出差申请，并查看进度。",
    ),
    "planner.for_other": (
        "I can't do that — only {who}, or HR on their behalf, can ask for their leave (they can message me themselves). I can prepare leave for you.",
        "这个我做不了——只有{who}本人或人事可以为其请假（可以让{who}直接找我）。我可以帮你准备你自己的请假。",
    ),
    "planner.withdraw_other": (
        "I can't withdraw {who}'s request — only {who}, or HR on their behalf, can withdraw it. I can withdraw your own requests.",
        "我不能撤回{who}的申请——只有{who}本人或人事可以撤回。我可以帮你撤回你自己的申请。",
    ),
    "planner.a_colleague": ("your colleague", "你的同事"),
    "planner.nobody_named": (
        "I can't find {who} in the directory; check the name, or give their email.",
        "通讯录里找不到{who}；请核对姓名，或提供其邮箱。",
    ),
    "planner.ask_for_other": (
        'Which kind of leave, and which days, for {who}? Say it in one message, for example "sick leave for {who} from Monday to Wednesday".',
        "请问给{who}请哪种假、哪几天？请在一条消息里说完，例如“帮{who}请下周一到周三病假”。",
    ),
    "planner.which_person": ("Whom do you mean: {names}?", "你指的是哪一位：{names}？"),
    "planner.ask_counter_dates": (
        "Which days would you suggest instead (for example Tuesday to Thursday)?",
        "建议改到哪几天（例如周二到周四）？",
    ),
    "planner.policy": (
        "I don't hold the policy documents — HR can answer that. The leave types here are {types}; I can show your balances or prepare a request.",
        "我这里没有制度文件——这个问题请问 HR（人事）。这里的假种有{types}；我可以帮你查余额或准备申请。",
    ),
    "planner.unclear": (
        "I can't do that — I can prepare leave, expense and business-trip requests, show your balances and where your requests stand, and prepare approvals.",
        "这个我做不了——我可以帮你准备请假、报销和出差申请，查看假期余额和申请进度，以及准备审批。",
    ),
    "planner.no_draft_to_change": (
        "I don't see a request in this conversation to change. Reply in the thread of the card you want to change, or tell me the whole request (type and dates).",
        "这个对话里没有可以修改的申请。请在要修改的卡片下回复，或者把完整的申请告诉我（假种和日期）。",
    ),
    "planner.days_or_range": (
        "Do you mean just those days ({days}), or everything from {start} to {end}?",
        "是只请这几天（{days}），还是从{start}到{end}连着请？",
    ),
    "planner.already_submitted": (
        "Your {what} ({request_id}) is already submitted, so I can't change it. To change it, withdraw it (say 'withdraw {request_id}') and ask again.",
        "你的{what}（{request_id}）已经提交，不能直接修改。如需修改，请先撤回（说“撤回 {request_id}”），再重新申请。",
    ),
    "planner.leave_named": ("{kind} leave", "{kind}"),
    "planner.leave_unnamed": ("leave", "请假"),
    "planner.leave_on": ("{kind}, {dates}", "{kind}，{dates}"),
    "planner.ask_half": ("Which half: the morning or the afternoon?", "请问是上午还是下午？"),
    "planner.withdraw": ("withdraw", "撤回"),
    "planner.remind": ("remind anyone about", "催办"),
    "planner.hello": ("Hi {name}! Here's what I can do for you:", "你好{name}！我可以帮你："),
    "planner.hello.anonymous": ("Hi! Here's what I can do for you:", "你好！我可以帮你："),
    "planner.capabilities": (
        '• Request leave — e.g. "sick tomorrow", "annual leave next Monday to Wednesday", '
        '"Friday afternoon off"\n'
        "• Claim an expense or plan a business trip\n"
        "• Check your leave balances and the status of your requests\n"
        "• Remind your approver, or withdraw a request before it is decided",
        "• 请假——例如“明天请病假”“下周一到周三请年假”“周五下午请半天假”\n"
        "• 报销费用、申请出差\n"
        "• 查询假期余额和申请进度\n"
        "• 催审批人处理，或在审批前撤回申请",
    ),
    "planner.capabilities.approver": (
        "• Approvals: show what's waiting for you and prepare your approve/reject decision",
        "• 审批：查看待你审批的申请，并准备批准或驳回",
    ),
    "planner.capabilities.approver_maybe": (
        "• If you approve others' requests: show what's waiting for you and prepare your decision",
        "• 如果你负责审批：查看待你审批的申请，并准备批准或驳回",
    ),
    "planner.capabilities.end": (
        "I prepare everything; nothing is sent until you click **Submit** on the card.",
        "我负责准备，只有你在卡片上点击「提交」后才会发送。",
    ),
    "planner.type.annual": ("annual", "年假"),
    "planner.type.sick": ("sick", "病假"),
    "planner.type.personal": ("personal", "事假"),
    "planner.type.unpaid": ("unpaid", "无薪假"),
    "planner.signed_in_user": ("the signed-in user", "当前用户"),
    "planner.or_last": ("{items} or {last}", "{items}、{last}"),
    "word.and_sep": (" and ", "、"),
    # a step inside a sentence (bot/wording.py), a zone named by its city (agent/i18n.py)
    "wording.step_phrase": ("step {n} of {total}", "第 {n}/{total} 步"),
    "wording.step_phrase.named": ("step {n} of {total} ({name})", "第 {n}/{total} 步，{name}"),
    "time.zone_city": ("{city} time", "{city}时间"),
    # a moment on a card: its day (the year when not this year), clock time and zone
    "time.at": ("{day}, {time} ({zone})", "{day} {time}（{zone}）"),
    # a requester's thread card after a decision (bot/conversation/lifecycle.py)
    "line.decided_now": ("{decided}; now {waiting}", "{decided}；现{waiting}"),
    # a queued turn that failed three times (bot/slack, bot/feishu: bot/conversation/turn_view.py)
    "turn.gave_up": (
        "Sorry — answering this message failed three times, so I have stopped trying. "
        "Nothing was submitted. Please send it again; if it keeps failing, tell your admin "
        "(it is kept for them: approvals-bot turns list).",
        "抱歉，这条消息处理失败了三次，我已停止重试，没有提交任何内容。请重新发送；如果仍然失败，"
        "请联系管理员（消息已保留：approvals-bot turns list）。",
    ),
    # step titles: what a tool call is doing, as a person reads it
    "step.list_processes": ("Looking up the request forms", "查看申请表单"),
    "step.find_people": ("Looking up {query}", "查找 {query}"),
    "step.my_balances": ("Checking your leave balances", "查询你的假期余额"),
    "step.working_days": ("Counting working days", "计算工作日"),
    "step.my_requests": ("Checking your requests", "查询你的申请"),
    "step.request_details": ("Opening the request", "查看申请详情"),
    "step.my_pending_approvals": ("Checking what waits for your approval", "查询待你审批的申请"),
    "step.who_is_out": ("Checking who is out", "查询谁在休假"),
    # what the propose tools answer (the model reads these; the planner says them)
    "propose.request": (
        "Prepared {what}, approval by {chain}.",
        "已准备：{what}，审批人 {chain}。",
    ),
    "propose.left": (" You will have {n} days left.", "提交后剩余 {n} 天。"),
    "propose.approve": ("Prepared: approve {who}'s {what}.", "已准备：批准 {who} 的 {what}。"),
    "propose.reject": ("Prepared: reject {who}'s {what}.", "已准备：驳回 {who} 的 {what}。"),
    "propose.withdraw": ("Prepared: withdraw your {what}.", "已准备：撤回你的{what}。"),
    "propose.remind": (
        "Prepared a reminder to {to} about your {what}, submitted on {since}.",
        "已准备提醒 {to} 审批你的{what}（提交于 {since}）。",
    ),
    "propose.ambiguous_person": (
        "'{name}' matches {names}; ask the user which colleague they mean.",
        "“{name}”匹配到：{names}；请向用户确认是哪位同事。",
    ),
    "propose.counter": (
        "Prepared: suggest {dates} to {who} instead of the dates of their {what}.",
        "已准备：建议{who}把{what}改为 {dates}。",
    ),
    "propose.counter_days": (" That is {days}.", "共 {days}。"),
    "propose.delegate": (
        "Prepared: {who} decides your approvals from {start} to {end}.",
        "已准备：{start} 至 {end} 由 {who} 代你审批。",
    ),
    "step.propose_leave": ("Preparing your {type} leave request", "准备请假申请"),
    "step.propose_request": ("Preparing your request", "准备申请"),
    "step.propose_decision": ("Preparing your decision", "准备审批"),
    "step.propose_withdraw": ("Preparing to withdraw your request", "准备撤回申请"),
    "step.propose_delegation": ("Preparing your delegation", "准备委托审批"),
    "step.propose_reminder": ("Preparing a reminder", "准备催办提醒"),
    "step.propose_counter": ("Preparing your suggestion of other dates", "准备建议改期"),
    # a turn's answer when its cards carry no summary (what to click is on each card, not here)
    "propose.unchanged": (
        "Your draft already says that — {what} — so there is nothing to change, and its card stays as it is.",
        "草稿已经是这样了：“{what}”，无需修改，原卡片保持不变。",
    ),
    "propose.prepared": ("Prepared: see the card below.", "已准备好，请看下方卡片。"),
    # why a turn stopped (nothing was submitted)
    "stop.max_steps": (
        "I could not finish this in the steps I am allowed, so I stopped. Nothing was submitted. Could you say it more simply, or use /leave?",
        "我在允许的步骤内没能完成，已停止。没有提交任何内容。请换个更简单的说法，或使用 /leave。",
    ),
    "stop.repeated_call": (
        "I was going round in circles, so I stopped. Nothing was submitted. Could you rephrase what you need?",
        "我陷入了重复操作，已停止。没有提交任何内容。请换个说法告诉我你需要什么。",
    ),
    "stop.deadline": (
        "This took too long, so I stopped. Nothing was submitted. Please try again.",
        "处理超时，已停止。没有提交任何内容。请重试。",
    ),
    "stop.model_error": (
        "The AI model could not answer, so I stopped. Nothing was submitted. Please try again later.",
        "AI 模型无法回答，已停止。没有提交任何内容。请稍后再试。",
    ),
    "stop.empty_reply": (
        "I could not form an answer. Nothing was submitted. Could you rephrase?",
        "我没能给出回答。没有提交任何内容。请换个说法。",
    ),
    "stop.busy": (
        "I am still working on your previous message in this thread; send this again in a moment.",
        "我还在处理你在这个话题里的上一条消息，请稍后再发。",
    ),
    "notice.too_long": (
        "The conversation is too long for the AI model; the offline assistant answers instead.",
        "对话过长，AI 模型无法处理，由离线助手回答。",
    ),
    "notice.unreachable": (
        "The AI model is unreachable right now; the offline assistant answers instead.",
        "AI 模型暂时无法连接，由离线助手回答。",
    ),
    # the delegation form (Slack)
    "form.delegate.title": ("Delegate approvals", "委托审批"),
    "form.delegate.submit": ("Delegate", "委托"),
    "form.delegate.who": ("Who decides for you", "委托给"),
    "form.delegate.from": ("From", "开始日期"),
    "form.delegate.until": ("Until (inclusive)", "结束日期（含）"),
    "form.delegate.note": ("Note", "备注"),
    # a turn's steps while it runs (Feishu's plan card)
    "steps.thinking": ("Thinking…", "正在思考…"),
    "steps.done": ("Steps", "处理步骤"),
    "steps.working": ("Working on it…", "处理中…"),
    # the terminal chat (bot/chat.py)
    "chat.prompt.submit": ("Submit? [y/N] ", "提交？[y/N] "),
    "chat.prompt.decide": ("Confirm this decision? [y/N] ", "确认此审批？[y/N] "),
    "chat.prompt.withdraw": ("Withdraw? [y/N] ", "撤回？[y/N] "),
    "chat.prompt.remind": ("Send the reminder? [y/N] ", "发送提醒？[y/N] "),
    "chat.prompt.delegate": ("Delegate? [y/N] ", "委托？[y/N] "),
    "chat.not_done": ("(Not done: {text})", "（未完成：{text}）"),
    "chat.cancelled": ("({text}.)", "（{text}。）"),
    "chat.confirmed": ("(Confirmed: {text})", "（已确认：{text}）"),
    # a finished step in the terminal: its title, then the one line under it
    "chat.step_line": ("{title} — {output}", "{title}——{output}"),
    # a form's field asked in the terminal: its label, then how to answer it
    "chat.field": ("{label}{how}: ", "{label}{how}："),
    "chat.field.date": (" (YYYY-MM-DD)", "（YYYY-MM-DD）"),
    "chat.field.date_default": (
        " (YYYY-MM-DD, Enter for {value})",
        "（YYYY-MM-DD，回车即 {value}）",
    ),
    "chat.reason": ("Reason: {text}", "事由：{text}"),
    "chat.decide": (
        "[a]pprove / [r]eject / [o]ther dates / [s]kip? ",
        "[a]批准 / [r]驳回 / [o]建议其他日期 / [s]跳过？",
    ),
    "chat.reject_reason": ("Reason: ", "理由："),
    "chat.now_you": ("You are now {who}.", "你现在是 {who}。"),
    "chat.in_process": ("an in-process store (nothing persisted)", "进程内存储（不持久化）"),
    "chat.welcome": (
        "DM with the approvals bot as {who}, on {store}. /help for commands.",
        "你以 {who} 的身份与审批机器人对话，使用{store}。输入 /help 查看命令。",
    ),
    # when something underneath fails (the platforms say these the same way)
    "error.queue_down": (
        "I can't take this right now (my database is not answering); please try again in a minute.",
        "暂时无法处理（数据库没有响应），请一分钟后再试。",
    ),
    "error.text_only": ("I can only read text messages.", "我目前只能读取文字消息。"),
    "ack.command": ("On it — I'll answer in our DM.", "收到，我会在私信中回复你。"),
    "form.required": ("Required", "必填"),
    "steps.is_thinking": ("is thinking…", "正在思考…"),
    # bot/wording.py
    "wording.step_of.step_of": (
        "Step {index_1} of {total} ({name})",
        "第 {index_1}/{total} 步（{name}）",
    ),
    "wording.step_of.only": ("{name} approval", "{name}审批"),
    "wording.step_of.step_of_": ("Step {index_1} of {total}", "第 {index_1}/{total} 步"),
    "wording.title_of.request": ("{kind} request · {who}", "{kind}申请 · {who}"),
    "wording.request_facts.requester": ("Requester", "申请人"),
    "wording.request_facts.balance_after": ("Balance after", "审批后余额"),
    "wording.request_facts.left": ("{left} left", "剩余 {left}"),
    "wording.out_line.pending": (" (pending)", "（待批）"),
    "wording.out_line.2": ("{o_name}: {dates}{pending}", "{o_name}：{dates}{pending}"),
    "wording.decision_text.for": (" for {holder}", "（代 {holder}）"),
    "wording.decision_text.approved_by_at": (
        "Approved by {by}{for_whom} on {at}",
        "{by}{for_whom} 已于 {at}批准",
    ),
    "wording.decision_text.3": (" — {comment}", "：{comment}"),
    "wording.decision_text.rejected_by_at": (
        "Rejected by {by}{for_whom} on {at}",
        "{by}{for_whom} 已于 {at}驳回",
    ),
    "wording.decision_text.approved_automatically_by_the": (
        "Approved automatically by the process rules",
        "已按流程规则自动批准",
    ),
    "wording.decision_text.expired_without_a_decision": (
        "Expired without a decision",
        "未获审批，已过期",
    ),
    "wording.decision_text.withdrawn_by_the_requester": (
        "Withdrawn by the requester",
        "申请人已撤回",
    ),
    "wording.decision_text.reassigned_to": (
        "Reassigned to {name_of_engine_step_assignee}",
        "已转交 {name_of_engine_step_assignee}",
    ),
    "wording.decision_text.10": (" — {routed}", "：{routed}"),
    "wording.open_step_line.only": ("{holder} ({name})", "{holder}（{name}）"),
    "wording.open_step_line.1": ("{holder}, {phrase}", "{holder}（{phrase}）"),
    "wording.headline.your_request_was_submitted": (
        "Your request was submitted and approved automatically.",
        "你的申请已提交，并已自动批准。",
    ),
    "wording.headline.your_request_was_submitted_": (
        "Your request was submitted.",
        "你的申请已提交。",
    ),
    "wording.headline.your_request_went_to": (
        "Your request went to {now}.",
        "你的申请已提交给 {now}审批。",
    ),
    "wording.headline.approved_your_request": (
        "{by} approved your request.",
        "{by} 已批准你的申请。",
    ),
    "wording.headline.approved_of_your_request": (
        "{by} approved {where} of your request.",
        "{by} 已批准你的申请（{where}）。",
    ),
    "wording.headline.next": (" Next: {now}.", "下一步：{now}。"),
    "wording.headline.your_request_is_approved": ("Your request is approved.", "你的申请已批准。"),
    "wording.headline.rejected_your_request": (
        "{by} rejected your request.",
        "{by} 驳回了你的申请。",
    ),
    "wording.headline.this_request_was_withdrawn": (
        "This request was withdrawn.",
        "此申请已撤回。",
    ),
    "wording.headline.reminder_sent_to": ("Reminder sent to {to}.", "已提醒 {to}。"),
    "wording.headline.your_request_is_now": (
        "Your request is now with {now}.",
        "你的申请现由 {now}审批。",
    ),
    "wording.headline.your_request_is": ("Your request is {where}.", "你的申请：{where}。"),
    "wording.detail.note": ("Note", "附言"),
    "wording.detail.reason": ("Reason", "理由"),
    "wording.detail.comment": ("Comment", "意见"),
    "wording.outcome_text.cancelled_nothing_was_sent": (
        "Cancelled: nothing was sent",
        "已取消：未发送任何内容",
    ),
    "wording.outcome_text.waiting_for_only": ("waiting for {holder}", "等待 {holder} 审批"),
    "wording.outcome_text.waiting_for": ("waiting for {holder} ({n})", "等待 {holder} 审批（{n}）"),
    "wording.outcome_text.submitted": ("Submitted — {where}", "已提交，{where}"),
    "wording.outcome_text.submitted_and_approved_automatically": (
        "Submitted and approved automatically",
        "已提交，并已自动批准",
    ),
    "wording.outcome_text.submitted_": ("Submitted", "已提交"),
    "wording.outcome_text.rejected": ("Rejected", "已驳回"),
    "wording.outcome_text.approved_now": ("Approved — now {where}", "已批准，现{where}"),
    "wording.outcome_text.approved": ("Approved", "已批准"),
    "wording.outcome_text.withdrawn": ("Withdrawn", "已撤回"),
    "wording.outcome_text.reminder_sent_to": ("Reminder sent to {holder}", "已提醒 {holder}"),
    "wording.outcome_text.reminder_sent": ("Reminder sent", "已发送提醒"),
    "wording.outcome_text.done": ("Done", "已完成"),
    "wording.not_in_directory.sorry_your_account_is": (
        "Sorry — your {platform} account is not in the approvals directory yet, so I can't act for you. Please ask HR ({hr}) to add you.",
        "抱歉，你的{platform}账号还不在审批通讯录中，我无法为你办理。请联系人事（{hr}）添加。",
    ),
    "wording.expired_text.your_request_had_no": (
        "Your request — {subject} — had no decision within {days} days and has expired; its days were released. Ask again if you still need it.",
        "你的申请“{subject}”{days} 天内无人审批，已过期，占用的假期已释放。如仍需要，请重新申请。",
    ),
    "wording.expired_text.s_request_expired_before": (
        "{name}'s request — {subject} — expired before a decision; there is nothing left to do.",
        "{name} 的申请“{subject}”未获审批已过期，无需处理。",
    ),
    "wording.escalated_text.s_request_had_no": (
        "{requester}'s request — {subject} — had no decision within {sla_hours:g} working hours, so it now waits for {who}. You can still decide it.",
        "{requester} 的申请“{subject}”在 {sla_hours:g} 个工作小时内未审批，已转交 {who}。你仍可以审批。",
    ),
    "wording.digest_title.one": ("1 request waiting for your approval", "1 个申请等待你审批"),
    "wording.digest_title.many": (
        "{count} requests waiting for your approval",
        "{count} 个申请等待你审批",
    ),
    "wording.weekly_out_title.who_s_out_next": (
        "Who's out next week ({dates})",
        "下周请假的人（{dates}）",
    ),
    "wording.nobody_out.nobody_in_your_team": ("Nobody in your team is out.", "团队中没有人请假。"),
    "wording.delegated_text.delegated_decides_your_approvals": (
        "Delegated: {delegate} decides your approvals, {dates}",
        "已委托：{delegate} 代你审批（{dates}）",
    ),
    "wording.button_not_valid.this_button_is_not": (
        "This button is not valid any more.",
        "此按钮已失效。",
    ),
    # bot/eval/runner.py
    "eval.click.cancelled_nothing_was_sent": (
        "(Cancelled: nothing was sent.)",
        "（已取消：没有提交任何内容。）",
    ),
    "eval.click.delegation_set": ("delegation set", "委托已生效"),
    "eval.click.confirmed_by": ("(Confirmed by {name}: {line})", "（{name} 已确认：{line}）"),
    "eval.click.not_done": ("(Not done: {e})", "（未完成：{e}）"),
    # the answer to a click on an approver's card (bot/conversation/interactions.py)
    "answer.approved": ("Approved", "已批准"),
    "answer.rejected_told": ("Rejected; {who} is told", "已驳回，将通知 {who}"),
    "answer.already_decided": ("Already decided", "已处理"),
    "answer.give_reason": ("Give a reason to reject", "请填写驳回理由"),
    "answer.ok": ("OK", "好的"),
    # the short line under a refused step (the answer carries the sentence)
    "step.refused": ("Not possible as asked", "无法按此办理"),
    "step.refused.overlapping_leave": ("Overlaps leave you already have", "与已有的请假重叠"),
    "step.refused.insufficient_balance": ("Not enough balance left", "余额不足"),
    "step.refused.validation_failed": ("Some details need changing", "有信息需要修改"),
    "step.refused.not_allowed": ("Not yours to do", "无权操作"),
    "step.refused.not_found": ("Not found", "未找到"),
    "step.refused.invalid_state": ("No longer possible", "已无法操作"),
    # why a step is held by someone other than its approver (workflow.models.RoutedReason)
    "routed.delegated": (
        "{from_} delegated approvals to {to} until {until}.",
        "{from_} 已委托 {to} 代为审批（至 {until}）。",
    ),
    "routed.on_leave": (
        "{from_} is on leave until {until}; sent to {to}.",
        "{from_} 休假至 {until}，已转交 {to} 审批。",
    ),
    "routed.escalated": (
        "No decision by {from_} within {hours} working hours; escalated to {to}.",
        "{from_} 在 {hours} 个工作小时内未审批，已上报 {to} 审批。",
    ),
    "routed.unknown": ("Sent to {to}.", "已转交 {to} 审批。"),
    # context lines
    "line.submitted": ("Submitted {at} · {id}", "提交于 {at} · {id}"),
    "line.replaced": ("Replaced by the card below", "已被下方的新卡片取代"),
    "line.and_more": ("…and {n} more", "……另有 {n} 项"),
    "line.only_you": (
        "Nothing happens until you click {verb}. Only {who} can confirm this.",
        "点击「{verb}」后才会生效；只有 {who} 可以确认。",
    ),
    # labels of facts and paragraphs
    "label.requester": ("Requester", "申请人"),
    "label.request": ("Request", "申请"),
    "label.type": ("Type", "类型"),
    "label.dates": ("Dates", "日期"),
    "label.working_days": ("Working days", "工作日"),
    "label.balance_after": ("Balance after", "审批后余额"),
    "label.balance_after_submit": ("Balance after", "提交后余额"),
    "label.approval": ("Approval", "审批人"),
    "label.decision": ("Decision", "决定"),
    "label.step": ("Step", "步骤"),
    "label.to": ("To", "提醒对象"),
    "label.status": ("Status", "状态"),
    "label.submitted_on": ("Submitted", "提交日期"),
    "label.delegate": ("Delegate", "代理审批人"),
    "label.from": ("From", "开始"),
    "label.until": ("Until", "结束"),
    "label.reason": ("Reason", "事由"),
    "label.reject_reason": ("Reason", "理由"),
    "label.comment": ("Comment", "意见"),
    "label.note": ("Note", "附言"),
    "label.team_out": ("Also out in the team then", "同组同期请假"),
    "value.days_left": ("{days} left", "剩余 {days}"),
    "value.yes": ("Yes", "是"),
    "value.no": ("No", "否"),
    "word.nobody": ("Nobody", "无"),
    "value.awaiting": (" (awaiting approval)", "（审批中）"),
    # true on every surface: Feishu and the terminal have no Home tab
    "line.digest_where": (
        "Decide each one on its own card, or ask me.",
        "可在各自的审批卡片上处理，或直接问我。",
    ),
    # values of choice fields (a value not listed shows as itself, capitalised)
    "choice.travel": ("Travel", "差旅"),
    "choice.meals": ("Meals", "餐饮"),
    "choice.equipment": ("Equipment", "设备"),
    "choice.training": ("Training", "培训"),
    "choice.other": ("Other", "其他"),
    # buttons
    "button.submit": ("Submit", "提交"),
    "button.approve": ("Approve", "批准"),
    "button.reject": ("Reject", "驳回"),
    "button.withdraw": ("Withdraw", "撤回"),
    "button.remind": ("Send reminder", "发送提醒"),
    "button.delegate": ("Delegate", "确认委托"),
    "button.confirm": ("Confirm", "确认"),
    "button.counter": ("Send suggestion", "发送建议"),
    "button.cancel": ("Cancel", "取消"),
    "button.back": ("Back", "返回"),
    # titles of confirm cards, by pending kind
    "confirm.title.submit": ("Submit this request?", "提交此申请？"),
    "confirm.title.approve": ("Approve this request?", "批准此申请？"),
    "confirm.title.reject": ("Reject this request?", "驳回此申请？"),
    "confirm.title.withdraw": ("Withdraw this request?", "撤回此申请？"),
    "confirm.title.remind": ("Send a reminder?", "发送催办提醒？"),
    "confirm.title.delegate": ("Delegate your approvals?", "委托他人代为审批？"),
    "confirm.title.counter": ("Suggest other dates?", "建议改期？"),
    "confirm.title.other": ("Please confirm", "请确认"),
    "confirm.title.done": ("Confirmed", "已确认"),
    "confirm.title.cancelled": ("Cancelled", "已取消"),
    "confirm.title.replaced": ("Replaced", "已被取代"),
    # the approver's card
    # {what} is `what_in_sentence`, as in the approve dialog ("Approve Oliver Smith's sick leave, …?")
    "fallback.approval": ("{who} asks you to approve their {what}", "{who} 请你审批{what}"),
    # news before a card's own fallback (a reminder, an answered suggestion); see `with_news`
    "fallback.news": ("{news} — {text}", "{news}。{text}"),
    "fallback.dash": (" — {text}", "：{text}"),
    "banner.reminder": ("Reminder from {who}", "{who} 的催办提醒"),
    "banner.reminder_note": (": {note}", "：{note}"),
    "dialog.approve.title": ("Approve this request?", "批准此申请？"),
    "dialog.approve.text": ("Approve {who}'s {what}?", "批准 {who} 的{what}？"),
    "dialog.approve.then": (" It then goes to {who} ({step}).", "之后转 {who}（{step}）审批。"),
    "dialog.approve.last": (" This is the last step.", "这是最后一步。"),
    "dialog.reject.text": (
        "{who} will be told, with your reason.",
        "将通知 {who}，并附上你的理由。",
    ),
    # balances with accrual (agent/tools/describe.carried_note, accrual_note)
    "balance.carried": (", of which {days} carried over", "，其中 {days} 天为上年结转"),
    "balance.carried_expiring": (
        ", of which {days} carried over, expiring {on}",
        "，其中 {days} 天为上年结转，{on}到期",
    ),
    "balance.accrues": (" (+{days} a month)", "（每月 +{days} 天）"),
    "balance.accrues_carry": (
        " (+{days} a month; up to {cap} carry into {year})",
        "（每月 +{days} 天；最多 {cap} 天结转至 {year} 年）",
    ),
    "balance.accrues_carry_until": (
        " (+{days} a month; up to {cap} carry into {year} until {on})",
        "（每月 +{days} 天；最多 {cap} 天结转至 {year} 年，{on}前有效）",
    ),
    # the team calendar feed (bot/conversation/feeds.py, bot/calendar_route.py)
    "feed.event": ("{name} — out", "{name} — 请假"),
    "feed.calendar_name": ("Team leave · {team}", "团队请假 · {team}"),
    # a team with no name of its own: a manager's reports (bot/wording.py team_text)
    "team.reports_of": ("{name}'s team", "{name} 的团队"),
    "feed.created": (
        "Your team calendar link (approved leave of your team: names and dates only). Keep it "
        "to yourself — anyone with it can read the calendar; a new link turns this one off.\n"
        "{url}\nGoogle Calendar: Other calendars → + → From URL. Outlook: Add calendar → "
        "Subscribe from web. Feishu: Calendar → + → Subscribe to calendar → URL.",
        "你的团队日历链接（团队已批准的请假：仅姓名和日期）。请勿外传——持有链接即可查看；"
        "生成新链接后此链接即失效。\n{url}\nGoogle 日历：其他日历 → + → 通过网址添加。"
        "Outlook：添加日历 → 从 Web 订阅。飞书：日历 → + → 订阅日历 → 网址。",
    ),
    "feed.revoked": (
        "Your team calendar link is turned off; calendars subscribed to it stop updating.",
        "你的团队日历链接已停用，订阅它的日历将不再更新。",
    ),
    "feed.none": ("You have no team calendar link to turn off.", "你没有可停用的团队日历链接。"),
    "feed.active": ("Team calendar link: on", "团队日历链接：已开启"),
    "feed.title": ("Team calendar", "团队日历"),
    # the Feishu bot menu's items (bot/feishu/app.MENU_ITEMS)
    "menu.request_leave": ("Request leave", "请假"),
    "menu.calendar_feed": ("Team calendar link", "团队日历链接"),
    "button.feed_create": ("Team calendar link", "团队日历链接"),
    "button.feed_new": ("New calendar link", "重新生成日历链接"),
    "button.feed_revoke": ("Turn off calendar link", "停用日历链接"),
    "button.close": ("Close", "关闭"),
    "dialog.feed_revoke.title": ("Turn off the calendar link?", "停用日历链接？"),
    "dialog.feed_revoke.text": (
        "Calendars subscribed to it stop updating.",
        "订阅它的日历将不再更新。",
    ),
    "form.reject.label": ("Reason for rejecting", "驳回理由"),
    "form.reject.placeholder": ("{who} will see this reason.", "{who} 会看到这条理由。"),
    # a turn or click that failed below the conversation (the log has the detail)
    "error.platform_failed": (
        "{platform} did not answer me properly just now, so I could not finish. "
        "Please try again in a minute.",
        "{platform}暂时没有正常响应，我没能完成。请一分钟后再试。",
    ),
    "error.store_unreachable": (
        "I can't reach my database right now, so nothing was changed. Please try again in a minute.",
        "暂时无法连接数据库，没有做任何更改。请一分钟后再试。",
    ),
    "error.store_unreachable.retry": (
        "I can't reach my database right now; please try again in a minute.",
        "暂时无法连接数据库，请一分钟后再试。",
    ),
    # acting for someone (HR files or withdraws a person's leave)
    "label.on_behalf_of": ("On behalf of", "代办对象"),
    "label.filed_by": ("Filed by", "代办人"),
    "value.filed_by": ("{by} (HR), on behalf of {who}", "{by}（人事）代{who}提交"),
    "headline.acted_for.submitted": (
        "HR ({by}) filed this request for you.",
        "人事（{by}）已代你提交此申请。",
    ),
    "proposal.on_behalf": (" Filed on behalf of {who}.", "代{who}提交。"),
    "headline.acted_for.went_to": (" It went to {now}.", "已提交给 {now}审批。"),
    "headline.acted_for.withdrawn": (
        "HR ({by}) withdrew this request for you.",
        "人事（{by}）已代你撤回此申请。",
    ),
    # counter-offers: an approver suggests other dates, the requester accepts or declines
    "button.suggest_dates": ("Suggest other dates", "建议其他日期"),
    "button.accept": ("Accept", "接受"),
    "button.decline": ("Decline", "拒绝"),
    "button.send": ("Send", "发送"),
    "form.counter.title": ("Suggest other dates", "建议其他日期"),
    "form.counter.start": ("First day", "开始日期"),
    "form.counter.end": ("Last day", "结束日期"),
    # no "(optional)" here: Slack adds it to an optional input's label itself (it said it twice)
    "form.counter.note": ("Note to {who}", "给{who}的留言"),
    "form.optional": (" (optional)", "（可选）"),
    "label.asked_dates": ("Asked for", "原申请日期"),
    "line.asked_dates": ("Asked for: {dates}", "原申请日期：{dates}"),
    "label.suggested_dates": ("Suggested dates", "建议日期"),
    "headline.counter.proposed": (
        "{by} suggests other dates for your request.",
        "{by} 建议你的申请改期。",
    ),
    "line.counter.then": (
        "Accept, and {by} decides your request on these dates. Decline, and it stays as it is.",
        "接受后由 {by} 按新日期审批；拒绝则申请保持不变。",
    ),
    "line.counter.waiting": (
        "{by} suggested {dates}; waiting for {who}'s answer.",
        "{by} 已建议改为 {dates}，等待{who}答复。",
    ),
    "outcome.counter.accepted": (
        "You accepted {dates}; {by} decides your request on them.",
        "你已接受 {dates}，由 {by} 按新日期审批。",
    ),
    "outcome.counter.declined": (
        "You declined; your request stays {dates}.",
        "你已拒绝，申请保持 {dates}。",
    ),
    "outcome.counter.lapsed": (
        "These dates no longer apply: the request moved on.",
        "这些日期已不再适用：申请已有新进展。",
    ),
    "prompt.counter": ("[a]ccept / [d]ecline / [s]kip? ", "[a]接受 / [d]拒绝 / [s]跳过？"),
    "line.no_offers": (
        "No approver has suggested other dates for your requests.",
        "没有审批人为你的申请建议其他日期。",
    ),
    "answer.counter.sent": ("Suggested {dates} to {who}", "已向{who}建议改为 {dates}"),
    "headline.counter.accepted": (
        "{who} accepted your suggested dates ({dates}); approve or reject them on the new card.",
        "{who} 接受了你建议的日期（{dates}），请在新卡片上批准或驳回。",
    ),
    "headline.counter.declined": (
        "{who} declined your suggested dates; the request stays {dates}.",
        "{who} 拒绝了你建议的日期，申请保持 {dates}。",
    ),
    "line.dates_changed": (
        "The dates changed to {dates}: decide it on the newer card.",
        "日期已改为 {dates}：请在较新的卡片上审批。",
    ),
    # bulk decisions: the digest and the Home tab
    "button.approve_selected": ("Approve selected", "批准所选"),
    "dialog.bulk.title": ("Approve the selected?", "批准所选申请？"),
    "dialog.bulk.text": (
        "Each selected request is approved on its own; you get one summary.",
        "将逐一批准所选申请，完成后给你一份汇总。",
    ),
    "answer.bulk.summary": ("Approved {done} of {total}.", "已批准 {done}/{total} 项。"),
    "answer.bulk.refused": ("Not approved: {request} — {why}", "未批准：{request} — {why}"),
    "word.a_request": ("a request", "一项申请"),
    "answer.bulk.none": ("Select at least one request.", "请至少选择一个申请。"),
    # the offline planner asking for a form field the organisation added (agent/planner/_forms.py);
    # field.problem.* say why a value does not fit, there and in a refused request
    "planner.field.ask": ("What is the {label}?", "{label}是什么？"),
    "field.problem.date": ("“{value}” is not a date I can read.", "“{value}”不是可识别的日期。"),
    "field.problem.number": ("“{value}” is not a number.", "“{value}”不是数字。"),
    "field.problem.min": ("The {label} must be at least {min}.", "{label}不能小于 {min}。"),
    "field.problem.max": ("The {label} must be at most {max}.", "{label}不能大于 {max}。"),
    "field.problem.choice": (
        "The {label} is one of {choices}.",
        "{label}须为以下之一：{choices}。",
    ),
    "field.problem.too_long": (
        "That is too long for the {label} (at most {max} characters).",
        "{label}太长了（最多 {max} 个字符）。",
    ),
    "field.problem.bool": ("Please answer yes or no.", "请回答“是”或“否”。"),
    "field.problem.text": ("“{value}” cannot be the {label}.", "“{value}”不能作为{label}。"),
    # a form refused by the engine's validation (agent/refusals.py), one sentence per field
    "field.problem.required": ("The {label} is required.", "请填写{label}。"),
    "field.problem.unknown": (
        "“{name}” is not on this form (its fields: {fields}).",
        "“{name}”不在此表单中（表单字段：{fields}）。",
    ),
    # the engine's other refusals of one field (workflow/delegation.py, counter.py, leave.py, …)
    "field.problem.pick_date": ("Pick a date (YYYY-MM-DD).", "请选择日期（YYYY-MM-DD）。"),
    "field.problem.delegate_self": (
        "You cannot delegate to yourself; choose a colleague.",
        "不能委托给自己，请选择一位同事。",
    ),
    "field.problem.before_start": (
        "The last day is before the first day, {start}.",
        "结束日期早于开始日期{start}。",
    ),
    "field.problem.delegation_past": (
        "The delegation would end on {end}, which has passed; choose a last day from today on.",
        "委托的结束日期{end}已经过去，请选择今天或之后的日期。",
    ),
    "field.problem.chain_changes": (
        "Those dates ({days} working days) would change who has to approve; suggest dates of a "
        "similar length, or ask {name} to file a new request.",
        "这些日期（{days} 个工作日）会改变审批人；请建议天数相近的日期，或请{name}重新提交申请。",
    ),
    "field.problem.same_dates": (
        "Those are the dates already asked for; approve them instead, or suggest other days.",
        "这就是申请里的日期；请直接批准，或建议其他日期。",
    ),
    "field.problem.reject_reason": (
        "Please give a reason for the rejection.",
        "驳回时请填写理由。",
    ),
    "field.problem.no_step": ("This request has no step {n}.", "此申请没有第 {n} 步。"),
    "field.problem.decision": (
        "A decision is approve or reject, not “{value}”.",
        "审批结果只能是批准或驳回，不能是“{value}”。",
    ),
    "field.problem.no_items": ("Select at least one request to decide.", "请至少选择一个申请。"),
    "field.problem.too_many_items": (
        "At most {max} requests can be decided at once; select fewer.",
        "一次最多处理 {max} 个申请，请少选一些。",
    ),
    "field.problem.no_working_day": (
        "{start} to {end} has no working day in it (weekends and public holidays are not "
        "counted), so there is nothing to take leave for.",
        "{start}至{end}没有工作日（周末和法定假日不计），无需请假。",
    ),
    "field.problem.too_far_ahead": (
        "Leave can be requested at most {days} days ahead; {start} is later than that.",
        "最多只能提前 {days} 天请假；{start}超出了范围。",
    ),
    "field.problem.too_far_back": (
        "Leave can be recorded at most {days} days after the fact; {start} is earlier.",
        "最多只能补请 {days} 天内的假；{start}太早了。",
    ),
    "field.problem.reason_required": (
        "This type of leave needs a reason.",
        "此类假期需要填写事由。",
    ),
    "field.problem.no_time": (
        "Noon to noon of {day} leaves no time off; choose the morning, the afternoon or the whole day.",
        "{day}中午到中午没有休假时间；请选择上午、下午或全天。",
    ),
    "field.problem.unread_date": (
        "{detail}",
        "“{value}”不是可识别的日期；请写成 2026-12-03、“明天”或“下周一”这样的形式。",
    ),
    "field.problem.calendar": ("{detail}", "日历算不出这些日期的工作日，请检查日期。"),
    "field.problem.past": (
        "The {label}, {day}, is still to come: give the day it happened, today ({today}) or earlier.",
        "{label}{day}还没到：请填写实际发生的日期（今天{today}或更早）。",
    ),
}


def say(code: str, locale: str, **values: object) -> str:
    """The catalogue's sentence for `code` in `locale`, with its values filled in."""
    en, zh = CATALOGUE[code]
    return (zh if locale == "zh" else en).format(**values)
