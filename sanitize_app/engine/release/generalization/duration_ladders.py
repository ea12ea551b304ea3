"""Truthful generalizations of a length of time, of a relative time and of a numbered
step of a schedule, most specific first.

"six months" -> [several months, less than a year, a period of months, a period of
time]; "two years and three months" -> [more than two years, a few years, less than
five years, a period of years, a period of time]; "two years later" -> [a few years
later, less than five years later, some years later, some time later]. A length is only
ever bounded by round lengths it is strictly shorter or longer than, so each rung holds
the original."""

import math

from .durations import UNIT_DAYS, Duration, Position
from .number_words import UNITS as NUMBER_UNITS

# Round lengths, in days, that bound a length from above ("less than a year").
MONTH, YEAR = UNIT_DAYS["month"], UNIT_DAYS["year"]
ROUND_LENGTHS = (
    ("an hour", 1 / 24), ("a day", 1), ("a week", 7), ("two weeks", 14), ("a month", MONTH),
    ("three months", 3 * MONTH), ("six months", 6 * MONTH), ("a year", YEAR), ("two years", 2 * YEAR),
    ("five years", 5 * YEAR), ("ten years", 10 * YEAR), ("twenty years", 20 * YEAR), ("fifty years", 50 * YEAR),
    ("a century", 100 * YEAR),
)  # fmt: skip
NUMBER_NAMES = {
    value: name for name, value in NUMBER_UNITS.items() if name not in ("a", "an", "no", "zero", "dozen", "a dozen")
}
# The most units a vague amount can stand for, to bound it truthfully.
VAGUE_MOST = {"a couple of": 2, "a few": 5, "few": 5, "several": 9}


def count_words(amount: float, unit: str) -> str | None:
    """A vague count of ``unit`` that holds ``amount``: 6 months -> "several months"."""
    plural = f"{unit}s"
    if amount < 2:
        return None
    if amount < 5:
        return f"a few {plural}"
    if amount < 10:
        return f"several {plural}"
    if amount < 20:
        return f"between ten and twenty {plural}"
    if amount < 100:
        return f"dozens of {plural}"
    return f"hundreds of {plural}"


def _shorter_than(days: float) -> str | None:
    for label, length in ROUND_LENGTHS:
        if length > days * 1.0001:
            return f"less than {label}"
    return None


def _longer_than(days: float) -> str | None:
    longer = [label for label, length in ROUND_LENGTHS if length * 1.0001 < days]
    return f"more than {longer[-1]}" if longer else None


def _relative(candidates: list[str], direction: str) -> list[str]:
    if not direction:
        return candidates
    relative = []
    for candidate in candidates:
        if candidate.startswith("a period of "):
            candidate = "some " + candidate.removeprefix("a period of ")
        relative.append(f"{candidate} {direction}")
    return relative


def duration_ladder(duration: Duration, limit: int = 5) -> list[str]:
    ladder: list[str | None] = []
    unit, amount = duration.unit, duration.amount
    if duration.days is None:  # "several years", "a few days"
        most = VAGUE_MOST.get(duration.vague_amount)
        if duration.vague_amount != "some":
            ladder.append(f"some {unit}s")
        if most is not None:
            ladder.append(_shorter_than(most * UNIT_DAYS[unit]))
    elif duration.bound == "upper":
        ladder.append(_shorter_than(duration.days * 0.9999))
    elif duration.bound == "lower":
        ladder.append(_longer_than(duration.days * 1.0001))
    else:
        if not float(amount).is_integer() and amount >= 1:
            whole = math.floor(amount)
            ladder.append(f"more than {NUMBER_NAMES.get(whole, str(whole))} {unit}{'s' if whole > 1 else ''}")
        ladder.append(count_words(amount, unit))
        ladder.append(_shorter_than(duration.days))
        if amount >= 2:
            ladder.append(f"a period of {unit}s")
    ladder.append("a period of time")
    unique = list(dict.fromkeys(c for c in ladder if c))
    return _relative(unique, duration.direction)[:limit]


POSITION_BLOCKS = {"month": 3, "year": 10, "decade": 10}


def position_ladder(position: Position, limit: int = 5) -> list[str]:
    """ "Day 12" -> [between day 11 and day 20, one of the first 50 days, a day]."""
    unit, number = position.unit, position.number
    block = POSITION_BLOCKS.get(unit, 10)
    low = (number - 1) // block * block + 1
    ladder = [f"between {unit} {low} and {unit} {low + block - 1}"]
    for first in (10, 50, 100, 500, 1000):
        if number <= first and first > low + block - 1:
            ladder.append(f"one of the first {first} {unit}s")
            break
    ladder.append(f"a {unit}")
    return ladder[:limit]
