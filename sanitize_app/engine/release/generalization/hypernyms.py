"""DEM, ORG and MISC mentions: small curated hypernym ladders for the frequent cases of
the TAB documents (``data/release/hypernyms.json``), nationalities and countries through
the gazetteer ("Turkish" -> Western Asian, Asian; "British national" -> Northern European
national, European national), governments of a country, ages, counts and years written
as DEM. Anything else gets [] and the caller falls back to the type label (or asks the
LLM when one is configured)."""

import json
import re
from functools import lru_cache

from ..types import CANDIDATES_PER_ENTITY
from .dates import datetime_candidates, parse_datetime
from .gazetteer import DATA, fold, gazetteer
from .places import adjective, country_ladder
from .quantities import age_candidates, age_ladder, quantity_candidates

HYPERNYM_TYPES = ("DEM", "ORG", "MISC")
NATIONALITY = re.compile(r"^(.+?)(?: (nationals?|citizens?|people|woman|man|origin|descent))?$")
GOVERNMENT = re.compile(r"^(?:(.+?) government|government of (.+?))(?: \(.*\))?$")


@lru_cache(maxsize=1)
def _rules() -> list[tuple[frozenset[str], re.Pattern, list[str]]]:
    data = json.loads((DATA / "hypernyms.json").read_text(encoding="utf-8"))
    return [(frozenset(rule["types"]), re.compile(rule["pattern"]), rule["ladder"]) for rule in data["rules"]]


def _country_code(name: str) -> str | None:
    data = gazetteer()
    folded = fold(name)
    return data.country_names.get(folded) or data.demonyms.get(folded)


def _nationality(text: str) -> list[str]:
    """ "Turkish" -> [Western Asian, Asian]; "British nationals" -> [Northern European
    nationals, European nationals]."""
    match = NATIONALITY.match(fold(text))
    code = _country_code(match.group(1)) if match else None
    if code is None:
        return []
    country = gazetteer().countries[code]
    rest = f" {match.group(2)}" if match.group(2) else ""
    return [f"{adjective(area)}{rest}" for area in (country.region, country.continent) if area]


def _government(text: str) -> list[str]:
    """ "Turkish Government", "Government of the United Kingdom" -> the Government of a
    country in its sub-region, then in its continent, then a national government."""
    match = GOVERNMENT.match(fold(text))
    code = _country_code(match.group(1) or match.group(2)) if match else None
    if code is None:
        return []
    country = gazetteer().countries[code]
    ladder = [f"the Government of a country in {area}" for area in (country.region, country.continent) if area]
    return ladder + ["a national government"]


def _numeric(entity_type: str, text: str) -> list[str]:
    """Ages, counts and years annotated as DEM ("aged 21", "17", "two children", "1961")."""
    stripped = text.strip(" ,.")
    if parse_datetime(stripped) is not None:  # "1961", "November 1945"
        return datetime_candidates(stripped)
    ages = age_candidates(stripped)
    if ages:
        return ages
    if entity_type == "DEM" and re.fullmatch(r"(?:\d{1,3}|[a-z]+(?:[ -][a-z]+)?)", stripped.lower()):
        ladder = age_ladder(stripped)  # a bare number describing a person is an age
        if ladder:
            return ladder
    if entity_type == "DEM" and re.match(
        r"^(?:\d|no |one |two |three |four |five |six |seven |eight |nine |ten )", stripped.lower()
    ):
        return quantity_candidates(stripped)
    return []


def hypernym_candidates(entity_type: str, text: str) -> list[str]:
    """Up to five truthful hypernyms of a DEM, ORG or MISC mention, most specific first;
    [] when no table knows it."""
    if not isinstance(text, str) or not isinstance(entity_type, str):
        raise TypeError("hypernym_candidates expects an entity type and a mention text (str)")
    if entity_type not in HYPERNYM_TYPES:
        return []
    ladder = _ladder(entity_type, text)
    original = fold(text)
    unique = [c for c in dict.fromkeys(ladder) if fold(c) != original]
    return unique[:CANDIDATES_PER_ENTITY]


def _ladder(entity_type: str, text: str) -> list[str]:
    if entity_type in ("DEM", "ORG"):
        ladder = _government(text)
        if ladder:
            return ladder
        code = gazetteer().country_names.get(fold(text))
        if code and entity_type == "ORG":  # the respondent State named as a party
            return country_ladder(gazetteer().countries[code])
        ladder = _nationality(text)
        if ladder:
            return ladder
    ladder = _numeric(entity_type, text)
    if ladder:
        return ladder
    lowered = text.lower().replace("\u2019", "'")
    for types, pattern, rule_ladder in _rules():
        if entity_type in types and pattern.search(lowered):
            return list(rule_ladder)
    return []
