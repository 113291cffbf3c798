"""Facts in one user message: leave type, dates, reason, amounts, request ids, choices.

Each function reads one kind of fact from a normalized message; `_reading` decides which
of them a message is about.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from agent.dates import DateRange, duration_spans, find_dates, find_range, parse_days
from agent.planner._context import Context


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
REQUEST_ID = rx(r"\bR-[A-Z0-9]{8}\b")

# --- slots -------------------------------------------------------------------------------------

_TYPE_EXPLICIT = (
    ("unpaid", rx(r"\bunpaid\b|无薪|停薪")),
    ("sick", rx(r"\bsick\s+(?:leave|days?)\b|病假")),
    ("annual", rx(r"\bannual\s+(?:leave|days?)\b|年假|年休假")),
    ("personal", rx(r"\bpersonal\s+(?:leave|days?)\b|事假")),
)
# Kinds of leave people ask for that the demo organisation does not have; the planner names
# the configured ones instead of guessing.
UNKNOWN_TYPE = rx(
    r"(?P<zh>调休|婚假|产假|陪产假|丧假|育儿假|探亲假|护理假|哺乳假|工伤假|公假)"
    r"|\b(?P<en>comp(?:ensatory)?\s+(?:day|days|time|leave)|toil|time\s+off\s+in\s+lieu|lieu\s+days?"
    r"|(?:maternity|paternity|parental|bereavement|compassionate|study|marriage|jury)\s+(?:leave|duty|days?))\b"
)
_SICK_WORDS = rx(
    r"[\U0001F912\U0001F927\U0001F922\U0001F92E\U0001F637]|\b(?:sick|ill|unwell|poorly|flu|fever|cold|cough|covid|migraine|headache|stomach\s*(?:ache|bug)?|food\s+poisoning|toothache|doctor|dentist|gp|hospital|surgery|not\s+feeling\s+well)\b"
    r"|生病|病了|不舒服|不太舒服|身体不好|难受|身体不适|肚子疼|肚子痛|胃疼|胃痛|头疼|头痛|发烧|发热|感冒|咳嗽|拉肚子|腹泻|牙疼|牙痛|看病|看医生|看牙|医院|住院|手术|病"
)
_PERSONAL_WORDS = rx(
    r"\b(?:personal|errands?|family\s+emergency|moving\s+house|move\s+house|wedding|funeral)\b|有事|办事|私事|搬家|婚礼|结婚|葬礼"
)
_ANNUAL_WORDS = rx(r"\b(?:annual|vacation|holidays?|pto|trip)\b|休假|度假|旅游|旅行")
HALF_ALONE = rx(
    r"\b(?:(?:in\s+)?the\s+)?(?P<en>morning|afternoon)\s+off\b|\boff\s+(?:in\s+)?the\s+(?P<en2>morning|afternoon)\b"
    r"|(?P<zh>上午|下午)(?:请|休|不来|请假)"
)

# Leaving early is that day's afternoon off ("can I leave early today?", "今天想早点走").
_EARLY = rx(
    r"\b(?:leave|leaving|go(?:ing)?\s+home|head(?:ing)?\s+(?:home|off)|finish(?:ing)?|knock(?:ing)?\s+off|clock(?:ing)?\s+out|sign(?:ing)?\s+off)\s+early\b"
    r"|早退|早点(?:走|回家|下班|离开)|提前(?:走|下班|回家|离开)"
)

_CAUSE = rx(
    r"\b(?:flu|fever|cold|cough|covid|migraine|headache|stomach|food\s+poisoning|toothache|dentist|doctor|gp|hospital|surgery|operation|appointment|check-?up|injur(?:y|ed)|back\s+pain|wedding|funeral|moving|family|childcare|kids?|son|daughter|errands?|bank|visa|exam|trip|christmas|new\s+year|holiday\s+to|travel)\b"
    r"|\b(?:interview|passport|court|jury|graduation|ceremony)\b"
    r"|肚子|胃|头疼|头痛|发烧|发热|感冒|咳嗽|拉肚子|腹泻|牙|看病|看医生|医院|体检|手术|住院|受伤|腰|结婚|婚礼|葬礼|丧|搬家|家里|家中|孩子|小孩|老人|办事|办证|签证|考试|旅游|旅行|回老家|探亲|有事|不舒服|身体不适"
    r"|嗓子|喉咙|过敏|肠胃|发炎|头晕|疼|痛|家长会|护照|证件|手续|银行|面试|毕业|典礼|^\s*(?:要|得|需要)?去[\u4e00-\u9fff]{2,}"
)
_EXPLICIT_REASON = (
    rx(
        r"\b(?:because(?:\s+of)?|due\s+to|reason\s*(?:is|:)|as\s+i\s+(?:have|am|need)|since\s+i(?:'m|\s+am|\s+have)?)\s*(?P<r>[^.;!?\n]+)"
    ),
    rx(r"(?:因为|由于|原因是?|理由是?|事由是?|为了)[:：]?\s*(?P<r>[^，,。.;；!！?？\n]+)"),
)
_FOR_REASON = rx(
    r"\bfor\s+(?P<r>(?!the\s+day\b|a\s+day\b|(?:a|the)\s+(?:week|morning|afternoon)\b|(?:the\s+)?rest\b)(?:a\s+|an\s+|the\s+|my\s+|some\s+)?[a-z][^.;!?\n]*)"
)
REASON_MARK = rx(
    r"\breason\s*(?:is\s*)?[:：]|\breason\s+is\b|\bbecause\b|\bdue\s+to\b|\bcomment\s*[:：]|\bnote\s*[:：]"
    r"|理由|原因|事由|因为|由于|备注"
)
_CLAUSES = re.compile(r"[,，.。;；!！?？\n]+|\s[-–—]+\s*|\s*[–—]+\s*")
_DASH_TAIL = re.compile(r"(?:\s[-–—]+|[–—]+)\s*(?P<r>[^-–—]+?)\s*$")
_EN_EDGE = rx(
    r"^(?:(?:i'?m|i'll|i'd|i|will|be|would|like|want|i\s+am|i\s+have|i've\s+got|i've|i\s+got|got|have|having|with|feeling|feel|a|an|the|my|need|needs|to|take|taking|off|leave|please|so|and|because|for|on|from|at|it's|its|some|bit\s+of|of|just|also|but|really|still|gonna|going)\s+)+"
)
_EN_TAIL = rx(
    r"(?:\s+(?:on|from|to|until|and|for|the|a|an|off|leave|please|so|today|then|day|days|at|in|of|i|need|want|take|off))+$"
)
_EN_LEAVE_PHRASE = rx(
    r"\b(?:i(?:'d|\s+would)?\s+like\s+to\s+|i\s+want\s+to\s+|i\s+need\s+to\s+|can\s+i\s+|could\s+i\s+|please\s+)?(?:take\s+|book\s+|request\s+|have\s+)?"
    r"(?:(?:a\s+|the\s+|some\s+)?(?:sick|annual|personal|unpaid)\s+)?(?:leave|days?\s+off|time\s+off|off)\b"
    r"|\b(?:a\s+|the\s+)?(?:sick|annual|personal|unpaid)\s+days?\b"
)
_ZH_LEAVE_PHRASE = rx(
    r"(?:我)?(?:想|要|需要|得)?(?:请|申请|休)(?:个|一下)?(?:病|年|事|无薪)?假|(?:病|年|事|无薪)假|请假|休假|请(?=\s*$)"
)
_ZH_EDGE = re.compile(
    r"^(?:我|今天|明天|因为|由于|有点|有些|突然|想|要|需要|得|请|申请|所以|就|然后|还|也|又|身体)+"
)
_ZH_TAIL = re.compile(r"(?:了|的|啦|呢|吧|呀|所以|想|要|请|去)+$")
_GENERIC_REASONS = {"sick", "ill", "unwell", "poorly", "病", "生病", "病了", "leave", "off", "day"}
_GENERIC_REASONS |= {"days", "personal", "annual", "vacation", "holiday"}

_CHOICE = rx(
    r"^\s*(?:the\s+)?(?P<en>first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)(?:\s+one)?\s*[.!]?\s*$"
    r"|^\s*#?(?P<num>[1-9])\s*[.!]?\s*$|^\s*第(?P<zh>[一二三四五1-5])(?:个|项|条)?\s*$|^\s*最后(?:一个|那个)\s*$"
)
_ORDINALS = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3}
_ORDINALS |= {"4th": 3, "fifth": 4, "5th": 4, "一": 0, "二": 1, "三": 2, "四": 3, "五": 4}
_ORDINALS |= {"fifth": 4, "5th": 4, "一": 0, "二": 1, "三": 2, "四": 3, "五": 4}

_AMOUNT = rx(
    r"(?P<pre>¥|￥|£|\$|€|\b(?:rmb|cny|gbp|usd|eur)\b)?\s*(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*"
    r"(?P<post>元|块钱?|\b(?:rmb|cny|yuan|gbp|pounds?|quid|usd|dollars?|bucks|eur|euros?)\b|€|£)?"
)
_CURRENCY = {"¥": "CNY", "￥": "CNY", "rmb": "CNY", "cny": "CNY", "yuan": "CNY", "元": "CNY"}
_CURRENCY |= {"块": "CNY", "块钱": "CNY", "£": "GBP", "gbp": "GBP", "pound": "GBP", "pounds": "GBP"}
_CURRENCY |= {"quid": "GBP", "$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD"}
_CURRENCY |= {"bucks": "USD", "€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR"}
_CATEGORIES = (
    (
        "travel",
        rx(
            r"\b(?:taxi|cab|uber|lyft|didi|train|flight|plane|airfare|hotel|bus|metro|parking|fuel|petrol|mileage|travel)\b|打车|出租|滴滴|高铁|火车|机票|飞机|酒店|住宿|地铁|公交|停车|油费|差旅|交通"
        ),
    ),
    (
        "meals",
        rx(
            r"\b(?:lunch|dinner|breakfast|meals?|food|coffee|restaurant|drinks)\b|午饭|晚饭|早饭|午餐|晚餐|早餐|餐|吃饭|聚餐|饭|咖啡"
        ),
    ),
    (
        "equipment",
        rx(
            r"\b(?:laptop|monitor|keyboard|mouse|headset|phone|equipment|hardware|cable|charger|chair|desk)\b|电脑|笔记本|显示器|键盘|鼠标|耳机|手机|设备|硬件|充电器|椅子"
        ),
    ),
    (
        "training",
        rx(
            r"\b(?:course|training|conference|book|books|certification|exam|workshop|seminar|ticket)\b|培训|课程|会议|书|认证|考试|讲座"
        ),
    ),
)
_EXPENSE_NOISE = rx(
    r"\b(?:i\s+(?:want|need|would\s+like)\s+to|please|can\s+you|could\s+you|help\s+me|submit|file|make|an?|the|my|i|we)\b"
    r"|\b(?:expenses?|reimburse(?:ment)?|claim(?:\s+(?:back|for))?|receipt)\b|\bfor\b|\bon\b|\bspent\b|\bpaid\b"
    r"|报销|报账|发票|我要|我想|帮我|请|一下|申请|费用|花了|用于|的钱|钱"
)
_DESTINATION = rx(
    r"\b(?:to|in|visit(?:ing)?)\s+(?P<en>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))"
    r"|(?:去|到|赴|前往)(?P<zh>[\u4e00-\u9fff]{2,6}?)(?=出差|开会|参加|拜访|见|办|，|,|。|$|\s|从|下周|明天|后天|[0-9])"
)
_PURPOSE = rx(
    r"\bfor\s+(?P<en>(?:a\s+|an\s+|the\s+)?[a-z][^.,;!?\n]*)|(?P<en2>\b(?:attend|meet|visit|see)\s+[^.,;!?\n]+)"
    r"|(?P<zh>(?:参加|开会|拜访|见|培训|谈|签约|支持|调研)[^，,。.;；!！?？\n]*)"
)
_COST_MARK = rx(
    r"\b(?:budget|cost|costs|estimated|about|around|approx(?:imately)?)\b|预算|费用|大概|大约|约"
)
SCOPE_ALL = rx(
    r"\b(?:everyone|everybody|whole\s+company|company|all\s+teams|across\s+the\s+company|all)\b|全公司|所有人|全部|大家"
)
# "more" on its own, after a list that has another page: that page.
MORE = rx(
    r"^\s*(?:(?:show|give|list)\s+(?:me\s+)?)?(?:(?:some\s+)?more|the\s+rest|next(?:\s+page)?)"
    r"(?:\s+(?:please|pls))?\s*[?.!]?\s*$"
    r"|^\s*(?:更多|下一页|下页|继续|还有呢|剩下的呢?|后面的呢?|其余的呢?)\s*[?？。!！]?\s*$"
)
STATUS_FILTERS = (
    (
        "pending",
        rx(
            r"\b(?:pending|waiting|open|in\s+progress|outstanding)\b|待审批|审批中|未审批|进行中|待批"
        ),
    ),
    ("approved", rx(r"\bapproved\b|已批准|已通过|批准了的|通过了的")),
    ("rejected", rx(r"\b(?:rejected|declined)\b|驳回|被拒|拒绝了的")),
    ("withdrawn", rx(r"\b(?:withdrawn|cancelled|canceled)\b|撤回|已撤销")),
)
_YEAR = rx(r"\b(?P<y>20\d{2})\b|(?P<next>next\s+year|明年)|(?P<last>last\s+year|去年)")


def normalize(text: str) -> str:
    """Full-width characters to ASCII, one for one."""
    return text.translate(_FULLWIDTH)


def request_ids(text: str) -> list[str]:
    """Request ids in `text`, upper-cased, first occurrence order."""
    seen: list[str] = []
    for match in REQUEST_ID.finditer(normalize(text)):
        found = match.group(0).upper()
        if found not in seen:
            seen.append(found)
    return seen


def choice_of(text: str) -> int | None:
    match = _CHOICE.search(text)
    if not match:
        return None
    if match.group("en"):
        word = match.group("en").lower()
        return -1 if word == "last" else _ORDINALS[word] + 1
    if match.group("num"):
        return int(match.group("num"))
    if match.group("zh"):
        zh = match.group("zh")
        return int(zh) if zh.isdigit() else _ORDINALS[zh] + 1
    return -1


# --- leave -------------------------------------------------------------------------------------


def leave_type(text: str) -> str | None:
    """The leave type a message names or implies (a symptom means sick leave); None if none."""
    explicit = [(m.start(), key) for key, rx in _TYPE_EXPLICIT if (m := rx.search(text))]
    if explicit:
        return min(explicit)[1]
    if _SICK_WORDS.search(text):
        return "sick"
    if _PERSONAL_WORDS.search(text):
        return "personal"
    if _ANNUAL_WORDS.search(text):
        return "annual"
    return None


def leave_slots(text: str, today: date) -> dict[str, Any]:
    """Leave type, dates, half days and reason from one message."""
    slots: dict[str, Any] = {}
    if kind := leave_type(text):
        slots["leave_type"] = kind
    slots |= _leave_dates(text, today)
    if reason := leave_reason(text, today):
        slots["reason"] = reason
    return slots


def _leave_dates(text: str, today: date) -> dict[str, Any]:
    rng = find_range(text, today)
    days = parse_days(text)
    mentions = find_dates(text, today)
    if _EARLY.search(text) and not days:
        day = today if rng is None else rng.start
        if rng is None or (rng.end == day and not (rng.start_half or rng.end_half)):
            rng = DateRange(day, day, start_half=True)
    if rng is None:
        half = HALF_ALONE.search(text)
        side = _HALF_WORD.search(text) if days == 0.5 else None
        if half is None and side is None:
            return {"days": days} if days else {}
        found = half or side
        assert found is not None
        word = next(g for g in found.groups() if g).lower()
        pm = word in ("afternoon", "下午")
        rng = DateRange(today, today, start_half=pm, end_half=not pm)
    slots: dict[str, Any] = {"start": rng.start}
    halves = rng.start_half or rng.end_half
    single_week = len(mentions) == 1 and mentions[0].last is not None and rng.end != rng.start
    if rng.end != rng.start and not (single_week and days):
        slots["end"] = rng.end
    elif days and days != 1 and not (halves and days <= 1):
        slots["days"] = days
    if rng.start_half:
        slots["start_half"] = True
    if rng.end_half:
        slots["end_half"] = True
    if len(rng.days) > 1 and _gap_between(rng.days):
        slots["listed"] = rng.days
    return slots


_HALF_WORD = rx(r"\b(morning|afternoon)\b|(上午|下午)")


def _gap_between(days: tuple[date, ...]) -> bool:
    """Whether a working day (Monday to Friday) lies between listed days and is not one of them."""
    day = days[0]
    while day < days[-1]:
        day += timedelta(days=1)
        if day.weekday() < 5 and day not in days:
            return True
    return False


def unknown_type(text: str) -> str | None:
    """A kind of leave named that the organisation has no type for ("调休", "comp day")."""
    found = UNKNOWN_TYPE.search(text)
    return found.group(0) if found else None


def blank(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        for i in range(start, min(end, len(chars))):
            chars[i] = " "
    return "".join(chars)


def leave_reason(text: str, today: date) -> str | None:
    """The reason a leave message gives ("肚子疼", "flu", "dentist appointment"); None if none."""
    spans = [m.span for m in find_dates(text, today)] + duration_spans(text)
    blanked = blank(text, spans)
    for pattern in _EXPLICIT_REASON:
        for match in pattern.finditer(blanked):
            reason = _clean_reason(match.group("r"))
            if reason:
                return reason
    for clause in _CLAUSES.split(blanked):
        if _CAUSE.search(clause):
            reason = _clean_reason(clause)
            if reason:
                return reason
    if (dash := _DASH_TAIL.search(blanked)) and not _LEAVE_WORDS.search(dash.group("r")):
        reason = _clean_reason(dash.group("r"))
        if reason:
            return reason
    for match in _FOR_REASON.finditer(blanked):
        reason = _clean_reason(match.group("r"))
        if reason:
            return reason
    return None


_LEAVE_WORDS = rx(r"\b(?:leave|off|pto|holiday|vacation)\b|假")


def _clean_reason(text: str) -> str | None:
    text = _ZH_LEAVE_PHRASE.sub(" ", text)
    text = _EN_LEAVE_PHRASE.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip(" ,.:;，。：；!！?？-")
    for _ in range(3):
        text = _EN_EDGE.sub("", text).strip()
        text = _EN_TAIL.sub("", text).strip()
        text = _ZH_EDGE.sub("", text).strip()
        text = _ZH_TAIL.sub("", text).strip(" ,.:;，。：；")
    if not text or text.lower() in _GENERIC_REASONS or not re.search(r"[\w\u4e00-\u9fff]", text):
        return None
    return text[:200]


def range_slots(text: str, today: date) -> dict[str, Any]:
    rng = find_range(text, today)
    if rng is None:
        return {}
    slots: dict[str, Any] = {"start": rng.start}
    if rng.end != rng.start:
        slots["end"] = rng.end
    if rng.start_half:
        slots["start_half"] = True
    if rng.end_half:
        slots["end_half"] = True
    return slots


# --- decisions, withdrawals, reminders -----------------------------------------------------------

_COMMENT = (
    rx(
        r"\b(?:because(?:\s+of)?|since|as|due\s+to|reason\s*(?:is|:)?|comment\s*:?|note\s*:?|saying|with\s+(?:the\s+)?(?:comment|reason|note))\s*[:,]?\s*(?P<c>[^\n]+)"
    ),
    rx(r"(?:理由|原因|因为|由于|备注|意见|说明)(?:是|为)?[:：,，]?\s*(?P<c>[^\n]+)"),
    rx(r"R-[A-Z0-9]{8}\s*[:：,，\-—]+\s*(?P<c>[^\n]+)"),
    # "reject it — short-staffed", "decline Priya's request, we need cover", "驳回，那周上线"
    rx(
        r"\b(?:reject|decline|deny|refuse|turn\s+down)\b[^—–\-,:;\n]*?(?:\s[-–—]+\s*|[—–]+\s*|[,:;]\s*)(?P<c>[^\n]+)"
    ),
    rx(r"(?:驳回|拒绝|不同意|不批|否决|退回)[^，,:：;；\n]*?[，,:：;；]\s*(?P<c>[^\n]+)"),
)
_NOTE = (
    rx(
        r"\b(?:saying|say|tell\s+(?:him|her|them)|note\s*:|message\s*:|with\s+(?:a\s+)?note)\s*[:,]?\s*(?P<c>[^\n]+)"
    ),
    rx(r"(?:说|告诉他|告诉她|留言|备注)[:：,，]?\s*(?P<c>[^\n]+)"),
)


def _masked(text: str) -> str:
    """`text` with each request id's letters blanked, same length: a word read inside an id
    ("R-ASPV7NUC" holds "as") is no reason, comment or note."""
    return REQUEST_ID.sub(lambda m: "R-" + "0" * (len(m.group()) - 2), text)


def _first(patterns: tuple[re.Pattern[str], ...], group: str, text: str, strip: str) -> str | None:
    """The first pattern's `group`, read on the masked text and cut from `text` itself."""
    masked = _masked(text)
    for pattern in patterns:
        if match := pattern.search(masked):
            found = text[match.start(group) : match.end(group)].strip(strip)
            if found:
                return found[:500]
    return None


def comment_of(text: str) -> str | None:
    return _first(_COMMENT, "c", text, " .。,，:：")


def note_of(text: str) -> str | None:
    return _first(_NOTE, "c", text, " .。,，:：")


def explicit_reason(text: str) -> str | None:
    return _first(_EXPLICIT_REASON, "r", text, " .。,，")


def year_of(text: str, today: date) -> int | None:
    match = _YEAR.search(text)
    if not match:
        return None
    if match.group("y"):
        return int(match.group("y"))
    return today.year + 1 if match.group("next") else today.year - 1


# --- expenses and trips ------------------------------------------------------------------------


def _amounts(
    text: str, ids_and_dates: list[tuple[int, int]]
) -> list[tuple[float, str | None, int, int]]:
    blanked = blank(text, ids_and_dates)
    found: list[tuple[float, str | None, int, int]] = []
    for match in _AMOUNT.finditer(blanked):
        raw = match.group("num").replace(",", "")
        try:
            value = float(raw)
        except ValueError:  # pragma: no cover - the pattern only matches numbers
            continue
        marker = (match.group("pre") or match.group("post") or "").lower()
        currency = _CURRENCY.get(marker) if marker else None
        found.append((value, currency, match.start(), match.end()))
    return found


def default_currency(timezone: str) -> str | None:
    if timezone in ("Asia/Shanghai", "Asia/Chongqing", "Asia/Harbin", "Asia/Urumqi", "PRC"):
        return "CNY"
    if timezone == "Europe/London":
        return "GBP"
    if timezone.startswith("America/"):
        return "USD"
    if timezone.startswith("Europe/"):
        return "EUR"
    return None


def expense_slots(text: str, ctx: Context) -> dict[str, Any]:
    """Amount, currency, category, date and description of an expense from one message."""
    slots: dict[str, Any] = {}
    mentions = find_dates(text, ctx.today, past="expense.spent_on" in ctx.past)
    spans = [m.span for m in mentions] + [m.span() for m in REQUEST_ID.finditer(text)]
    amounts = _amounts(text, spans)
    if amounts:
        value, currency, start, end = next((a for a in amounts if a[1]), amounts[0])
        slots["amount"] = int(value) if value == int(value) else value
        if currency:
            slots["currency"] = currency
        spans.append((start, end))
    for key, pattern in _CATEGORIES:
        if pattern.search(text):
            slots["category"] = key
            break
    if mentions:
        slots["spent_on"] = mentions[0].day
    description = _description(blank(text, spans))
    if description:
        slots["description"] = description
    return slots


def _description(text: str) -> str | None:
    text = _EXPENSE_NOISE.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip(" ,.:;，。：；!！?？-")
    # a date cut out just before a comma leaves "team lunch , meals"
    text = re.sub(r" (?=[,.:;，。：；])", "", text)
    text = _EN_TAIL.sub("", text).strip(" ,.:;，。：；")
    text = _ZH_TAIL.sub("", text).strip(" ,.:;，。：；")
    if not text or not re.search(r"[A-Za-z\u4e00-\u9fff]", text):
        return None
    return text[:200]


def trip_slots(text: str, today: date) -> dict[str, Any]:
    """Destination, dates, purpose and estimated cost of a business trip from one message."""
    slots: dict[str, Any] = {}
    mentions = find_dates(text, today)
    spans = [m.span for m in mentions] + duration_spans(text)
    blanked = blank(text, spans)
    if match := _DESTINATION.search(blanked):
        destination = (match.group("en") or match.group("zh") or "").strip()
        if destination and not find_dates(destination, today):
            slots["destination"] = destination
    rng = find_range(text, today)
    if rng is not None:
        slots["start"] = rng.start
        slots["end"] = rng.end
        if rng.end == rng.start and (days := parse_days(text)) and days >= 1:
            slots["end"] = rng.start + timedelta(days=int(days) - 1)
    if match := _PURPOSE.search(blanked):
        purpose = match.group("en") or match.group("en2") or match.group("zh") or ""
        purpose = re.sub(r"^(?:a|an|the)\s+", "", purpose.strip(" .。,，"), flags=re.IGNORECASE)
        purpose = _EN_TAIL.sub("", purpose).strip()
        if purpose and not _COST_MARK.match(purpose):
            slots["purpose"] = purpose[:200]
    if _COST_MARK.search(text):
        amounts = _amounts(text, spans)
        if amounts:
            value = next((a for a in amounts if a[1]), amounts[0])[0]
            slots["estimated_cost"] = int(value) if value == int(value) else value
    return slots
