"""Dated expressions made of several dates: "8-10 July 1996", "1 and 9 September 2009",
"20 July and 5 August 1998", "between 1993 and 1995", "from March to May 2001",
"years 2000-2001". The parts on the left borrow the month and year they leave out from
the part on their right ("8" in "8-10 July 1996" is 8 July 1996); the expression denotes
the span from its earliest to its latest day."""

import re
from dataclasses import replace
from datetime import date

from .date_parsing import (
    DAY,
    CalendarSpan,
    YearlessSpan,
    normalize,
    parse_single,
    split_time_of_day,
    strip_hedges_and_fillers,
)

CONNECTOR = r"\s*(?:,\s*and|,|\band\b|\bto\b|\buntil\b|\btill\b|\bthrough\b|\bor\b|-|/)\s*"


def parse_calendar(text: str) -> CalendarSpan | YearlessSpan | None:
    """The span a dated expression denotes, or None when ``text`` is not one."""
    text = normalize(text)
    text, hedged = strip_hedges_and_fillers(text)
    text, timed = split_time_of_day(text)
    text, more_hedged = strip_hedges_and_fillers(text)
    hedged = hedged or more_hedged
    span = parse_single(text) or _parse_range(text)
    if span is None:
        return None
    if timed and isinstance(span, CalendarSpan) and span.granularity == "day":
        span = replace(span, granularity="time")
    return replace(span, hedged=hedged) if hedged else span


def _parse_range(text: str) -> CalendarSpan | YearlessSpan | None:
    match = re.fullmatch(r"(?:between|from) (.+)", text)
    if match:
        text = match.group(1)
        alone = parse_single(text)  # "between 20 July" (the rest of the range cut off)
        if alone is not None:
            return alone
    parts = [part for part in re.split(CONNECTOR, text) if part]
    if len(parts) < 2 or len(parts) > 6:
        return None
    parts = [strip_hedges_and_fillers(part)[0] for part in parts]
    spans = _resolve_right_to_left(parts)
    if spans is None:
        return None
    if all(isinstance(span, CalendarSpan) for span in spans):
        first = min(span.first for span in spans)
        last = max(span.last for span in spans)
        return CalendarSpan(first, last, "range")
    if all(isinstance(span, YearlessSpan) for span in spans):
        ordered = sorted(spans, key=lambda s: (s.first_month, s.first_day))
        last = max(spans, key=lambda s: (s.last_month, s.last_day))
        return YearlessSpan(ordered[0].first_month, ordered[0].first_day, last.last_month, last.last_day)
    return None


def _resolve_right_to_left(parts: list[str]) -> list | None:
    """Each part parsed; a bare day takes the month and year of the part after it, a
    day or month without a year takes that part's year."""
    spans: list = []
    following = None
    for part in reversed(parts):
        span = parse_single(part)
        if span is None and following is not None and re.fullmatch(DAY, part):
            span = _borrow_month(int(re.fullmatch(DAY, part).group(1)), following)
        elif isinstance(span, YearlessSpan) and isinstance(following, CalendarSpan):
            span = _borrow_year(span, following)
        if span is None:
            return None
        spans.append(span)
        following = span
    return spans


def _borrow_month(day: int, following: CalendarSpan | YearlessSpan) -> CalendarSpan | YearlessSpan | None:
    if isinstance(following, YearlessSpan):
        if day > following.first_day:
            return None
        return YearlessSpan(following.first_month, day, following.first_month, day)
    try:
        earlier = date(following.first.year, following.first.month, day)
    except ValueError:
        return None
    if earlier > following.first:
        return None
    return CalendarSpan(earlier, earlier, "day")


def _borrow_year(span: YearlessSpan, following: CalendarSpan) -> CalendarSpan | None:
    """ "20 July" before "5 August 1998" is in 1998; "December" before "February 2001"
    is in 2000."""
    year = following.first.year
    if (span.first_month, span.first_day) > (following.first.month, following.first.day):
        year -= 1
    try:
        return CalendarSpan(
            date(year, span.first_month, span.first_day), date(year, span.last_month, span.last_day), "day"
        )
    except ValueError:  # 29 February of a common year
        return None
