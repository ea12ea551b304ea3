"""Lengths of time ("six months", "two years and three months", "a three-month
period", "up to 6 months"), times relative to another event ("two years later",
"several years later") and numbered days or weeks of a schedule ("Day 12", "Week 16",
"9th Month"). None of them has a position in the calendar; each has a ladder of its own
in ``date_ladders``."""

import re
from dataclasses import dataclass

from .date_parsing import normalize
from .number_words import NUMBER_DIGITS, NUMBER_WORDS, ORDINALS, parse_number

UNIT_DAYS = {"minute": 1 / 1440, "hour": 1 / 24, "day": 1, "week": 7, "month": 365.25 / 12, "year": 365.25}
UNIT_DAYS["decade"] = 10 * UNIT_DAYS["year"]
UNITS = "|".join(UNIT_DAYS)
VAGUE = r"(?:several|a few|few|some|many|a number of|a couple of)"
AMOUNT = rf"(?:{NUMBER_DIGITS}|{NUMBER_WORDS}|{VAGUE})"
PART = rf"({AMOUNT})[ \-‑]({UNITS})s?"
# Words that bound a length from above or below ("up to 6 months", "just over two years").
UPPER_BOUNDS = r"(?:up to|less than|under|within|almost|nearly|just under|no more than|not more than|a maximum of)"
LOWER_BOUNDS = r"(?:over|more than|at least|just over|a minimum of|no less than|not less than)"
# Words around a length that do not change it.
LEADING = (
    r"(?:a period of|the period of|period of|for|a|the|preceding|previous|following|further|another|"
    r"additional|approximately|about|around|of|the first|the last)"
)
TRAILING = r"(?:period|periods|term|time limit|sentence|'|'s|old|of age|in prison)"


@dataclass(frozen=True)
class Duration:
    """A length of time: ``days`` its value in days (None when vague: "several years"),
    ``unit`` the largest unit written, ``bound`` "upper", "lower" or "" and
    ``direction`` "later", "earlier" or "" for relative times."""

    days: float | None
    unit: str
    bound: str = ""
    direction: str = ""
    vague_amount: str = ""

    @property
    def amount(self) -> float | None:
        """The length in its largest unit (2.25 for "two years and three months")."""
        return None if self.days is None else self.days / UNIT_DAYS[self.unit]


@dataclass(frozen=True)
class Position:
    """A numbered step of a schedule: "Day 12" is (day, 12)."""

    unit: str
    number: int


def parse_duration(text: str) -> Duration | None:
    """A length of time or a relative time, None if ``text`` is not one."""
    text = normalize(text)
    direction = ""
    match = re.fullmatch(r"(.+?) (later|earlier|before|after|ago|late|afterwards)", text)
    if match:
        text = match.group(1)
        direction = "earlier" if match.group(2) in ("earlier", "before", "ago") else "later"
    bound = ""
    while True:
        stripped = re.sub(rf"^{LEADING} ", "", text)
        stripped = re.sub(rf" {TRAILING}$", "", stripped)
        bounded = re.match(rf"^({UPPER_BOUNDS}|{LOWER_BOUNDS}) ", stripped)
        if bounded:
            bound = "upper" if re.fullmatch(UPPER_BOUNDS, bounded.group(1)) else "lower"
            stripped = stripped[bounded.end() :]
        if stripped == text:
            break
        text = stripped
    if direction and re.fullmatch(UNITS, text):  # "a day late": "a" was stripped as a filler
        text = f"one {text}"
    return _lengths(text, bound, direction)


def _lengths(text: str, bound: str, direction: str) -> Duration | None:
    parts = re.split(r"\s*(?:,\s*and|,|\band\b)\s*", text)
    total, largest, vague = 0.0, None, ""
    for part in parts:
        match = re.fullmatch(PART, part)
        if not match:
            return None
        amount_text, unit = match.group(1), match.group(2)
        if re.fullmatch(VAGUE, amount_text):
            if len(parts) > 1:
                return None
            return Duration(None, unit, bound, direction, vague_amount=amount_text)
        amount = parse_number(amount_text)
        if amount is None:
            return None
        total += amount * UNIT_DAYS[unit]
        if largest is None or UNIT_DAYS[unit] > UNIT_DAYS[largest]:
            largest = unit
    return Duration(total, largest, bound, direction, vague)


def parse_position(text: str) -> Position | None:
    """ "Day 12", "Week 16", "9th Month", "the third week"."""
    text = normalize(text)
    match = re.fullmatch(rf"(?:the )?({UNITS}) (\d+)", text)
    if match:
        return Position(match.group(1), int(match.group(2)))
    match = re.fullmatch(rf"(?:the )?(\d+)(?:st|nd|rd|th) ({UNITS})", text)
    if match:
        return Position(match.group(2), int(match.group(1)))
    match = re.fullmatch(rf"(?:the )?({'|'.join(ORDINALS)}) ({UNITS})", text)
    if match:
        return Position(match.group(2), ORDINALS[match.group(1)])
    return None
