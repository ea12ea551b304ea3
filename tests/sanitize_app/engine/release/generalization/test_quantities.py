"""QUANTITY ladders on real mentions of the TAB dev sample, written out by hand."""

import pytest

from sanitize_app.engine.release.generalization.quantities import numbers_in, quantity_candidates


@pytest.mark.parametrize(
    ("text", "ladder"),
    [
        (
            "DKK 573,311",
            [
                "between 500,000 and 600,000 DKK",
                "between 100,000 and 1,000,000 DKK",
                "a six-figure sum in DKK",
                "a sum in DKK",
                "a sum of money",
            ],
        ),
        (
            # a round sum: the first range has it inside, not at an end
            "GBP 5,000",
            [
                "between 4,500 and 5,500 GBP",
                "between 1,000 and 10,000 GBP",
                "a four-figure sum in GBP",
                "a sum in GBP",
                "a sum of money",
            ],
        ),
        (
            # money keeps its currency as written; the parenthesis is dropped
            "50,000,000 Turkish liras (TRL)",
            [
                "between 45,000,000 and 55,000,000 Turkish liras",
                "between 10,000,000 and 100,000,000 Turkish liras",
                "an eight-figure sum in Turkish liras",
                "a sum in Turkish liras",
                "a sum of money",
            ],
        ),
        ("IR£8,800", ["between 8,000 and 9,000 Irish pounds", "between 1,000 and 10,000 Irish pounds"]),
        ("GBP 240.80 per month", ["between 200 and 300 GBP per month", "between 100 and 1,000 GBP per month"]),
        ("three children", ["a few children", "fewer than ten children", "some children", "a number of children"]),
        ("no children", ["fewer than two children", "fewer than five children", "fewer than ten children"]),
        (
            "84 prosecution witnesses",
            ["between 80 and 90 prosecution witnesses", "between 10 and 100 prosecution witnesses"],
        ),
        ("45 kilograms", ["between 40 and 50 kilograms", "between 10 and 100 kilograms", "dozens of kilograms"]),
        (
            "40 % of the flats",
            ["between 35 and 45 % of the flats", "less than half of the flats", "a share of the flats"],
        ),
        ("aged 17", ["between 10 and 19 years old", "a teenager", "a minor"]),
        ("fourteen days", ["between ten and twenty days", "less than a month", "a period of days", "a period of time"]),
        ("fourth review", ["a later review", "a review"]),
    ],
)
def test_ladders_of_real_quantities(text, ladder):
    assert quantity_candidates(text)[: len(ladder)] == ladder


@pytest.mark.parametrize("text", ["significant amount", "GBP", "10 to 2", "life imprisonment", ""])
def test_what_states_no_known_quantity_gets_no_ladder(text):
    assert quantity_candidates(text) == []


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("1,250 euros", ["1250"]),
        ("three children", ["3"]),
        ("GBP 240.80", ["240.8"]),
        ("11.590.000 Turkish Liras (TRL)", ["11590000"]),
        ("Twenty three hearings", ["23"]),
        ("DKK 247,200 (approximately EUR 33,200)", ["247200", "33200"]),
        ("a sum of money", []),
        # An article before number words is no "one": "a five" is 5, not 1 + 5.
        ("a five-figure sum", ["5"]),
        ("a hundred euros", ["100"]),
    ],
)
def test_numbers_in_normalizes_figures_and_number_words(text, numbers):
    assert numbers_in(text) == numbers


def test_no_candidate_repeats_the_number_of_a_sum_that_is_not_round():
    for candidate in quantity_candidates("DKK 573,311"):
        assert "573311" not in numbers_in(candidate)


def test_every_real_quantity_ladder_is_short_unique_and_never_the_original(sample_documents):
    for document in sample_documents:
        for layer in document["annotations"].values():
            for mention in layer["entity_mentions"]:
                if mention["entity_type"] != "QUANTITY":
                    continue
                ladder = quantity_candidates(mention["span_text"])
                assert len(ladder) <= 5 and len(set(ladder)) == len(ladder)
                assert mention["span_text"].lower() not in [c.lower() for c in ladder]
