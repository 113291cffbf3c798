"""Working-day arithmetic against real public-holiday facts (GB England, China 2026)."""

from __future__ import annotations

from datetime import date

import pytest

from workflow.calendar import (
    CalendarError,
    add_working_days,
    holidays_between,
    is_working_day,
    next_working_day,
    non_working_days_between,
    working_days,
    working_days_by_year,
)

# 2026-03-02 is a Monday; England has no bank holiday in March 2026.
MON = date(2026, 3, 2)
FRI = date(2026, 3, 6)
SAT = date(2026, 3, 7)
SUN = date(2026, 3, 8)


# --- weekends and plain ranges -------------------------------------------------------------


def test_weekends_are_not_working_days() -> None:
    """Saturday and Sunday are not working days and a Monday is."""
    assert is_working_day(MON, "GB", "ENG")
    assert not is_working_day(SAT, "GB", "ENG")
    assert not is_working_day(SUN, "GB", "ENG")


def test_two_calendar_weeks_hold_ten_working_days() -> None:
    """Monday to the Sunday a fortnight later counts ten working days, weekends excluded."""
    assert working_days(MON, date(2026, 3, 15), "GB", "ENG") == 10.0


def test_range_of_only_weekend_days_counts_zero() -> None:
    """A Saturday-to-Sunday range has no working day and returns 0.0, not an error."""
    assert working_days(SAT, SUN, "GB", "ENG") == 0.0
    assert working_days_by_year(SAT, SUN, "GB", "ENG") == {}


def test_country_and_subdivision_codes_are_case_insensitive() -> None:
    """Lower-case codes and a subdivision's name are accepted like their ISO codes."""
    christmas = date(2026, 12, 25)
    assert not is_working_day(christmas, "gb", "eng")
    assert not is_working_day(christmas, "GB", "England")


# --- GB Christmas 2026 ----------------------------------------------------------------------


def test_gb_christmas_and_boxing_day_2026() -> None:
    """Christmas (Fri 25th) and Boxing Day observed on Mon 28 Dec 2026 are days off in England."""
    assert not is_working_day(date(2026, 12, 25), "GB", "ENG")
    assert not is_working_day(date(2026, 12, 28), "GB", "ENG")
    assert is_working_day(date(2026, 12, 29), "GB", "ENG")
    # Mon 21 Dec – Fri 1 Jan: 21–24, 29–31 work; 25, 28 and 1 Jan are bank holidays.
    assert working_days(date(2026, 12, 21), date(2027, 1, 1), "GB", "ENG") == 7.0


def test_gb_christmas_holidays_are_named() -> None:
    """holidays_between lists Christmas, Boxing Day and its observed Monday for England."""
    assert holidays_between(date(2026, 12, 20), date(2026, 12, 31), "GB", "ENG") == [
        (date(2026, 12, 25), "Christmas Day"),
        (date(2026, 12, 26), "Boxing Day"),
        (date(2026, 12, 28), "Boxing Day (observed)"),
    ]


# --- China 2026: holidays and make-up working days (调休) -------------------------------------


def test_cn_national_day_week_2026() -> None:
    """China is off 1–7 Oct 2026 and works Sat 10 Oct and Sun 20 Sep as make-up days."""
    for day in range(1, 8):
        assert not is_working_day(date(2026, 10, day), "CN")
    assert is_working_day(date(2026, 10, 8), "CN")
    assert is_working_day(date(2026, 10, 10), "CN")  # Saturday make-up day
    assert is_working_day(date(2026, 9, 20), "CN")  # Sunday make-up day
    assert not is_working_day(date(2026, 10, 11), "CN")


def test_cn_count_across_national_day_includes_saturday_make_up() -> None:
    """Mon 28 Sep – Sun 11 Oct 2026 in China is 6 working days: 28–30 Sep and 8–10 Oct."""
    assert working_days(date(2026, 9, 28), date(2026, 10, 11), "CN") == 6.0
    # Thu 8 – Sat 10 Oct alone: the Saturday counts.
    assert working_days(date(2026, 10, 8), date(2026, 10, 10), "CN") == 3.0


def test_cn_non_working_days_around_national_day() -> None:
    """The days off in 1–11 Oct 2026 are 1–7 Oct and Sun 11 Oct, but not the make-up Saturday."""
    assert non_working_days_between(date(2026, 10, 1), date(2026, 10, 11), "CN") == [
        date(2026, 10, 1),
        date(2026, 10, 2),
        date(2026, 10, 3),
        date(2026, 10, 4),
        date(2026, 10, 5),
        date(2026, 10, 6),
        date(2026, 10, 7),
        date(2026, 10, 11),
    ]


def test_cn_spring_festival_2026_make_up_saturdays() -> None:
    """China is off 15–23 Feb 2026 and works Sat 14 Feb and Sat 28 Feb as make-up days."""
    assert is_working_day(date(2026, 2, 14), "CN")
    assert is_working_day(date(2026, 2, 28), "CN")
    for day in range(15, 24):
        assert not is_working_day(date(2026, 2, day), "CN")
    # Mon 9 Feb – Sun 1 Mar: 9–14 (6, with the Saturday), 24–28 (5, with the Saturday).
    assert working_days(date(2026, 2, 9), date(2026, 3, 1), "CN") == 11.0


# --- half days ------------------------------------------------------------------------------


def test_afternoon_start_counts_half_the_first_day() -> None:
    """Starting on Monday afternoon, Monday to Friday is 4.5 days."""
    assert working_days(MON, FRI, "GB", "ENG", start_pm=True) == 4.5


def test_morning_end_counts_half_the_last_day() -> None:
    """Ending on Friday morning, Monday to Friday is 4.5 days."""
    assert working_days(MON, FRI, "GB", "ENG", end_am=True) == 4.5


def test_half_days_at_both_ends() -> None:
    """Monday afternoon to Friday morning is 4 days."""
    assert working_days(MON, FRI, "GB", "ENG", start_pm=True, end_am=True) == 4.0


def test_half_day_on_a_weekend_counts_nothing() -> None:
    """A half day falling on a weekend counts 0, at the start or at the end."""
    # Sat afternoon – Tue: Mon and Tue only.
    assert working_days(SAT, date(2026, 3, 10), "GB", "ENG", start_pm=True) == 2.0
    # Thu – Sun morning: Thu and Fri only.
    assert working_days(date(2026, 3, 5), SUN, "GB", "ENG", end_am=True) == 2.0


def test_single_morning_or_afternoon_is_half_a_day() -> None:
    """One working day taken only in the morning or only in the afternoon counts 0.5."""
    assert working_days(MON, MON, "GB", "ENG", end_am=True) == 0.5
    assert working_days(MON, MON, "GB", "ENG", start_pm=True) == 0.5
    assert working_days(MON, MON, "GB", "ENG") == 1.0


def test_single_day_from_noon_until_noon_is_an_error() -> None:
    """Afternoon start and morning end on the same day leave nothing and raise."""
    with pytest.raises(CalendarError, match="2026-03-02"):
        working_days(MON, MON, "GB", "ENG", start_pm=True, end_am=True)


# --- bad input ------------------------------------------------------------------------------


def test_end_before_start_is_an_error() -> None:
    """An end date before the start date raises a message naming both dates."""
    with pytest.raises(CalendarError) as excinfo:
        working_days(date(2026, 12, 3), date(2026, 12, 1), "GB", "ENG")
    assert str(excinfo.value) == "The end date 2026-12-01 is before the start date 2026-12-03."


def test_unknown_country_is_an_error() -> None:
    """An unknown country code raises a message naming the code."""
    with pytest.raises(CalendarError, match="Unknown country code 'XX'"):
        is_working_day(MON, "XX")
    with pytest.raises(CalendarError, match="Unknown country code 'XX'"):
        working_days(MON, FRI, "XX")


def test_unknown_subdivision_is_an_error() -> None:
    """An unknown subdivision raises a message listing the valid ones."""
    with pytest.raises(CalendarError, match="ENG, NIR, SCT, WLS"):
        is_working_day(MON, "GB", "XYZ")


def test_absurdly_long_range_is_an_error() -> None:
    """A range of more than three years raises instead of being walked."""
    with pytest.raises(CalendarError, match="longer than 3 years"):
        working_days(date(2026, 1, 1), date(2062, 1, 1), "GB", "ENG")


def test_year_without_holiday_data_is_an_error() -> None:
    """A date past the package's holiday data raises rather than silently counting holidays."""
    with pytest.raises(CalendarError, match="2150"):
        is_working_day(date(2150, 1, 1), "CN")


# --- split per year -------------------------------------------------------------------------


def test_working_days_by_year_over_new_year() -> None:
    """Tue 29 Dec 2026 – Wed 6 Jan 2027 in England is 3 days in each year (1 Jan is off)."""
    assert working_days_by_year(date(2026, 12, 29), date(2027, 1, 6), "GB", "ENG") == {
        2026: 3.0,
        2027: 3.0,
    }


def test_working_days_by_year_half_day_lands_in_its_year() -> None:
    """An afternoon start on 31 Dec 2026 puts 0.5 in 2026 and the rest in 2027."""
    assert working_days_by_year(
        date(2026, 12, 31), date(2027, 1, 5), "GB", "ENG", start_pm=True
    ) == {2026: 0.5, 2027: 2.0}


def test_working_days_by_year_omits_years_without_days() -> None:
    """Sat 31 Dec 2022 – Wed 4 Jan 2023 in England draws only on 2023 (2 Jan was a bank holiday)."""
    assert working_days_by_year(date(2022, 12, 31), date(2023, 1, 4), "GB", "ENG") == {2023: 2.0}


# --- add_working_days -----------------------------------------------------------------------


def test_two_days_from_tomorrow_on_a_friday() -> None:
    """Asked on a Friday, two working days from tomorrow are Monday and Tuesday."""
    assert add_working_days(SAT, 2, "GB", "ENG") == (date(2026, 3, 9), date(2026, 3, 10), False)


def test_ten_working_days_span_two_weeks() -> None:
    """Ten working days from a Monday end on the Friday of the following week."""
    assert add_working_days(MON, 10, "GB", "ENG") == (MON, date(2026, 3, 13), False)


def test_half_day_count_ends_in_the_morning() -> None:
    """2.5 working days from Monday end on Wednesday morning; 0.5 is Monday morning."""
    assert add_working_days(MON, 2.5, "GB", "ENG") == (MON, date(2026, 3, 4), True)
    assert add_working_days(MON, 0.5, "GB", "ENG") == (MON, MON, True)


def test_add_working_days_across_cn_national_day() -> None:
    """Five days from Wed 30 Sep 2026 in China are 30 Sep, 8, 9, 10 (Sat) and 12 Oct."""
    assert add_working_days(date(2026, 9, 30), 5, "CN") == (
        date(2026, 9, 30),
        date(2026, 10, 12),
        False,
    )


def test_add_working_days_starting_on_a_holiday() -> None:
    """Counting from National Day 2026 in China starts on Thu 8 Oct."""
    assert add_working_days(date(2026, 10, 1), 3, "CN") == (
        date(2026, 10, 8),
        date(2026, 10, 10),
        False,
    )


@pytest.mark.parametrize("count", [0, 0.25, 1.3, -1, float("nan")])
def test_add_working_days_rejects_bad_counts(count: float) -> None:
    """A count below 0.5 or not a multiple of 0.5 raises."""
    with pytest.raises(CalendarError):
        add_working_days(MON, count, "GB", "ENG")


def test_add_working_days_refuses_to_run_for_years() -> None:
    """A count that would run past three years raises instead of looping on."""
    with pytest.raises(CalendarError, match="3 years"):
        add_working_days(MON, 2000, "GB", "ENG")


# --- next_working_day -----------------------------------------------------------------------


def test_next_working_day() -> None:
    """The next working day skips weekends and holidays and is the day itself if it works."""
    assert next_working_day(MON, "GB", "ENG") == MON
    assert next_working_day(SAT, "GB", "ENG") == date(2026, 3, 9)
    assert next_working_day(date(2026, 12, 25), "GB", "ENG") == date(2026, 12, 29)
    assert next_working_day(date(2026, 10, 1), "CN") == date(2026, 10, 8)
    assert next_working_day(date(2026, 10, 10), "CN") == date(2026, 10, 10)


# --- holiday names --------------------------------------------------------------------------


def test_cn_national_day_name_in_english_and_chinese() -> None:
    """China's 1 Oct holiday is "National Day" in English and "国庆节" in Chinese."""
    first = date(2026, 10, 1)
    assert holidays_between(first, first, "CN") == [(first, "National Day")]
    assert holidays_between(first, first, "CN", language="zh") == [(first, "国庆节")]


def test_holiday_names_fall_back_when_chinese_is_missing() -> None:
    """A country without Chinese names gives its default names for "zh"."""
    christmas = date(2026, 12, 25)
    assert holidays_between(christmas, christmas, "GB", "ENG", language="zh") == [
        (christmas, "Christmas Day")
    ]


def test_holidays_between_rejects_unknown_language() -> None:
    """A language other than en or zh raises."""
    with pytest.raises(CalendarError, match="'en' or 'zh'"):
        holidays_between(MON, FRI, "GB", "ENG", language="xx")
