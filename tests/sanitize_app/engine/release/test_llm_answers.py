"""Reading lists out of LLM answers written in the shapes models use."""

import pytest

from sanitize_app.engine.release.llm_answers import parse_list

EXPECTED = ["a city in Turkey", "Turkey", "Western Asia", "Asia", "a place"]


@pytest.mark.parametrize(
    "answer",
    [
        "a city in Turkey\nTurkey\nWestern Asia\nAsia\na place",
        "1. a city in Turkey\n2. Turkey\n3. Western Asia\n4. Asia\n5. a place",
        "1) a city in Turkey\n2) Turkey\n3) Western Asia\n4) Asia\n5) a place",
        "- a city in Turkey\n- Turkey\n- Western Asia\n- Asia\n- a place",
        "* a city in Turkey\n* Turkey\n* Western Asia\n* Asia\n* a place",
        '"a city in Turkey"\n"Turkey"\n"Western Asia"\n"Asia"\n"a place"',
        "a city in Turkey.\nTurkey,\nWestern Asia;\nAsia.\na place.",
        "Here are five generalizations, from specific to general:\n\n1. a city in Turkey\n2. Turkey\n"
        "3. Western Asia\n4. Asia\n5. a place",
        '["a city in Turkey", "Turkey", "Western Asia", "Asia", "a place"]',
        '```json\n["a city in Turkey", "Turkey", "Western Asia", "Asia", "a place"]\n```',
        '{"generalizations": ["a city in Turkey", "Turkey", "Western Asia", "Asia", "a place"]}',
        "1. **a city in Turkey**\n2. **Turkey**\n3. **Western Asia**\n4. **Asia**\n5. **a place**",
        "1. a city in Turkey — more general than the city\n2. Turkey\n3. Western Asia\n4. Asia\n5. a place",
        "a city in Turkey; Turkey; Western Asia; Asia; a place",
        "a city in Turkey, Turkey, Western Asia, Asia, a place",
        "Sure!\n1. a city in Turkey\n2. Turkey\n3. Western Asia\n4. Asia\n5. a place\n"
        "These are ordered from the most specific to the most general.",
    ],
    ids=[
        "bare",
        "numbered-dot",
        "numbered-paren",
        "dash-bullets",
        "star-bullets",
        "quoted",
        "trailing-punctuation",
        "here-are-line",
        "json-array",
        "json-in-fence",
        "json-object",
        "bold",
        "explanation-after-dash",
        "semicolons",
        "commas",
        "chatty-both-ends",
    ],
)
def test_a_list_is_read_whatever_its_shape(answer):
    parsed = parse_list(answer)
    assert parsed.failure == ""
    assert parsed.items == EXPECTED


def test_numbers_inside_items_are_not_taken_for_list_markers():
    parsed = parse_list("1. 12.5 million\n2. - 5 degrees\n3. 2003\n4. 10) counts")
    assert parsed.items == ["12.5 million", "- 5 degrees", "2003", "10) counts"]


def test_a_single_place_with_one_comma_stays_one_item():
    assert parse_list("Paris, France").items == ["Paris, France"]


def test_duplicates_are_dropped_case_insensitively_and_the_list_is_cut_at_the_limit():
    parsed = parse_list("Turkey\nturkey\nAsia\nEurope\nAfrica\nAmerica\nOceania", limit=5)
    assert parsed.items == ["Turkey", "Asia", "Europe", "Africa", "America"]


@pytest.mark.parametrize(
    "answer",
    [
        "I cannot help with identifying people in court documents.",
        "I'm sorry, but I can't assist with that request.",
        "I’m sorry, I can’t do that.",
        "As an AI language model, I do not guess personal data.",
        "I am unable to provide that information.",
        "Unfortunately, I cannot provide guesses.",
    ],
)
def test_a_refusal_is_a_failure_with_its_reason(answer):
    parsed = parse_list(answer)
    assert parsed.items == []
    assert parsed.failure.startswith("refusal:")


@pytest.mark.parametrize("answer", ["", "   \n ", None])
def test_an_empty_answer_is_a_failure(answer):
    assert parse_list(answer).failure == "empty answer"


def test_prose_without_a_list_is_unparsable():
    prose = (
        "The marked span refers to a location in the applicant's home country, which in this case "
        "appears to be a rather large city in the eastern part of the country."
    )
    parsed = parse_list(prose)
    assert parsed.items == []
    assert parsed.failure.startswith("unparsable answer")


def test_an_answer_of_only_an_introduction_is_unparsable():
    assert parse_list("Here are five generalizations:").failure.startswith("unparsable answer")
