"""QUANTITY mentions: sums of money, counts, measures, percentages and ages, with their
truthful generalizations, most specific first. A number becomes the ranges of magnitude
that hold it ("DKK 573,311" -> between 500,000 and 600,000 DKK, between 100,000 and
1,000,000 DKK, a six-figure sum in DKK, a sum in DKK, a sum of money); money keeps its
currency as the judgment writes it (a code, a symbol's code, or words such as "Turkish
liras"); a count keeps its noun ("three children" -> a few children, fewer than ten
children, some children). Lengths of time typed QUANTITY ("fourteen days") get the
duration ladder."""

import math
import re

from ..types import CANDIDATES_PER_ENTITY
from .duration_ladders import duration_ladder
from .durations import parse_duration
from .number_words import NUMBER, find_numbers, format_number, parse_number

CURRENCY_CODES = (
    r"(?:GBP|EUR|USD|DKK|SEK|NOK|PLN|TRL|TRY|FRF|DEM|ITL|ESP|CHF|RUB|UAH|HUF|CZK|ROL|RON|BGN|HRK|IEP|ATS|BEF|"
    r"NLG|PTE|GRD|FIM)"
)
CURRENCY_SYMBOLS = {"ir£": "Irish pounds", "£": "GBP", "€": "EUR", "$": "USD"}
CURRENCY_WORDS = (
    r"(?:(?:new )?turkish (?:liras?|lira)|pounds? sterling|pounds?|euros?|(?:us |american )?dollars?|"
    r"danish kron(?:er|or)|swedish kron(?:a|or)|norwegian kron(?:e|er)|kron(?:er|or|a)|zlotys?|"
    r"(?:french |swiss )?francs?|roubles?|rubles?|hryvnias?|lei|marks?|liras?|lire|pesetas?|escudos?|drachmas?)"
)
MEASURE_WORDS = (
    r"(?:kilograms?|kilos?|kg|grams?|g|tonnes?|tons?|sq\.? ?m\.?|sq\.?|square met(?:re|er)s?|m2|hectares?|ha|"
    r"kilomet(?:re|er)s?|km|met(?:re|er)s?|m|litres?|liters?|centimet(?:re|er)s?|cm|decares?)"
)
FIGURES = {1: "a one", 2: "a two", 3: "a three", 4: "a four", 5: "a five", 6: "a six", 7: "a seven", 8: "an eight"}
FIGURES.update({9: "a nine", 10: "a ten", 11: "an eleven", 12: "a twelve", 13: "a thirteen"})
# Words that follow a number without being what it counts ("10 to 2", "two out of fifteen").
NOT_A_NOUN = r"(?:to|out of|of|and|or|per|every|by|x)\b"
ORDINAL = r"(second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th)) ([a-z].*)"
# A sum paid per period: "GBP 240.80 per month", "GBP 100 every four weeks".
PER_PERIOD = r"(?: ((?:per|every|a|each) [a-z ]+))?"
APPROXIMATE = r"(?:approximately|about|around|some|nearly|almost|over|more than|only|roughly|circa|then|up to)"


def numbers_in(text: str) -> list[str]:
    """The numbers a text states, normalized so that the same number written differently
    compares equal: "1,250 euros" -> ["1250"], "three children" -> ["3"], "240.80" ->
    ["240.8"]."""
    normalized = []
    for _raw, value in find_numbers(text):
        normalized.append(str(int(value)) if float(value).is_integer() else repr(value))
    return normalized


def _strip(text: str) -> str:
    text = re.sub(r"\([^()]*(?:\([^()]*\)[^()]*)*\)?", " ", text)  # "(approximately EUR 33,200)", "(TRY"
    text = re.sub(r"\s+", " ", text.replace("\u2011", "-")).strip(" ,.;:)(\"'\u201c\u201d")
    return re.sub(rf"^(?:{APPROXIMATE} )+", "", text, flags=re.IGNORECASE)


def _money(text: str) -> tuple[float, str, str] | None:
    """The amount and the currency as written: "DKK 573,311", "50,000,000 Turkish liras",
    "IR£8,800", "24,952.51 pounds sterling"."""
    patterns = (
        rf"({CURRENCY_CODES}) ?({NUMBER}){PER_PERIOD}",
        rf"({NUMBER}) ({CURRENCY_CODES}|{CURRENCY_WORDS}){PER_PERIOD}",
        rf"(ir£|£|€|\$) ?({NUMBER}){PER_PERIOD}",
    )
    for index, pattern in enumerate(patterns):
        match = re.fullmatch(pattern, text, flags=re.IGNORECASE)
        if not match:
            continue
        currency, amount = (match.group(2), match.group(1)) if index == 1 else (match.group(1), match.group(2))
        value = parse_number(amount)
        if value is None:
            return None
        currency = CURRENCY_SYMBOLS.get(currency.lower(), currency)
        return value, currency, match.group(3) or ""
    return None


def _figures(value: float) -> int:
    return max(1, int(math.floor(math.log10(value))) + 1) if value >= 1 else 1


def magnitude_ranges(value: float) -> list[tuple[float, float]]:
    """Two ranges that hold ``value`` without stating it: one of its leading digit
    (573,311 -> 500,000..600,000; a round 5,000 -> 4,500..5,500) and one of its order
    of magnitude (100,000..1,000,000; a power of ten 100 -> 10..1,000)."""
    if value < 1:
        return [(0, 1)]
    step = 10 ** (_figures(value) - 1)
    low = math.floor(value / step) * step
    fine = (low, low + step) if value > low else (low - step / 2, low + step / 2)
    power = 10 ** (_figures(value) - 1)
    coarse = (power, power * 10) if value > power else (power / 10, power * 10)
    return [fine, coarse] if fine != coarse else [fine]


def money_candidates(value: float, currency: str, period: str = "") -> list[str]:
    ladder = [
        f"between {format_number(low)} and {format_number(high)} {currency}" for low, high in magnitude_ranges(value)
    ]
    figures = _figures(value)
    if figures > 1:
        ladder.append(f"{FIGURES.get(figures, f'a {figures}')}-figure sum in {currency}")
    ladder += [f"a sum in {currency}", "a sum of money"]
    return [f"{candidate} {period}" for candidate in ladder] if period else ladder


def count_candidates(value: float, noun: str) -> list[str]:
    """ "three children" -> [a few children, fewer than ten children, some children,
    a number of children]; numbers of ten and more get ranges of magnitude."""
    noun = f" {noun}" if noun else ""
    if value == 0:
        return [f"fewer than two{noun}", f"fewer than five{noun}", f"fewer than ten{noun}"]
    if value < 10:
        ladder = [] if value < 2 else [f"{'a few' if value < 5 else 'several'}{noun}"]
        ladder.append(f"fewer than ten{noun}")
        if noun:
            ladder.append(f"some{noun}")
        return ladder + [f"a number of{noun}" if noun else "a number"]
    ladder = [f"between {format_number(low)} and {format_number(high)}{noun}" for low, high in magnitude_ranges(value)]
    many = "dozens" if value < 100 else "hundreds" if value < 1000 else "thousands"
    ladder.append(f"{many} of{noun}" if noun else f"{many}")
    return ladder + [f"many{noun}" if noun else "a large number", f"a number of{noun}" if noun else "a number"]


def percent_candidates(value: float, rest: str) -> list[str]:
    rest = f" {rest}" if rest else ""
    low = math.floor(value / 10) * 10
    low, high = (low, low + 10) if value > low else (low - 5, low + 5)
    half = "less than half" if value < 50 else "more than half" if value > 50 else ""
    ladder = [f"between {format_number(max(low, 0))} and {format_number(min(high, 100))} %{rest}"]
    if half:
        ladder.append(f"{half}{rest}")
    return ladder + [f"a share{rest}" if rest.startswith(" of") else "a share"]


AGE = rf"(?:(?:then |at )?(?:aged|age of|age|the age of) )?({NUMBER})(?: years? old| years? of age)?"
DECADE_NAMES = {20: "twenties", 30: "thirties", 40: "forties", 50: "fifties", 60: "sixties", 70: "seventies"}
DECADE_NAMES.update({80: "eighties", 90: "nineties"})


def age_candidates(text: str) -> list[str]:
    """ "aged 35", "age of sixty", "age 65" -> [between 30 and 39 years old, in their
    thirties, an adult]; [] when ``text`` states no age."""
    match = re.fullmatch(AGE, _strip(text), flags=re.IGNORECASE)
    if not match or not re.search(r"age|old", text, flags=re.IGNORECASE):
        return []
    return age_ladder(match.group(1))


def age_ladder(number: str) -> list[str]:
    """The ladder of an age written as a number ("35", "sixty three")."""
    age = parse_number(number)
    if age is None or not 0 < age < 120:
        return []
    low = int(age) // 10 * 10
    ladder = [f"between {low} and {low + 9} years old"]
    if low in DECADE_NAMES:
        ladder.append(f"in their {DECADE_NAMES[low]}")
    elif 13 <= age < 20:
        ladder.append("a teenager")
    ladder.append("an adult" if age >= 18 else "a minor")
    return ladder


def _count(text: str) -> tuple[float, str] | None:
    match = re.fullmatch(rf"({NUMBER}|no)(?: (.+))?", text, flags=re.IGNORECASE)
    if not match:
        return None
    value = 0.0 if match.group(1).lower() == "no" else parse_number(match.group(1))
    noun = (match.group(2) or "").strip()
    if value is None or (noun and not re.search(r"[a-z]", noun, flags=re.IGNORECASE)):
        return None
    if re.match(NOT_A_NOUN, noun, flags=re.IGNORECASE):
        return None
    return value, noun


def _ladder(text: str) -> list[str]:
    money = _money(text)
    if money:
        return money_candidates(*money)
    percent = re.fullmatch(rf"({NUMBER}) ?(?:%|per ?cent)(?: (.+))?", text, flags=re.IGNORECASE)
    if percent and parse_number(percent.group(1)) is not None:
        return percent_candidates(parse_number(percent.group(1)), percent.group(2) or "")
    duration = parse_duration(text)
    if duration is not None:
        return duration_ladder(duration)
    if text.lower() in ("twice", "two times"):
        return ["more than once", "a few times", "several times"]
    ages = age_candidates(text)
    if ages and re.search(r"age|old", text, flags=re.IGNORECASE):
        return ages
    measure = re.fullmatch(rf"({NUMBER}) ({MEASURE_WORDS})(?: (of .+))?", text, flags=re.IGNORECASE)
    if measure and parse_number(measure.group(1)) is not None:
        noun = " ".join(part for part in (measure.group(2), measure.group(3)) if part)
        return count_candidates(parse_number(measure.group(1)), noun)[:-1] + [f"a quantity of {measure.group(2)}"]
    ordinal = re.fullmatch(ORDINAL, text, flags=re.IGNORECASE)
    if ordinal:  # "fourth review": one after the first, of that kind
        return [f"a later {ordinal.group(2)}", f"a {ordinal.group(2)}"]
    count = _count(text)
    return count_candidates(*count) if count else []


def quantity_candidates(text: str) -> list[str]:
    """Up to five truthful generalizations of a QUANTITY mention, most specific first;
    [] when ``text`` states no quantity the rules know."""
    if not isinstance(text, str):
        raise TypeError(f"quantity_candidates expects a str, got {type(text).__name__}")
    ladder = _ladder(_strip(text))
    original = text.strip().lower()
    unique = [c for c in dict.fromkeys(ladder) if c.lower() != original]
    return unique[:CANDIDATES_PER_ENTITY]
