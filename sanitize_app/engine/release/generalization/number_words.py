"""Numbers as ECHR judgments write them: digits with thousands separators ("1,250",
"11.590.000"), decimals ("240.80"), and English number words ("twenty-two", "Twenty
three", "a hundred"). Shared by the date ladders (durations) and the quantity ladders."""

import re

UNITS = {
    "zero": 0, "no": 0, "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "a dozen": 12, "dozen": 12,
}  # fmt: skip
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
}  # fmt: skip

_WORD = "|".join(sorted([*UNITS, *TENS, *SCALES], key=len, reverse=True))
# A run of number words ("twenty-two", "one hundred and five", "a dozen").
NUMBER_WORDS = rf"(?:(?:{_WORD})(?:(?:\s+and\s+|[\s\-‑]+)(?:{_WORD}))*)"
# Digits: thousands grouped by "," or "." or a space; an optional decimal part.
NUMBER_DIGITS = r"(?:\d{1,3}(?:[,.]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d+)?)"
NUMBER = rf"(?:{NUMBER_DIGITS}|\b{NUMBER_WORDS}\b)"
_NUMBER_RE = re.compile(NUMBER, re.IGNORECASE)


def words_to_number(text: str) -> int | None:
    """The value of English number words ("twenty-two" -> 22), None if not a number."""
    tokens = re.split(r"[\s\-‑]+", text.strip().lower())
    tokens = [t for t in tokens if t and t != "and"]
    if len(tokens) > 1 and tokens[0] in ("a", "an") and tokens[1] not in (*SCALES, "dozen"):
        tokens = tokens[1:]  # an article before a number ("a five-figure sum"), not "one"
    if not tokens:
        return None
    total, current, seen = 0, 0, False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "a" and index + 1 < len(tokens) and tokens[index + 1] == "dozen":
            current, index, seen = current + 12, index + 2, True
            continue
        if token in UNITS:
            current += UNITS[token]
        elif token in TENS:
            current += TENS[token]
        elif token == "hundred":
            current = max(current, 1) * 100
        elif token in SCALES:
            total += max(current, 1) * SCALES[token]
            current = 0
        else:
            return None
        seen, index = True, index + 1
    return total + current if seen else None


def digits_to_number(text: str) -> float | None:
    """The value of a written figure: "1,250" -> 1250, "11.590.000" -> 11590000,
    "240.80" -> 240.8, "6,25" -> 6.25 (a lone comma before one or two digits is a
    decimal comma, as in continental judgments)."""
    text = text.strip().replace(" ", "")
    if not re.fullmatch(NUMBER_DIGITS, text):
        return None
    if re.fullmatch(r"\d{1,3}(?:[,.]\d{3})+", text):
        return float(re.sub(r"[,.]", "", text))
    grouped = re.fullmatch(r"(\d{1,3}(?:[,.]\d{3})+)[.,](\d{1,2})", text)
    if grouped:
        return float(re.sub(r"[,.]", "", grouped.group(1)) + "." + grouped.group(2))
    return float(text.replace(",", "."))


def parse_number(text: str) -> float | None:
    """A figure or number words, whichever ``text`` is."""
    value = digits_to_number(text)
    if value is None:
        words = words_to_number(text)
        value = float(words) if words is not None else None
    return value


def find_numbers(text: str) -> list[tuple[str, float]]:
    """Every number written in ``text`` with its value, in order."""
    found = []
    for match in _NUMBER_RE.finditer(text):
        raw = match.group(0)
        if raw.lower() in ("a", "an", "no"):  # articles and "no" only count inside a phrase
            continue
        value = parse_number(raw)
        if value is not None:
            found.append((raw, value))
    return found


def format_number(value: float) -> str:
    """A figure with thousands separators and no needless decimals: 1000 -> "1,000"."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}"
