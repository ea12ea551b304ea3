"""MATCH: when an attacker's guess recovers the original of a span."""

import pytest

from sanitize_app.engine.release.matching import Matcher, acronyms, frequent_lemmas, simple_lemmas, spacy_lemmatizer


@pytest.fixture
def matcher():
    return Matcher()


@pytest.mark.parametrize(
    "guess, original, entity_type",
    [
        ("Ankara", "Ankara", "LOC"),
        ("ankara", "ANKARA", "LOC"),
        ("  the  Istanbul State Security Court.", "the Istanbul State Security Court", "ORG"),
        ("3 August 2003", "3 August 2003", "DATETIME"),
        ("a date in the past", "a date in the past", "DATETIME"),
    ],
)
def test_the_same_string_lower_cased_matches_exactly(matcher, guess, original, entity_type):
    assert matcher.matches(guess, original, entity_type) == "exact"


@pytest.mark.parametrize(
    "guess, original",
    [
        ("03/08/2003", "3 August 2003"),
        ("3 Aug. 2003", "3 August 2003"),
        ("June 4, 1975", "4 June 1975"),
        ("on 3rd August 2003", "3 August 2003"),
        ("2003", "in 2003"),
    ],
)
def test_dates_that_parse_to_the_same_days_match(matcher, guess, original):
    assert matcher.matches(guess, original, "DATETIME") == "same date"


@pytest.mark.parametrize(
    "guess, original",
    [
        ("August 2003", "3 August 2003"),  # a month is not the day
        ("4 August 2003", "3 August 2003"),
        ("2003", "3 August 2003"),
        ("3 August 2004", "3 August 2003"),
        ("summer 2003", "August 2003"),
        # A guess that is no date does not recover a date by sharing its month or year.
        ("August", "3 August 2003"),
        ("sometime around 2003 or so", "3 August 2003"),
    ],
)
def test_dates_that_denote_other_days_do_not_match(matcher, guess, original):
    assert matcher.matches(guess, original, "DATETIME") == ""


def test_a_date_original_that_does_not_parse_falls_back_to_content_lemmas(matcher):
    assert matcher.matches("the material period", "the material time", "DATETIME") == "shared lemma 'material'"
    assert matcher.matches("the relevant period", "the material time", "DATETIME") == ""


@pytest.mark.parametrize(
    "guess, original, entity_type, reason",
    [
        ("a city near Ankara", "Ankara", "LOC", "shared lemma 'ankara'"),
        ("the prisons of Edirne", "Edirne F-type Prison", "ORG", "shared lemma 'edirne'"),
        ("a high-security prison", "Edirne F-type Prison", "ORG", "shared lemma 'prison'"),
        ("nurses", "nurse", "DEM", "shared lemma 'nurse'"),
        ("the applicant's brothers", "his brother", "MISC", "shared lemma 'brother'"),
        ("a life sentence", "life imprisonment", "QUANTITY", "shared lemma 'life'"),  # no number: words
    ],
)
def test_a_shared_content_lemma_matches(matcher, guess, original, entity_type, reason):
    assert matcher.matches(guess, original, entity_type) == reason


@pytest.mark.parametrize(
    "guess, original, entity_type",
    [
        ("in the one of them", "the applicant in one of the cells", "MISC"),  # stop words only
        ("Istanbul", "Ankara", "LOC"),
        ("a period of years", "two years", "MISC"),  # a unit says what was counted, not how much
        ("EUR", "EUR 12,500", "MISC"),
        ("...", "Ankara", "LOC"),
        ("", "Ankara", "LOC"),
    ],
)
def test_stop_words_punctuation_and_units_do_not_match(matcher, guess, original, entity_type):
    assert matcher.matches(guess, original, entity_type) == ""


@pytest.mark.parametrize(
    "guess, original, reason",
    [
        ("12,500 euros", "EUR 12,500", "same number 12500"),
        ("19 defendants", "nineteen other defendants", "same number 19"),
        ("between 2 and 3 years", "two years and three months", "same number 2"),
        ("20 defendants", "nineteen other defendants", ""),  # the thing counted is no amount
        ("EUR 5,000", "EUR 12,500", ""),  # nor is the currency
        ("between 10,000 and 20,000 EUR", "EUR 12,500", ""),
        ("ten years", "two years", ""),
    ],
)
def test_a_quantity_with_a_number_matches_only_a_guess_stating_that_number(matcher, guess, original, reason):
    assert matcher.matches(guess, original, "QUANTITY") == reason


def test_a_count_typed_dem_or_misc_is_matched_by_its_number():
    matcher = Matcher()
    assert matcher.matches("a few children", "three children", "DEM") == ""
    assert matcher.matches("3 kids", "three children", "DEM") == "same number 3"
    assert matcher.matches("two brothers", "four brothers", "MISC") == ""
    # Not a count: the words decide.
    assert matcher.matches("the 3rd Division", "the 2nd Division of the Court", "ORG") == "shared lemma 'division'"
    assert matcher.matches("children", "three children of the applicant's first marriage", "DEM") == (
        "shared lemma 'children'"
    )


def test_the_most_frequent_corpus_lemmas_do_not_match():
    assert Matcher().matches("a court", "the Constitutional Court", "ORG") == "shared lemma 'court'"
    assert Matcher(frequent_lemmas={"court"}).matches("a court", "the Constitutional Court", "ORG") == ""
    # Another shared lemma still matches.
    assert Matcher(frequent_lemmas={"court"}).matches("constitutional body", "the Constitutional Court", "ORG") == (
        "shared lemma 'constitutional'"
    )


@pytest.mark.parametrize(
    "guess, original, reason",
    [
        ("ECHR", "European Court of Human Rights", "acronym ECHR"),
        ("the European Court of Human Rights", "ECHR", "acronym ECHR"),
        ("the UN", "United Nations", "acronym UN"),
        ("US", "the United States", "acronym US"),
        ("NATO", "the North Atlantic Treaty Organization", "acronym NATO"),
    ],
)
def test_an_acronym_of_either_side_matches(matcher, guess, original, reason):
    assert matcher.matches(guess, original, "ORG") == reason


def test_a_stop_word_written_in_lower_case_is_no_acronym(matcher):
    assert matcher.matches("us", "the United States", "LOC") == ""
    assert acronyms("European Court of Human Rights") == {"echr", "ecohr"}
    assert acronyms("Ankara") == set()


@pytest.mark.parametrize(
    "guess, original, entity_type, reason",
    [
        ("Turkey", "Turkish", "DEM", "4-gram 'turk'"),
        ("a Turkish city", "Turkey", "LOC", "4-gram 'turk'"),
        ("Kurdistan", "Kurdish", "DEM", "4-gram 'kurd'"),
        ("Germany", "German", "MISC", "4-gram 'germ'"),
    ],
)
def test_named_entities_sharing_a_word_start_4_gram_match(matcher, guess, original, entity_type, reason):
    assert matcher.matches(guess, original, entity_type) == reason


def test_4_grams_count_only_for_named_entities_and_word_starts(matcher):
    # Same 4-gram, but dates and quantities are not named entities.
    assert matcher.matches("Turkey", "Turkish", "QUANTITY") == ""
    # "-ation" endings are shared, word starts are not.
    assert matcher.matches("an administration", "the Organisation", "ORG") == ""
    # Three letters are not a 4-gram.
    assert matcher.matches("Ank", "Ankara", "LOC") == ""


def test_simple_lemmas_strip_plurals_possessives_and_thousands_separators():
    assert simple_lemmas("The applicant's cities, boxes and 12,500 prisons") == [
        "the",
        "applicant",
        "city",
        "box",
        "and",
        "12500",
        "prison",
    ]


def test_frequent_lemmas_are_the_top_content_lemmas_of_the_texts():
    texts = ["The court held that the applicant had been ill-treated.", "The court and the applicant; the court."]
    # court 3, applicant 2, held 1, ill 1, treated 1; "the", "and", "that", "had", "been" are stop words.
    assert frequent_lemmas(texts, top=1) == {"court"}
    assert frequent_lemmas(texts, top=2) == {"court", "applicant"}


def test_proper_names_are_never_frequent_lemmas():
    # "Istanbul" 3 times, "court" twice (in lower case), "Court" once more: only the lower-case uses count.
    texts = ["The Istanbul court and the Istanbul court.", "Istanbul. The Court held."]
    assert frequent_lemmas(texts, top=2) == {"court", "held"}


def test_spacy_lemmatizer_can_replace_the_default():
    lemmatize = spacy_lemmatizer()
    assert "be" in lemmatize("He was detained")
    matcher = Matcher(lemmatize=lemmatize)
    assert matcher.matches("two women", "a woman", "DEM") == "shared lemma 'woman'"
    # The light normalizer knows no irregular plural (and "wome" is not "woma").
    assert Matcher().matches("two women", "a woman", "DEM") == ""
