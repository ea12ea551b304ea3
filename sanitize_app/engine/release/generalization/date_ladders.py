"""Truthful generalizations of a dated expression, most specific first.

A dated span is generalized by the calendar units that contain it, from small to large:
its month ("August 2003"), its season ("summer 2003"), its year, the part of its decade
("the early 2000s"), its decade, the part of its century ("the early 21st century"), its
century, then "a date in the past". The ladder of a span is the first five of those that
hold the whole span and are larger than it, which gives the paper's ladders: a day ->
[Month YYYY, season YYYY, YYYY, part of decade, decade]; a month -> [season YYYY, YYYY,
part of decade, decade, part of century]; a year -> [part of decade, decade, part of
century, century, "a date in the past"]. A range ("8-10 July 1996") gets the ladder of
the smallest units that hold all of it.

Seasons are the meteorological seasons of the northern hemisphere (the courts and
parties of TAB are European): winter is December to February and is named by both of
its years ("winter 2003-04" holds December 2003 and January and February 2004), so a
season name is never ambiguous about its year.

Parts: of a decade, early = years 0-3, mid = 4-6, late = 7-9; of a century, early =
years 00-32, mid = 33-66, late = 67-99; centuries are named as people speak of them
("the 20th century" = 1900-1999)."""

import calendar
from collections.abc import Iterator
from datetime import date, timedelta

from .date_parsing import CalendarSpan, YearlessSpan

# "around 4 April 2000" may be a few days off: its ladder holds 1 .. 7 April 2000.
HEDGE_DAYS = 3
SEASONS = {12: "winter", 1: "winter", 2: "winter", 3: "spring", 4: "spring", 5: "spring"}
SEASONS.update({6: "summer", 7: "summer", 8: "summer", 9: "autumn", 10: "autumn", 11: "autumn"})
PAST = "a date in the past"
YEARLESS_LAST = "a day of an unknown month"


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _season(day: date) -> tuple[str, date, date]:
    name = SEASONS[day.month]
    if name != "winter":
        start_month = {"spring": 3, "summer": 6, "autumn": 9}[name]
        end = date(day.year, start_month + 2, calendar.monthrange(day.year, start_month + 2)[1])
        return f"{name} {day.year}", date(day.year, start_month, 1), end
    first_year = day.year if day.month == 12 else day.year - 1
    end = date(first_year + 1, 2, calendar.monthrange(first_year + 1, 2)[1])
    second = f"{(first_year + 1) % 100:02d}" if (first_year + 1) % 100 else str(first_year + 1)
    return f"winter {first_year}-{second}", date(first_year, 12, 1), end


def _part_of(start: int, span: int, offset: int, bounds: tuple[int, int]) -> tuple[str, int, int]:
    """Which part (early/mid/late) of a period of ``span`` years starting at ``start``
    the year ``start + offset`` is in, with that part's first and last year."""
    early_end, mid_end = bounds
    if offset <= early_end:
        return "early", start, start + early_end
    if offset <= mid_end:
        return "mid", start + early_end + 1, start + mid_end
    return "late", start + mid_end + 1, start + span - 1


def calendar_units(day: date) -> Iterator[tuple[str, date, date]]:
    """The named units of the calendar that hold ``day``, smallest first."""
    month_end = day.replace(day=calendar.monthrange(day.year, day.month)[1])
    yield f"{calendar.month_name[day.month]} {day.year}", day.replace(day=1), month_end
    yield _season(day)
    yield str(day.year), date(day.year, 1, 1), date(day.year, 12, 31)
    decade = day.year - day.year % 10
    part, first, last = _part_of(decade, 10, day.year - decade, (3, 6))
    yield f"the {part} {decade}s", date(first, 1, 1), date(last, 12, 31)
    yield f"the {decade}s", date(decade, 1, 1), date(decade + 9, 12, 31)
    century = day.year - day.year % 100
    name = f"{_ordinal(century // 100 + 1)} century"
    part, first, last = _part_of(century, 100, day.year - century, (32, 66))
    yield f"the {part} {name}", date(first, 1, 1), date(last, 12, 31)
    yield f"the {name}", date(century, 1, 1), date(century + 99, 12, 31)
    yield PAST, date.min, date.max


def calendar_ladder(span: CalendarSpan, limit: int = 5) -> list[str]:
    first, last = span.first, span.last
    if span.hedged:
        first, last = first - timedelta(days=HEDGE_DAYS), last + timedelta(days=HEDGE_DAYS)
    ladder = []
    if span.granularity == "time":  # the day itself generalizes a time on that day
        ladder.append(f"{first.day} {calendar.month_name[first.month]} {first.year}")
    straddle = _adjacent_parts(first, last)
    if straddle:
        ladder.append(straddle)
    for label, unit_first, unit_last in calendar_units(first):
        if unit_first <= first and last <= unit_last and (unit_first, unit_last) != (first, last):
            ladder.append(label)
    return ladder[:limit]


def _decade_part(day: date) -> tuple[str, int, int, int]:
    decade = day.year - day.year % 10
    part, first, last = _part_of(decade, 10, day.year - decade, (3, 6))
    return part, decade, first, last


def _adjacent_parts(first: date, last: date) -> str | None:
    """A span across two neighbouring parts of decades ("1999-2000") is in "the late
    1990s or the early 2000s", which is narrower than any single unit holding it."""
    part1, decade1, _, end1 = _decade_part(first)
    part2, decade2, start2, end2 = _decade_part(last)
    if start2 != end1 + 1 or last.year > end2:
        return None
    if decade1 == decade2:
        return f"the {part1} or {part2} {decade1}s"
    return f"the {part1} {decade1}s or the {part2} {decade2}s"


def _month_name(month: int) -> str:
    return calendar.month_name[month]


def yearless_ladder(span: YearlessSpan, limit: int = 5) -> list[str]:
    """ "16 June" -> [mid-June, the second half of June, June, summer, a day of an
    unknown month]; a span of days gets the parts that hold all of it."""
    month, first, last = span.first_month, span.first_day, span.last_day
    if span.hedged:
        first, last = first - HEDGE_DAYS, last + HEDGE_DAYS
    month_end = calendar.monthrange(2000, month)[1]
    whole_month = first <= 1 and last >= month_end
    ladder = []
    if span.first_month == span.last_month and first >= 1 and last <= month_end:
        name = _month_name(month)
        thirds = ((1, 10, f"early {name}"), (11, 20, f"mid-{name}"), (21, month_end, f"late {name}"))
        halves = ((1, 15, f"the first half of {name}"), (16, month_end, f"the second half of {name}"))
        for parts in (thirds, halves):
            ladder += [label for low, high, label in parts if low <= first and last <= high]
        if not whole_month:
            ladder.append(name)
    first_month = span.first_month if first >= 1 else (span.first_month - 2) % 12 + 1
    last_month = span.last_month if last <= month_end else span.last_month % 12 + 1
    if SEASONS[first_month] == SEASONS[last_month] and (last_month - first_month) % 12 < 3:
        ladder.append(SEASONS[first_month])
    ladder.append(YEARLESS_LAST if not whole_month else "a month of the year")
    return ladder[:limit]
