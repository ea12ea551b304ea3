"""The TAB metrics on hand-made cases, with values computed by hand.

The worked example has the structure of the TAB paper's §6.4 (its Figure 3): two
annotators, two systems. Token counts are those of this fixture, counted below."""

import pytest

from sanitize_app.engine.evaluation import GoldCorpus, WordListTokenFilter, evaluate

TEXT = (
    "The applicant, John Doe, lodged application no. 12345/67. He is British and a researcher "
    "from the Kingdom of Sweden. On 1 October 2021 Doe was heard."
)


def span(text: str, occurrence: int = 0) -> tuple[int, int]:
    start = -1
    for _ in range(occurrence + 1):
        start = TEXT.index(text, start + 1)
    return start, start + len(text)


def mention(entity: str, text: str, identifier: str, entity_type: str, occurrence: int = 0) -> dict:
    start, end = span(text, occurrence)
    return {
        "entity_id": entity,
        "entity_type": entity_type,
        "start_offset": start,
        "end_offset": end,
        "identifier_type": identifier,
    }


DOCUMENT = {
    "doc_id": "worked-example",
    "text": TEXT,
    "annotations": {
        "a1": {
            "entity_mentions": [
                mention("a1_e1", "John Doe", "DIRECT", "PERSON"),
                mention("a1_e2", "12345/67", "DIRECT", "CODE"),
                mention("a1_e3", "British", "QUASI", "DEM"),
                mention("a1_e4", "researcher", "NO_MASK", "DEM"),
                mention("a1_e5", "Kingdom of Sweden", "NO_MASK", "LOC"),
                mention("a1_e6", "1 October 2021", "QUASI", "DATETIME"),
                mention("a1_e1", "Doe", "DIRECT", "PERSON", occurrence=1),
            ]
        },
        "a2": {
            "entity_mentions": [
                mention("a2_e1", "John Doe", "DIRECT", "PERSON"),
                mention("a2_e2", "12345/67", "DIRECT", "CODE"),
                mention("a2_e3", "British", "NO_MASK", "DEM"),
                mention("a2_e4", "researcher", "QUASI", "DEM"),
                mention("a2_e5", "Kingdom of Sweden", "QUASI", "LOC"),
                mention("a2_e6", "1 October 2021", "QUASI", "DATETIME"),
                mention("a2_e1", "Doe", "DIRECT", "PERSON", occurrence=1),
            ]
        },
    },
}
CORPUS = GoldCorpus.from_tab([DOCUMENT])
SYSTEM_A = [span("12345/67"), span("John Doe"), span("Doe", 1), span("1 October 2021")]
SYSTEM_B = [span("John Doe"), span("Doe", 1), span("Kingdom of Sweden"), span("1 October 2021")]


def test_system_a_masks_every_direct_identifier():
    report = evaluate(CORPUS, {"worked-example": SYSTEM_A})
    assert report.direct_entities == 4 and report.quasi_entities == 5
    assert report.ER_di == 1.0  # (2 + 2) / (2 + 2)
    assert report.ER_qi == pytest.approx(0.4)  # (1 + 1) / (2 + 3): only the date, for each annotator
    # System tokens: 12345 67 John Doe Doe 1 October 2021 = 8, all masked by both annotators.
    assert report.WP == 1.0 and report.token_precision == 1.0
    # Gold tokens to mask: a1 2+3+1+3 = 9, a2 2+3+3+3+1 = 12. Masked: a1 8 (not British),
    # a2 8 + "of" (a function word counts as masked) = 9.
    assert report.token_recall == pytest.approx(17 / 21)


def test_system_b_misses_the_application_number():
    report = evaluate(CORPUS, {"worked-example": SYSTEM_B})
    assert report.ER_di == 0.5  # (1 + 1) / 4: the person, not the number
    assert report.ER_qi == pytest.approx(0.6)  # a1: the date; a2: Sweden and the date -> 3 / 5
    # System tokens: John Doe Doe Kingdom of Sweden 1 October 2021 = 9; a1 masked 6 of them
    # (name and date), a2 all 9.
    assert report.WP == pytest.approx(15 / 18)
    assert report.token_recall == pytest.approx(15 / 21)
    assert report.false_negatives_by_type == {"CODE": 4, "DATETIME": 0, "DEM": 2, "LOC": 0, "PERSON": 0}
    assert {(m.annotator, m.entity_type) for m in report.missed} == {
        ("a1", "CODE"),
        ("a2", "CODE"),
        ("a1", "DEM"),
        ("a2", "DEM"),
    }


def test_titles_punctuation_and_function_words_may_stay_unmasked():
    text = "Mr John Doe met Ms Ann Lee, of the Bank of Oslo, on 3 May."
    doc = {
        "doc_id": "d",
        "text": text,
        "annotations": {
            "a": {
                "entity_mentions": [
                    {
                        "entity_id": "e1",
                        "entity_type": "PERSON",
                        "start_offset": 0,
                        "end_offset": 11,
                        "identifier_type": "DIRECT",
                    },
                    {
                        "entity_id": "e2",
                        "entity_type": "ORG",
                        "start_offset": text.index("the Bank"),
                        "end_offset": text.index(",", text.index("Oslo")),
                        "identifier_type": "QUASI",
                    },
                ]
            }
        },
    }
    corpus = GoldCorpus.from_tab([doc])
    # "John Doe" alone masks "Mr John Doe"; "Bank" and "Oslo" alone mask "the Bank of Oslo".
    masked = [(3, 11), (text.index("Bank"), text.index("Bank") + 4), (text.index("Oslo"), text.index("Oslo") + 4)]
    report = evaluate(corpus, {"d": masked}, token_filter=WordListTokenFilter())
    assert report.ER_di == 1.0 and report.ER_qi == 1.0
    # Masking "John" alone leaves "Doe" readable: the entity is not masked.
    assert evaluate(corpus, {"d": [(3, 7)]}).ER_di == 0.0


def test_an_entity_counts_as_direct_by_its_first_mention_and_needs_only_its_masked_mentions():
    text = "Anna Berg and Berg and A. Berg."
    doc = {
        "doc_id": "d",
        "text": text,
        "annotations": {
            "a": {
                "entity_mentions": [
                    {
                        "entity_id": "e1",
                        "entity_type": "PERSON",
                        "start_offset": 0,
                        "end_offset": 9,
                        "identifier_type": "QUASI",
                    },
                    {
                        "entity_id": "e1",
                        "entity_type": "PERSON",
                        "start_offset": 14,
                        "end_offset": 18,
                        "identifier_type": "DIRECT",
                    },
                    {
                        "entity_id": "e1",
                        "entity_type": "PERSON",
                        "start_offset": 23,
                        "end_offset": 30,
                        "identifier_type": "NO_MASK",
                    },
                ]
            }
        },
    }
    corpus = GoldCorpus.from_tab([doc])
    report = evaluate(corpus, {"d": [(0, 9), (14, 18)]})  # the NO_MASK mention stays readable
    assert (report.direct_entities, report.quasi_entities) == (0, 1)
    assert report.ER_qi == 1.0


def test_documents_missing_from_the_gold_corpus_are_refused():
    with pytest.raises(KeyError, match="not in the gold corpus: nope"):
        evaluate(CORPUS, {"nope": []})
