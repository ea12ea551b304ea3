"""DATETIME mentions: what they denote and their truthful generalizations.

``parse_datetime`` answers only for expressions with a position in the calendar (a day,
a month, a year, a part of one, a decade, a range of those, a time on a day): it returns
``None`` for lengths of time ("six months"), relative times ("two years later"), dates
without a year ("16 June") and steps of a schedule ("Day 12"), which cannot be compared
by position. Two expressions denote the same date when their ``first`` and ``last`` are
equal: "3 August 2003" == "03/08/2003" (numeric dates are day first, as in European
judgments), != "August 2003".

``datetime_candidates`` gives the ladder of any of them (see ``date_ladders`` and
``duration_ladders``); an age written as a DATETIME ("age 65") gets the ladder of an age
from ``quantities``."""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from ..types import CANDIDATES_PER_ENTITY
from .date_ladders import calendar_ladder, yearless_ladder
from .date_parsing import CalendarSpan, YearlessSpan
from .date_ranges import parse_calendar
from .duration_ladders import duration_ladder, position_ladder
from .durations import Position, parse_duration, parse_position


@dataclass(frozen=True)
class ParsedDate:
    """The inclusive span of days a dated expression denotes. ``granularity`` is how it
    was written: "day", "time" (a time on a day), "month", "year", "part" ("early
    1995", "the beginning of January 1997"), "decade" or "range" (several dates: the
    span holds them all); ``hedged`` for "around 4 April 2000" (the span is the stated
    date's)."""

    first: date
    last: date
    granularity: str
    hedged: bool = False


def parse_datetime(text: str) -> ParsedDate | None:
    """The calendar span ``text`` denotes, None when it has none (see the module)."""
    if not isinstance(text, str):
        raise TypeError(f"parse_datetime expects a str, got {type(text).__name__}")
    span = parse_calendar(text)
    if not isinstance(span, CalendarSpan):
        return None
    return ParsedDate(span.first, span.last, span.granularity, span.hedged)


def parse_any(text: str):
    """What a DATETIME mention is: a CalendarSpan, a YearlessSpan, a Duration, a
    Position, or None when none of them."""
    return parse_calendar(text) or parse_duration(text) or parse_position(text)


def datetime_candidates(text: str) -> list[str]:
    """Up to five truthful generalizations of a DATETIME mention, most specific first;
    [] when ``text`` cannot be parsed."""
    if not isinstance(text, str):
        raise TypeError(f"datetime_candidates expects a str, got {type(text).__name__}")
    parsed = parse_any(text)
    if isinstance(parsed, CalendarSpan):
        ladder = calendar_ladder(parsed)
    elif isinstance(parsed, YearlessSpan):
        ladder = yearless_ladder(parsed)
    elif parsed is None:
        from .quantities import age_candidates  # ages are annotated as DATETIME too

        ladder = age_candidates(text)
    elif isinstance(parsed, Position):
        ladder = position_ladder(parsed)
    else:
        ladder = duration_ladder(parsed)
    original = text.strip().lower()
    unique = [c for c in dict.fromkeys(ladder) if c.lower() != original]
    return unique[:CANDIDATES_PER_ENTITY]


def date_parse_share(texts: Iterable[str]) -> tuple[int, int]:
    """How many of ``texts`` the DATETIME rules give a ladder for, and how many there
    are (the bench prints it over all mentions and over distinct mention texts)."""
    parsed = total = 0
    for text in texts:
        total += 1
        parsed += bool(datetime_candidates(text))
    return parsed, total
