"""Regular patterns for the types that have a regular shape: DATETIME (dates, months,
years, durations, times), CODE (application, case and file numbers, phone numbers) and
QUANTITY (money, percentages, measures).

Patterns run on the raw text; an overlap with another candidate is settled later
(the longest span wins)."""

import re

from .candidates import Candidate

MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan\\.?|Feb\\.?|Mar\\.?|Apr\\.?|Jun\\.?|Jul\\.?|Aug\\.?|Sept?\\.?|Oct\\.?|Nov\\.?|Dec\\.?"
)
NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    "sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|"
    "a hundred|hundred|several|a few|few|a|an"
)
NUMBER = rf"(?:\d+(?:[.,]\d+)?|(?:{NUMBER_WORDS})(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?)"
UNITS_OF_TIME = "years?|months?|weeks?|days?|hours?|minutes?|seconds?|decades?"
CURRENCY_CODES = (
    "EUR|GBP|USD|TRY|TRL|YTL|PLN|RUB|UAH|CHF|SEK|NOK|DKK|HUF|CZK|SKK|RON|ROL|BGN|HRK|EEK|LVL|LTL|"
    "ISK|MDL|AMD|AZN|GEL|RSD|MKD|ALL|BAM|SIT|CYP|MTL|FIM|FRF|DEM|ITL|ESP|PTE|GRD|ATS|BEF|NLG|IEP"
)
CURRENCY_NATIONS = (
    "Danish|Swedish|Norwegian|Icelandic|Turkish|Swiss|Polish|Czech|Slovak|Hungarian|Russian|Ukrainian|Romanian|"
    "Bulgarian|Croatian|Serbian|Moldovan|Georgian|Armenian|Azerbaijani|Maltese|Cypriot|Irish|French|German|"
    "Belgian|Dutch|Austrian|Italian|Spanish|Portuguese|Greek|Finnish|United States|US|American|Canadian|Australian"
)
CURRENCY_WORDS = (
    "euros?|pounds?(?: sterling)?|dollars?|(?:new )?Turkish liras?|liras?|lire|zlotys?|roubles?|rubles?|"
    "hryvnias?|(?:Swiss )?francs?|kronor|kroner|krona|krone|forints?|korunas?|lei|leu|levs?|leva|kunas?|"
    "marks|Deutsche Marks|drachmas?|escudos?|pesetas?|schillings?|guilders?|litas|lats|tolars?|dinars?|"
    "manats?|laris?|drams?|denars?"
)
AMOUNT = r"\d{1,3}(?:[ ,.\u00a0]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
_MONEY_CORE = (
    rf"(?:(?:\b(?:{CURRENCY_CODES})|[€£$])\s?(?:{AMOUNT})(?:\s?(?:million|billion|thousand))?"
    rf"|\b(?:{AMOUNT}|{NUMBER})(?:\s?(?:million|billion|thousand))?\s?(?:(?:{CURRENCY_NATIONS})\s)?(?:{CURRENCY_WORDS})"
    rf"(?:\s?\((?:“|\")?(?:{CURRENCY_CODES})(?:”|\")?\))?)"
)
# "DKK 247,200 (approximately EUR 33,200)": the conversion belongs to the amount.
_MONEY = rf"{_MONEY_CORE}(?:\s?\((?:approximately |about |around |i\.e\. |or |some )?{_MONEY_CORE}\))?"
COUNT_NUMBER = (
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)"
)
COUNTED_NOUNS = (
    "counts|charges|children|child|victims|defendants|witnesses|pages|cars|vehicles|co[-‑]accused|"
    "persons|people|men|women|officers|soldiers|shots|bullets|letters|complaints|"
    "hearings|rooms|floors|storeys|houses|flats|shares|copies|"
    "sheep|cattle|cows|trees|plots|bedrooms|members|employees|workers|prisoners|inmates"
)

_PATTERNS: list[tuple[str, str, re.Pattern]] = [
    # --- DATETIME -------------------------------------------------------------------
    (
        "DATETIME",
        "date",
        re.compile(
            rf"\b\d{{1,2}}(?:st|nd|rd|th)?(?:\s*(?:-|–|and|to)\s*\d{{1,2}}(?:st|nd|rd|th)?)?\s+(?:of\s+)?(?:{MONTHS})(?:,?\s+\d{{4}})?\b"
        ),
    ),
    ("DATETIME", "date", re.compile(rf"\b(?:{MONTHS})\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b")),
    (
        "DATETIME",
        "month",
        re.compile(rf"\b(?:early |mid-|late |the end of |the beginning of )?(?:{MONTHS})\s+(?:of\s+)?\d{{4}}\b"),
    ),
    ("DATETIME", "date", re.compile(r"\b\d{1,2}[./]\d{1,2}[./](?:\d{4}|\d{2})\b")),
    (
        "DATETIME",
        "range",
        re.compile(rf"\b(?:{MONTHS})(?:\s+\d{{4}})?\s+(?:to|and|until|-|–)\s+(?:{MONTHS})\s+\d{{4}}\b"),
    ),
    (
        "DATETIME",
        "period",
        re.compile(
            r"\b(?:first|second|last|latter|early|late|mid|middle|beginning|end|start|spring|summer|autumn|winter)"
            r"(?:\s+half|\s+part|\s+quarter)?(?:\s+of)?\s+(?:the\s+year\s+)?(?:1[89]\d\d|20\d\d)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "DATETIME",
        "year",
        re.compile(
            r"\b(?:tax\s+|financial\s+|school\s+|academic\s+)?years?\s+(?:1[89]\d\d|20\d\d)(?:\s*(?:-|–|/|and|to)\s*(?:1[89]\d\d|20\d\d|\d\d))?\b"
        ),
    ),
    ("DATETIME", "year", re.compile(r"\b(?:1[89]\d\d|20\d\d)(?:s|\s*(?:-|–|/)\s*(?:1[89]\d\d|20\d\d|\d\d))?\b")),
    (
        "DATETIME",
        "duration",
        re.compile(
            rf"\b{NUMBER}(?:\s+and\s+(?:a\s+)?half)?[\s-]+(?:{UNITS_OF_TIME})(?:'|’)?(?:\s+(?:and|,)\s+{NUMBER}[\s-]+(?:{UNITS_OF_TIME}))*\b",
            re.IGNORECASE,
        ),
    ),
    ("DATETIME", "time", re.compile(r"\b\d{1,2}(?:[.:]\d{2})?\s*(?:a\.m\.|p\.m\.|am\b|pm\b|hours\b|h\b)")),
    ("DATETIME", "time", re.compile(r"\b(?:at|around|about|until|from)\s+(\d{1,2}[.:]\d{2})\b")),
    ("DEM", "age", re.compile(rf"\b(?:aged\s+{NUMBER}|{NUMBER}[\s-]+years?[\s-]+old)\b", re.IGNORECASE)),
    # --- CODE -----------------------------------------------------------------------
    ("CODE", "application", re.compile(r"\b\d{1,6}/\d{2,4}\b")),
    ("CODE", "case", re.compile(r"\b(?:[EKD]\.\s?)?\d{2,4}/\d{1,6}(?:\s?[EKD]\.)?(?=[\s,.;)]|$)")),
    ("CODE", "number", re.compile(r"\b(?:no|No|nr|Nr|n°|N°)\.?\s+([A-Z]{0,4}[-/ ]?\d[\d/\-.]{2,}[A-Z]?)\b")),
    ("CODE", "phone", re.compile(r"(?:\+\d{1,3}[\s-]?)?\(?\d{2,4}\)?[\s-]\d{3,4}[\s-]\d{2,4}\b")),
    ("CODE", "plate", re.compile(r"\b\d{2}\s[A-Z]{1,3}\s\d{2,4}\b")),
    ("CODE", "identifier", re.compile(r"\b[A-Z]{1,4}[-/]?\d{4,}[A-Z]?\b|\b\d{6,}\b")),
    # --- QUANTITY -------------------------------------------------------------------
    ("QUANTITY", "money", re.compile(_MONEY, re.IGNORECASE)),
    (
        "QUANTITY",
        "count",
        re.compile(
            rf"\b{COUNT_NUMBER}(?:\s+(?:other|more|further|different|separate|young|adult|minor|older|younger))?\s+(?:{COUNTED_NOUNS})\b",
            re.IGNORECASE,
        ),
    ),
    ("QUANTITY", "percent", re.compile(r"\b\d+(?:[.,]\d+)?\s?(?:%|per\s?cent|percent)")),
    (
        "QUANTITY",
        "measure",
        re.compile(
            r"\b(?:" + AMOUNT + r")\s?(?:sq\. m\.|square metres|square meters|hectares?|km|kilometres?|kilometers?|"
            r"metres?|meters?|kg|kilograms?|grams?|tons?|tonnes?|litres?|liters?|m²|m2)(?![\w])"
        ),
    ),
]


def pattern_candidates(text: str) -> list[Candidate]:
    """Every match of every pattern (a pattern with a group marks only the group)."""
    found = []
    for label, name, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span(1) if match.re.groups else match.span()
            if end > start:
                found.append(Candidate(start, end, label, f"pattern:{name}"))
    return found
