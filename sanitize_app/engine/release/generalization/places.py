"""LOC mentions and their truthful generalizations along the gazetteer's hierarchy
(``gazetteer.py``): a town or city -> "a city in <nation>" (the nations of the United
Kingdom) -> "a city in <country>" -> country -> UN sub-region -> continent; a county or
province -> "a county in <parent>" -> parent -> country -> sub-region -> continent; a
country -> "a country in <sub-region>" -> "a country in <continent>" -> "a country"; an
adjective ("English") -> the country's adjective, the sub-region's, the continent's.

A name several places share ("Halifax", "Essex") is read as the one in a country the
document names (``context``), else the most populous, a large city before a
subdivision and a subdivision before a small town. Unknown places give []."""

import re
from collections import Counter
from functools import lru_cache

from ..types import CANDIDATES_PER_ENTITY
from .gazetteer import Country, Place, fold, gazetteer

PREFIXES = (
    r"^(?:london borough of|royal borough of|borough of|city of|county of|municipality of|district of|town of)\s+"
)
CONTINENT_ADJECTIVES = {
    "Europe": "European", "Asia": "Asian", "Africa": "African", "North America": "North American",
    "South America": "South American", "Oceania": "Oceanian", "Antarctica": "Antarctic",
}  # fmt: skip
PLACE = "a place"


def adjective(area: str) -> str:
    """ "Western Asia" -> "Western Asian", "Caribbean" -> "Caribbean"."""
    if area in CONTINENT_ADJECTIVES:
        return CONTINENT_ADJECTIVES[area]
    if area == "Australia and New Zealand":
        return "Australasian"
    head, _, last = area.rpartition(" ")
    last_adjective = CONTINENT_ADJECTIVES.get(last) or (last + "n" if last.endswith("ia") else last)
    return f"{head} {last_adjective}".strip()


def _tail(country: Country) -> list[str]:
    return [area for area in (country.region, country.continent) if area]


def country_ladder(country: Country) -> list[str]:
    ladder = [f"a country in {area}" for area in _tail(country)]
    return ladder + ["a country"]


def demonym_ladder(code: str, written: str) -> list[str]:
    """ "English" -> [British, Northern European, European]."""
    data = gazetteer()
    country = data.countries[code]
    canonical = next(name for name, where in data.demonyms.items() if where == code)
    ladder = [] if fold(written) == canonical else [canonical.title()]
    return ladder + [adjective(area) for area in _tail(country)]


def place_ladder(place: Place) -> list[str]:
    data = gazetteer()
    country = data.countries[place.country]
    ladder = []
    if place.kind == "subdivision":
        ladder.append(subdivision_phrase(place, country))
        if place.parent:
            ladder.append(place.parent)
    else:
        nation = NATIONS.get(place.region_code)
        if nation:
            ladder.append(f"a {place.kind} in {nation}")
        ladder.append(f"a {place.kind} in {country.name}")
    return ladder + [country.name, *_tail(country), PLACE]


def subdivision_phrase(place: Place, country: Country) -> str:
    """ "a county in England", "a nation of the United Kingdom"."""
    preposition = "of" if place.noun == "a nation" else "in"
    return f"{place.noun} {preposition} {place.parent or country.name}"


# The nations of the United Kingdom, by the subdivision code geonames gives its cities.
NATIONS = {"GB-ENG": "England", "GB-SCT": "Scotland", "GB-WLS": "Wales", "GB-NIR": "Northern Ireland"}


@lru_cache(maxsize=16)
def context_countries(context: str) -> frozenset[str]:
    """The countries a document names (by name or adjective), to read ambiguous places."""
    if not context:
        return frozenset()
    data = gazetteer()
    found = set()
    for match in _names_pattern().finditer(fold(context)):
        name = match.group(0)
        found.add(data.country_names.get(name) or data.demonyms[name])
    return frozenset(found)


@lru_cache(maxsize=1)
def _names_pattern() -> re.Pattern:
    data = gazetteer()
    names = [name for name in (*data.country_names, *data.demonyms) if len(name) >= 4]
    names.sort(key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(re.escape(name) for name in names) + r")\b")


def _best(places: list[Place], countries: frozenset[str], within: str | None = None) -> Place | None:
    if within:
        places = [p for p in places if p.country == within]
    if not places:
        return None

    def rank(place: Place) -> tuple:
        big_city = place.kind == "city"
        return (place.country in countries, big_city, place.kind == "subdivision", place.population)

    return max(places, key=rank)


def _resolve(name: str, countries: frozenset[str], within: str | None = None):
    """A Country, a Place or a demonym's country code (as ("demonym", code))."""
    data = gazetteer()
    folded = fold(name)
    for candidate in dict.fromkeys((folded, re.sub(PREFIXES, "", folded))):
        code = data.country_names.get(candidate)
        if code and (within is None or code == within):
            return data.countries[code]
        if candidate in data.demonyms and within is None:
            return ("demonym", data.demonyms[candidate])
        place = _best(data.places.get(candidate, []), countries, within)
        # A town or region of a country the document never names is more likely
        # another place of the same name ("South-West" of England is not Cameroon's).
        if place is not None and (not countries or place.country in countries or place.kind == "city"):
            return place
    return None


def _ladder_of(resolved, written: str) -> list[str]:
    if isinstance(resolved, Country):
        return country_ladder(resolved)
    if isinstance(resolved, Place):
        return place_ladder(resolved)
    return demonym_ladder(resolved[1], written)


def _country_code(resolved) -> str | None:
    if isinstance(resolved, Country):
        return resolved.code
    if isinstance(resolved, Place):
        return resolved.country
    return None


def location_candidates(text: str, context: str = "") -> list[str]:
    """Up to five truthful generalizations of a LOC mention, most specific first; []
    for a place the gazetteer does not know. ``context``: the document's text, to read
    a name several places share."""
    if not isinstance(text, str):
        raise TypeError(f"location_candidates expects a str, got {type(text).__name__}")
    countries = context_countries(context)
    resolved = _resolve(text, countries)
    if resolved is not None:
        ladder = _ladder_of(resolved, text)
    else:
        ladder = _comma_ladder(text, countries)
    original = fold(text)
    unique = [c for c in dict.fromkeys(ladder) if fold(c) != original]
    return unique[:CANDIDATES_PER_ENTITY]


def _comma_ladder(text: str, countries: frozenset[str]) -> list[str]:
    """ "Evesham, England": the town in England; "Falls Road, Belfast" (a street the
    gazetteer does not know): Belfast, then Belfast's ladder."""
    head, _, tail = text.rpartition(",")
    if not head.strip() or not tail.strip():
        return []
    outer = _resolve(tail, countries)
    if outer is None:
        return []
    inner = _resolve(head.split(",")[-1], countries, within=_country_code(outer))
    if isinstance(inner, Place) and (not isinstance(outer, Place) or inner.kind != "subdivision"):
        return place_ladder(inner)
    return [_display(outer, tail), *_ladder_of(outer, tail)]


def _display(resolved, written: str) -> str:
    if isinstance(resolved, Country):
        return resolved.name
    if isinstance(resolved, Place):
        return resolved.name
    return written.strip()


def place_set_size(candidate: str) -> int | None:
    """How many places a candidate covers: "a city in Turkey" -> the cities of Turkey in
    the gazetteer, "Turkey" -> 1, "Western Asia" or "a country in Western Asia" -> its
    countries, "a county in England" -> England's counties; None when unknown."""
    if not isinstance(candidate, str):
        raise TypeError(f"place_set_size expects a str, got {type(candidate).__name__}")
    folded = fold(candidate)
    size = _set_sizes().get(folded)
    if size is None and (folded in gazetteer().places or folded in gazetteer().country_names):
        return 1  # one named place ("Belfast")
    return size


@lru_cache(maxsize=1)
def _set_sizes() -> dict[str, int]:
    data = gazetteer()
    sizes: dict[str, int] = {}
    areas: Counter = Counter()
    for code, country in data.countries.items():
        sizes[fold(country.name)] = 1
        areas.update(_tail(country))
        for kind in ("city", "town"):
            if data.sizes.get(f"{kind}:{code}"):
                sizes[fold(f"a {kind} in {country.name}")] = data.sizes[f"{kind}:{code}"]
    for region_code, nation in NATIONS.items():
        for kind in ("city", "town"):
            if data.sizes.get(f"{kind}:{region_code}"):
                sizes[fold(f"a {kind} in {nation}")] = data.sizes[f"{kind}:{region_code}"]
    for area, count in areas.items():
        for phrase in (area, f"a country in {area}", adjective(area)):
            sizes[fold(phrase)] = count
    subdivisions = {id(p): p for places in data.places.values() for p in places if p.kind == "subdivision"}
    within: Counter = Counter()
    for place in subdivisions.values():
        sizes.setdefault(fold(place.name), 1)
        within[fold(subdivision_phrase(place, data.countries[place.country]))] += 1
    sizes.update(within)
    for name in data.demonyms:
        sizes.setdefault(name, 1)
    sizes["a country"] = len(data.countries)
    sizes[PLACE] = sum(count for key, count in data.sizes.items() if len(key.split(":")[1]) == 2)
    return sizes
