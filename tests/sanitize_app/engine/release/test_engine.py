"""The release engine's fixed strategies and its checks of what it is given."""

import pytest

from sanitize_app.engine.release.engine import ReleaseEngine, ReleaseInputError
from sanitize_app.engine.release.types import Mention, ReleaseEntity, ReleaseInput


def test_stars_keep_every_offset_of_the_original(first_document):
    released = ReleaseEngine("stars").sanitize(first_document)
    assert len(released.text) == len(first_document.text)
    # 001-83927: the application number 40593/04 at 54-62 and the applicant at 254-269.
    assert released.text[54:62] == "********"
    assert released.text[254:269] == "*" * 15
    assert "Cengiz Polat" not in released.text


def test_suppression_removes_every_mention(first_document):
    released = ReleaseEngine("suppress").sanitize(first_document)
    assert released.spans and all(span.replacement == "" for span in released.spans)
    assert "40593/04" not in released.text and "Mr E. Kanar" not in released.text
    removed = sum(span.end - span.start for span in released.spans)
    assert len(released.text) == len(first_document.text) - removed


def test_labels_and_placeholders_replace_each_coreferent_mention_alike(first_document):
    labelled = ReleaseEngine("label").sanitize(first_document)
    numbered = ReleaseEngine("placeholder").sanitize(first_document)
    life = [s for s in numbered.spans if s.start in (2179, 3010)]
    assert [s.replacement for s in life] == ["QUANTITY_2", "QUANTITY_2"]  # after "nineteen other defendants"
    assert "[PERSON] was born in 1965" not in labelled.text  # the applicant's birth year is masked too
    assert labelled.text.count("[CODE]") >= 1
    assert numbered.text.startswith(first_document.text[:54] + "CODE_1")


def test_released_spans_point_into_the_original(first_document):
    released = ReleaseEngine("placeholder").sanitize(first_document)
    originals = {(m.start, m.end): m.text for e in first_document.entities for m in e.mentions}
    assert all((span.start, span.end) in originals for span in released.spans)
    assert {(s.start, s.end) for s in released.spans} == set(originals)  # no overlap in this layer


def _document(*mentions, entity_type="PERSON", identifier_type="DIRECT"):
    return ReleaseInput(
        "001-1", "Mr Polat lives in Edirne.", [ReleaseEntity("e1", entity_type, identifier_type, list(mentions))]
    )


def test_a_mention_outside_the_text_is_refused_naming_document_and_mention():
    with pytest.raises(ReleaseInputError, match=r"document 001-1: mention 20-40 of entity e1 is outside the text"):
        ReleaseEngine("label").sanitize(_document(Mention(20, 40, "Edirne.")))


def test_a_mention_whose_text_differs_is_refused():
    expected = r"mention 0-8 of entity e1 reads 'Mr Polat' in the text, not 'Mr Kanar'"
    with pytest.raises(ReleaseInputError, match=expected):
        ReleaseEngine("label").sanitize(_document(Mention(0, 8, "Mr Kanar")))


def test_an_unknown_type_and_an_unmasked_entity_are_refused():
    with pytest.raises(ReleaseInputError, match=r"unknown type 'NAME'"):
        ReleaseEngine("label").sanitize(_document(Mention(0, 8, "Mr Polat"), entity_type="NAME"))
    with pytest.raises(ReleaseInputError, match=r"'NO_MASK', not DIRECT or QUASI"):
        ReleaseEngine("label").sanitize(_document(Mention(0, 8, "Mr Polat"), identifier_type="NO_MASK"))


def test_an_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="unknown release strategy 'blur'"):
        ReleaseEngine("blur")


def test_rule_generalization_keeps_the_most_specific_rung(first_document):
    from sanitize_app.engine.release.engine import build_release_engine

    released = build_release_engine("rules").sanitize(first_document)
    by_original = {d.entity.original: d for d in released.decisions}
    # Day-month-year -> month year; a year -> its part of decade (by hand: 1965 is mid-1960s).
    assert by_original["15 October 2004"].replacement == "October 2004"
    assert by_original["1965"].replacement == "the mid 1960s"
    assert by_original["Mr Cengiz Polat"].replacement == "PERSON_1"
    assert by_original["40593/04"].replacement == "CODE_1"
    # No rule generalizes "life imprisonment": the numbered label, said as a fallback.
    assert (by_original["life imprisonment"].replacement, by_original["life imprisonment"].path) == (
        "QUANTITY_2",
        "fallback",
    )
    assert "was born in the mid 1960s" in released.text


def test_intact_offline_run_keeps_a_trail_for_every_attacked_entity(first_document):
    from sanitize_app.engine.release.engine import build_release_engine

    engine = build_release_engine("intact")
    released = engine.sanitize(first_document)
    assert engine.settings()["attacker"] == "offline"
    attacked = [d for d in released.decisions if d.trials]
    assert attacked, "dates and organisations are attacked"
    for decision in attacked:
        kept = decision.trials[-1]
        if decision.path in ("first", "later"):
            assert decision.replacement == kept.candidate and not kept.matched
        else:
            assert decision.path == "fallback" and all(t.matched for t in decision.trials)
    # A month is a range of at least 28 days: the offline attacker keeps it.
    assert next(d for d in released.decisions if d.entity.original == "6 February 1993").replacement == "February 1993"
