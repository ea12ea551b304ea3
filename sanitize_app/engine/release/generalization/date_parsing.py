"""Dates as judgments write them, parsed into the calendar span they denote.

A span is inclusive (``first`` .. ``last``): "1995" is 1 January .. 31 December 1995,
"8-10 July 1996" is 8 .. 10 July 1996, and "1 and 9 September 2009" (two days) is read as
the span that holds both, 1 .. 9 September 2009: every generalization of that span is
truthful for each of the days. Numeric dates are in European order (day/month/year), as
in judgments of the European Court of Human Rights; "June 4, 1975" (US order, words) is
read as well. A date without a year ("16 June") has no calendar position: it is a
``YearlessSpan``. Durations and relative expressions are in ``durations.py``."""

import calendar
import re
import unicodedata
from dataclasses import dataclass
from datetime import date

MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): number for number, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
MONTH = (
    r"(january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
YEAR = r"(\d{4})"
FIRST_YEAR, LAST_YEAR = 1000, 2199

# Words before a date that do not change what it denotes.
FILLERS = r"(?:on|in|of|the|dated|since|as of|by|until|till|during|at|from|year|years|tax year|date)"
# Hedges: the date is approximate; the ladders widen it (see date_ladders.HEDGE_DAYS).
HEDGES = (
    r"(?:in or about|in or around|on or about|on or around|or about|around|about|approximately|approx\.|"
    r"circa|c\.|ca\.|some ?time in|towards|toward)"
)
TIME_OF_DAY = r"(?:at\s+)?(?:about\s+)?(\d{1,2})(?:[.:h](\d{2}))?\s*(a\.?m\.?|p\.?m\.?|hours|hrs|o'clock)?"


@dataclass(frozen=True)
class CalendarSpan:
    """What a dated expression denotes: the inclusive span of days, how it was written
    (``granularity``: day, month, year, decade, part, range, time) and whether it was
    hedged ("around 4 April 2000")."""

    first: date
    last: date
    granularity: str
    hedged: bool = False


@dataclass(frozen=True)
class YearlessSpan:
    """A day or span of days without a year ("16 June", "8-10 July"): months and days of
    a leap year, so 29 February fits."""

    first_month: int
    first_day: int
    last_month: int
    last_day: int
    hedged: bool = False


def normalize(text: str) -> str:
    """Lower case, typographic quotes and dashes folded, stray punctuation at the ends
    removed: "On 31 May 1999," -> "on 31 may 1999"."""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"[\u2010\u2011\u2012\u2013\u2014\u2212]", "-", text).lower()
    text = re.sub(r"\s+", " ", text).strip()
    return text.strip(" ,.;:'\"\u201c\u201d()[]")


def strip_hedges_and_fillers(text: str) -> tuple[str, bool]:
    """The date without the words around it, and whether a hedge was among them."""
    hedged = False
    while True:
        match = re.match(rf"^(?:{HEDGES})\s+", text)
        if match:
            hedged, text = True, text[match.end() :]
            continue
        match = re.match(rf"^{FILLERS}\s+", text)
        if match and text[match.end() :]:
            text = text[match.end() :]
            continue
        return text, hedged


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _valid_year(year: int) -> bool:
    return FIRST_YEAR <= year <= LAST_YEAR


def _day(year: int, month: int, day: int) -> CalendarSpan | None:
    if not _valid_year(year) or not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year, month)[1]:
        return None
    return CalendarSpan(date(year, month, day), date(year, month, day), "day")


def _month(year: int, month: int) -> CalendarSpan | None:
    if not _valid_year(year):
        return None
    return CalendarSpan(date(year, month, 1), _month_end(year, month), "month")


def _year(year: int) -> CalendarSpan | None:
    if not _valid_year(year):
        return None
    return CalendarSpan(date(year, 1, 1), date(year, 12, 31), "year")


def _numeric(text: str) -> CalendarSpan | None:
    """03/08/2003, 3.8.2003, 3-8-03 (day first), 2003-08-03 (ISO)."""
    iso = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", text)
    if iso:
        return _day(int(iso.group(1)), int(iso.group(2)), int(iso.group(3)))
    european = re.fullmatch(r"(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})", text)
    if not european:
        return None
    year = int(european.group(4))
    if year < 100:  # two-digit years of judgments: 1950 .. 2049
        year += 1900 if year >= 50 else 2000
    return _day(year, int(european.group(3)), int(european.group(1)))


# Parts of a month (days) and of a year (months) named in judgments.
MONTH_PARTS = {
    "beginning": (1, 10), "start": (1, 10), "early": (1, 10), "mid": (11, 20), "middle": (11, 20),
    "end": (21, 31), "late": (21, 31), "first half": (1, 15), "second half": (16, 31),
}  # fmt: skip
YEAR_PARTS = {
    "beginning": (1, 4), "start": (1, 4), "early": (1, 4), "mid": (5, 8), "middle": (5, 8),
    "end": (9, 12), "late": (9, 12), "first half": (1, 6), "second half": (7, 12),
    "spring": (3, 5), "summer": (6, 8), "autumn": (9, 11), "fall": (9, 11),
}  # fmt: skip
PART = r"(beginning|start|early|mid|middle|end|late|first half|second half|spring|summer|autumn|fall)"


def _part(text: str) -> CalendarSpan | None:
    """ "beginning of January 1997", "first half of 1993", "mid-1995", "summer 1995"."""
    match = re.fullmatch(rf"(?:the )?{PART}(?: of)?[ -](?:the )?(?:{MONTH},? )?(?:the year )?{YEAR}", text)
    if not match:
        return None
    part, month_name, year = match.group(1), match.group(2), int(match.group(3))
    if not _valid_year(year):
        return None
    if month_name:
        if part not in MONTH_PARTS:
            return None
        month = MONTHS[month_name]
        first_day, last_day = MONTH_PARTS[part]
        last_day = min(last_day, calendar.monthrange(year, month)[1])
        return CalendarSpan(date(year, month, first_day), date(year, month, last_day), "part")
    first_month, last_month = YEAR_PARTS[part]
    return CalendarSpan(date(year, first_month, 1), _month_end(year, last_month), "part")


def _decade(text: str) -> CalendarSpan | None:
    """ "the 1990s", "the early 1990s", "the mid-1990s"."""
    match = re.fullmatch(r"(?:the )?(early|mid|late)?[ -]?(\d{3}0)'?s", text)
    if not match:
        return None
    start = int(match.group(2))
    first, last = {"early": (0, 3), "mid": (4, 6), "late": (7, 9)}.get(match.group(1) or "", (0, 9))
    if not _valid_year(start):
        return None
    return CalendarSpan(date(start + first, 1, 1), date(start + last, 12, 31), "decade")


def parse_single(text: str) -> CalendarSpan | YearlessSpan | None:
    """One date (no range) in normalized text with its fillers removed."""
    patterns = (
        (rf"{DAY}(?: of)? {MONTH},? {YEAR}", lambda m: _day(int(m[3]), MONTHS[m[2]], int(m[1]))),
        (rf"{MONTH} {DAY},? {YEAR}", lambda m: _day(int(m[3]), MONTHS[m[1]], int(m[2]))),
        (rf"{MONTH},? {YEAR}", lambda m: _month(int(m[2]), MONTHS[m[1]])),
        (YEAR, lambda m: _year(int(m[1]))),
        (rf"{DAY}(?: of)? {MONTH}", lambda m: _yearless(MONTHS[m[2]], int(m[1]))),
        (rf"{MONTH} {DAY}", lambda m: _yearless(MONTHS[m[1]], int(m[2]))),
        (MONTH, lambda m: _yearless_month(MONTHS[m[1]])),
    )
    for pattern, build in patterns:
        match = re.fullmatch(pattern, text)
        if match:
            return build(match)
    return _numeric(text) or _part(text) or _decade(text)


def _yearless(month: int, day: int) -> YearlessSpan | None:
    if not 1 <= day <= calendar.monthrange(2000, month)[1]:
        return None
    return YearlessSpan(month, day, month, day)


def _yearless_month(month: int) -> YearlessSpan:
    return YearlessSpan(month, 1, month, calendar.monthrange(2000, month)[1])


def split_time_of_day(text: str) -> tuple[str, bool]:
    """The text without a time of day before or after the date ("at 10.30 a.m. on 3
    August 2003", "3 August 2003 at 10 p.m."), and whether there was one."""
    leading = re.match(rf"^{TIME_OF_DAY}(?: on| of)? (?=\S)", text)
    if leading and (leading.group(2) or leading.group(3)):
        return text[leading.end() :], True
    trailing = re.search(rf",? {TIME_OF_DAY}$", text)
    if trailing and (trailing.group(2) or trailing.group(3)) and re.search(r"[a-z]", text[: trailing.start()]):
        return text[: trailing.start()], True
    return text, False
