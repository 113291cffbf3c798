"""Date expressions in English and Chinese, resolved against a fixed today (Wed 2 Dec 2026)."""

from __future__ import annotations

from datetime import date

import pytest

from agent.dates import (
    DateParseError,
    DateRange,
    cn_number,
    find_dates,
    find_range,
    parse_days,
    resolve_date,
)

TODAY = date(2026, 12, 2)  # a Wednesday


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-12-03", date(2026, 12, 3)),
        ("2027-01-15", date(2027, 1, 15)),
        ("2026/12/3", date(2026, 12, 3)),
        ("2027年1月5日", date(2027, 1, 5)),
        ("Dec 3", date(2026, 12, 3)),
        ("dec. 3", date(2026, 12, 3)),
        ("3 December", date(2026, 12, 3)),
        ("December 3rd", date(2026, 12, 3)),
        ("the 3rd of December", date(2026, 12, 3)),
        ("Dec 3, 2027", date(2027, 12, 3)),
        ("12月3日", date(2026, 12, 3)),
        ("12月3号", date(2026, 12, 3)),
        ("十二月三日", date(2026, 12, 3)),
        ("3号", date(2026, 12, 3)),
        ("二十号", date(2026, 12, 20)),
        ("the 3rd", date(2026, 12, 3)),
        ("下个月3号", date(2027, 1, 3)),
        ("today", TODAY),
        ("tomorrow", date(2026, 12, 3)),
        ("Tomorrow.", date(2026, 12, 3)),
        ("the day after tomorrow", date(2026, 12, 4)),
        ("yesterday", date(2026, 12, 1)),
        ("今天", TODAY),
        ("明天", date(2026, 12, 3)),
        ("后天", date(2026, 12, 4)),
        ("大后天", date(2026, 12, 5)),
        ("昨天", date(2026, 12, 1)),
        ("on Friday", date(2026, 12, 4)),
        ("this Friday", date(2026, 12, 4)),
        ("next Monday", date(2026, 12, 7)),
        ("next Friday", date(2026, 12, 11)),
        ("Friday next week", date(2026, 12, 11)),
        ("last Friday", date(2026, 11, 27)),
        ("周一", date(2026, 12, 7)),
        ("星期五", date(2026, 12, 4)),
        ("星期天", date(2026, 12, 6)),
        ("礼拜一", date(2026, 12, 7)),
        ("下周一", date(2026, 12, 7)),
        ("下周五", date(2026, 12, 11)),
        ("下下周一", date(2026, 12, 14)),
        ("这周五", date(2026, 12, 4)),
        ("本周五", date(2026, 12, 4)),
        ("next week", date(2026, 12, 7)),
        ("下周", date(2026, 12, 7)),
        ("12/25", date(2026, 12, 25)),
        ("25/12", date(2026, 12, 25)),
        ("Friday afternoon", date(2026, 12, 4)),
        ("２０２６－１２－０３", date(2026, 12, 3)),
        ("12.24", date(2026, 12, 24)),
    ],
)
def test_resolve_date_reads_english_and_chinese_expressions(text, expected):
    """Absolute, relative, weekday and week expressions resolve to the intended day."""
    assert resolve_date(text, TODAY) == expected


def test_bare_weekday_is_the_coming_one_today_included():
    """A weekday alone means the coming one; said on that weekday it means today."""
    assert resolve_date("Wednesday", TODAY) == TODAY
    assert resolve_date("Monday", TODAY) == date(2026, 12, 7)
    assert resolve_date("周三", TODAY) == TODAY


def test_this_week_day_in_chinese_may_be_in_the_past():
    """这周一 is Monday of this week even when it has passed."""
    assert resolve_date("这周一", TODAY) == date(2026, 11, 30)


def test_dates_without_a_year_roll_over_to_next_year_when_past():
    """A month and day already past this year mean next year."""
    assert resolve_date("Dec 1", TODAY) == date(2027, 12, 1)
    assert resolve_date("12月1日", TODAY) == date(2027, 12, 1)
    assert resolve_date("Jan 4", TODAY) == date(2027, 1, 4)
    assert resolve_date("Dec 2", TODAY) == TODAY


def test_day_of_month_alone_rolls_to_next_month_when_past():
    """ "1号" said on 2 December is 1 January; a day a month lacks moves on to one that has it."""
    assert resolve_date("1号", TODAY) == date(2027, 1, 1)
    assert resolve_date("31号", date(2026, 11, 5)) == date(2026, 12, 31)


def test_leap_day_without_year_finds_the_next_leap_year():
    """29 February without a year is the next one that exists."""
    assert resolve_date("Feb 29", TODAY) == date(2028, 2, 29)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("blursday", "I could not read 'blursday' as a date; write it like 2026-12-03"),
        ("", "Please give a date"),
        ("12/3", "'12/3' could mean 3 December or 12 March; write it like 2026-12-03"),
        ("2月30日", "'2月30日' is not a real date"),
        ("Feb 30", "'Feb 30' is not a real date"),
        ("2026-02-30", "is not a real date"),
        ("32号", "is not a day of the month"),
        ("Dec 21-23", "is a range of days, not one date"),
        ("tomorrow and Friday", "I could not read"),
    ],
)
def test_resolve_date_refuses_with_an_actionable_message(text, message):
    """Unreadable, ambiguous or impossible dates raise DateParseError saying how to write them."""
    with pytest.raises(DateParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        resolve_date(text, TODAY)


def test_date_parse_error_is_a_value_error_and_keeps_the_text():
    """Callers catching ValueError catch it too; the original text is kept."""
    with pytest.raises(ValueError) as caught:
        resolve_date("someday", TODAY)
    assert isinstance(caught.value, DateParseError)
    assert caught.value.text == "someday"


def test_find_dates_lists_every_mention_with_its_span():
    """Each mention carries its text, its span in the original string and its day."""
    text = "I'm sick, off tomorrow and Tuesday"
    mentions = find_dates(text, TODAY)
    assert [m.text for m in mentions] == ["tomorrow", "Tuesday"]
    assert [m.day for m in mentions] == [date(2026, 12, 3), date(2026, 12, 8)]
    assert all(text[m.span[0] : m.span[1]] == m.text for m in mentions)


def test_find_dates_marks_half_days_and_floating_mentions():
    """A morning/afternoon after a date sets its half; a bare weekday is floating."""
    [friday] = find_dates("Friday afternoon", TODAY)
    assert (friday.half, friday.floating) == ("pm", True)
    [zh] = find_dates("周五上午", TODAY)
    assert zh.half == "am"
    [fixed] = find_dates("next Monday", TODAY)
    assert fixed.floating is False


def test_find_dates_ignores_words_that_only_look_like_dates():
    """Durations, ordinals like 第二天 and ordinary words are not dates."""
    assert find_dates("3天", TODAY) == []
    assert find_dates("I may be late", TODAY) == []
    assert find_dates("第二天", TODAY) == []
    assert find_dates("I sat down in the sun", TODAY) == []
    assert find_dates("1.5天", TODAY) == []
    assert find_dates("$12.30 and 12.50 GBP", TODAY) == []
    assert find_dates("version v1.2", TODAY) == []


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("from Monday to Wednesday", date(2026, 12, 7), date(2026, 12, 9)),
        ("next Monday to Wednesday", date(2026, 12, 7), date(2026, 12, 9)),
        ("next Monday until next Wednesday", date(2026, 12, 7), date(2026, 12, 9)),
        ("12月1日到12月3日", date(2027, 12, 1), date(2027, 12, 3)),
        ("12月21日至23日", date(2026, 12, 21), date(2026, 12, 23)),
        ("12月21-23日", date(2026, 12, 21), date(2026, 12, 23)),
        ("10号到12号", date(2026, 12, 10), date(2026, 12, 12)),
        ("下周一到周三", date(2026, 12, 7), date(2026, 12, 9)),
        ("Dec 21 - Jan 4", date(2026, 12, 21), date(2027, 1, 4)),
        ("Dec 21-23", date(2026, 12, 21), date(2026, 12, 23)),
        ("21-23 Dec", date(2026, 12, 21), date(2026, 12, 23)),
        ("Dec 3rd to the 5th", date(2026, 12, 3), date(2026, 12, 5)),
        ("tomorrow and Tuesday", date(2026, 12, 3), date(2026, 12, 8)),
        # "the day after" with no "tomorrow" of its own follows the date before it
        ("tomorrow and the day after", date(2026, 12, 3), date(2026, 12, 4)),
        ("off tomorrow and the day after that", date(2026, 12, 3), date(2026, 12, 4)),
        ("Friday and the following day", date(2026, 12, 4), date(2026, 12, 5)),
        ("next Monday and the next day", date(2026, 12, 7), date(2026, 12, 8)),
        ("下周一及次日", date(2026, 12, 7), date(2026, 12, 8)),
        ("the day after tomorrow", date(2026, 12, 4), date(2026, 12, 4)),
        ("明天和后天", date(2026, 12, 3), date(2026, 12, 4)),
        ("明天、后天", date(2026, 12, 3), date(2026, 12, 4)),
        ("明天开始到周五", date(2026, 12, 3), date(2026, 12, 4)),
        ("Friday to Monday", date(2026, 12, 4), date(2026, 12, 7)),
        ("Monday, Tuesday and Wednesday", date(2026, 12, 7), date(2026, 12, 9)),
        ("2026-12-21 ~ 2026-12-24", date(2026, 12, 21), date(2026, 12, 24)),
        ("12.24-12.31", date(2026, 12, 24), date(2026, 12, 31)),
        ("周四周五", date(2026, 12, 3), date(2026, 12, 4)),
        ("明天 后天", date(2026, 12, 3), date(2026, 12, 4)),
        ("next week", date(2026, 12, 7), date(2026, 12, 11)),
        ("下周", date(2026, 12, 7), date(2026, 12, 11)),
        ("this week", TODAY, date(2026, 12, 4)),
        ("tomorrow", date(2026, 12, 3), date(2026, 12, 3)),
    ],
)
def test_find_range_reads_ranges_weeks_and_single_days(text, start, end):
    """Two joined dates make a range; an end without its own anchor follows the start."""
    found = find_range(text, TODAY)
    assert found is not None
    assert (found.start, found.end) == (start, end)


def test_find_range_half_days():
    """Afternoon on the first day and morning on the last day become start_half / end_half."""
    assert find_range("Friday afternoon", TODAY) == DateRange(
        date(2026, 12, 4), date(2026, 12, 4), start_half=True, span=(0, 16)
    )
    morning = find_range("周五上午", TODAY)
    assert morning is not None
    assert (morning.start, morning.end, morning.start_half, morning.end_half) == (
        date(2026, 12, 4),
        date(2026, 12, 4),
        False,
        True,
    )
    both = find_range("tomorrow afternoon to Friday morning", TODAY)
    assert both is not None
    assert (both.start_half, both.end_half) == (True, True)
    zh = find_range("明天下午到后天上午", TODAY)
    assert zh is not None
    assert (zh.start, zh.end, zh.start_half, zh.end_half) == (
        date(2026, 12, 3),
        date(2026, 12, 4),
        True,
        True,
    )


def test_find_range_span_covers_the_range_text():
    """The span points at the dates inside a longer sentence."""
    text = "I'm sick, off tomorrow and Tuesday"
    found = find_range(text, TODAY)
    assert found is not None
    assert text[found.span[0] : found.span[1]] == "tomorrow and Tuesday"


def test_find_range_without_a_connector_takes_the_first_date():
    """Dates not joined by a connector are not a range."""
    found = find_range("I was out yesterday, back on Friday", TODAY)
    assert found is not None
    assert (found.start, found.end) == (date(2026, 12, 1), date(2026, 12, 1))


def test_find_range_none_without_dates():
    """No date in the text, no range."""
    assert find_range("I'd like some time off", TODAY) is None


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("3 days", 3.0),
        ("three days", 3.0),
        ("for 10 working days", 10.0),
        ("a day", 1.0),
        ("1.5 days", 1.5),
        ("half a day", 0.5),
        ("a half-day", 0.5),
        ("a day and a half", 1.5),
        ("two and a half days", 2.5),
        ("a week", 5.0),
        ("2 weeks", 10.0),
        ("a couple of days", 2.0),
        ("3天", 3.0),
        ("两天", 2.0),
        ("三天", 3.0),
        ("十天", 10.0),
        ("十五天", 15.0),
        ("半天", 0.5),
        ("一天半", 1.5),
        ("3天半", 3.5),
        ("两个工作日", 2.0),
        ("一周", 5.0),
        ("明天肚子疼，想请10天假", 10.0),
    ],
)
def test_parse_days_reads_durations(text, days):
    """Durations in digits, English words and Chinese numerals, halves included."""
    assert parse_days(text) == days


@pytest.mark.parametrize(
    "text",
    [
        "tomorrow",
        "今天",
        "明天",
        "后天",
        "第二天",
        "next week",
        "星期天",
        "the day after tomorrow",
        "",
    ],
)
def test_parse_days_none_without_a_duration(text):
    """Date words that contain 天 or day are not durations."""
    assert parse_days(text) is None


def test_cn_number_reads_chinese_numerals():
    """Chinese numerals up to 99 and digits become integers; anything else is None."""
    assert [cn_number(t) for t in ("三", "十", "十五", "二十", "二十一", "两", "12")] == [
        3,
        10,
        15,
        20,
        21,
        2,
        12,
    ]
    assert cn_number("百") is None
    assert cn_number("") is None


def test_year_end_rollover_from_late_december():
    """Near New Year, next week and January dates fall in the next year."""
    today = date(2026, 12, 30)
    assert resolve_date("next Monday", today) == date(2027, 1, 4)
    assert resolve_date("Jan 2", today) == date(2027, 1, 2)
    assert resolve_date("3号", today) == date(2027, 1, 3)
    week = find_range("next week", today)
    assert week is not None
    assert (week.start, week.end) == (date(2027, 1, 4), date(2027, 1, 8))


def test_resolve_date_accepts_a_weekday_that_agrees_and_iso_datetimes():
    """'Thu 2026-12-03', 'Thursday, December 3', '周四 12月3日' and ISO datetimes name one day."""
    for text in ("Thu 2026-12-03", "Thursday, December 3", "周四 12月3日", "2026-12-03T09:00"):
        assert resolve_date(text, TODAY) == date(2026, 12, 3), text


def test_resolve_date_refuses_a_weekday_that_disagrees():
    """'Thursday, Dec 4' is refused: 4 December is a Friday."""
    with pytest.raises(DateParseError, match="2026-12-04 is a Friday"):
        resolve_date("Thursday, Dec 4", TODAY)


# A weekday written beside its date is one day, the date's: read apart, "Thursday" became
# the coming Thursday (3 Dec) and the request went in a week early.
@pytest.mark.parametrize(
    "text, first, last",
    [
        ("annual leave on Thursday 10 Dec", date(2026, 12, 10), date(2026, 12, 10)),
        ("off Thu 10 Dec", date(2026, 12, 10), date(2026, 12, 10)),
        ("Thursday, December 10", date(2026, 12, 10), date(2026, 12, 10)),
        ("next Thursday the 10th", date(2026, 12, 10), date(2026, 12, 10)),
        ("Friday 4 Dec to Monday 7 Dec", date(2026, 12, 4), date(2026, 12, 7)),
        ("请假 12月10日周四", date(2026, 12, 10), date(2026, 12, 10)),
        ("12月10日（周四）到12月11日（周五）请假", date(2026, 12, 10), date(2026, 12, 11)),
        ("Thursday and Friday", date(2026, 12, 3), date(2026, 12, 4)),  # weekdays alone still
    ],
)
def test_a_weekday_beside_its_date_is_that_date(text: str, first: date, last: date):
    found = find_range(text, date(2026, 12, 2))
    assert found is not None
    assert (found.start, found.end) == (first, last)


@pytest.mark.parametrize(
    "text",
    [
        "12月4日（周五）下午请病假",  # the bot's own way of writing a date, then a half
        "12月4日 周五下午请病假",
        "12月4日周五下午",
        "2026年12月4日 周五下午",
        "Fri 4 Dec afternoon",
    ],
)
def test_a_half_day_after_a_date_and_its_weekday_is_kept(text: str):
    """A half day after a date and its weekday ("12月4日（周五）下午") is that afternoon, not
    the whole day: the half after the weekday (or its bracket) belongs to the date."""
    found = find_range(text, date(2026, 12, 2))
    assert found is not None
    assert (found.start, found.end, found.start_half) == (
        date(2026, 12, 4),
        date(2026, 12, 4),
        True,
    )


@pytest.mark.parametrize("text", ["leave on Friday 10 Dec", "周四 12月11日请假"])
def test_a_weekday_that_contradicts_its_date_is_no_date(text: str):
    """10 Dec 2026 is a Thursday: neither day is guessed; the person is asked again."""
    assert find_range(text, date(2026, 12, 2)) is None
