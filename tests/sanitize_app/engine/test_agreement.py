"""Agreement coefficients against published worked examples, and the unit building on
a small case computed by hand."""

import pytest

from sanitize_app.engine.evaluation.agreement import (
    agreement_table,
    character_units,
    entity_type_confusion,
    exact_span_units,
    fleiss_kappa,
    identifier_disagreements,
    krippendorff_alpha,
    observed_agreement,
    partial_span_units,
)


def units_from_counts(rows: list[list[int]]) -> list[list[str]]:
    return [[str(category) for category, count in enumerate(row) for _ in range(count)] for row in rows]


def test_fleiss_kappa_of_the_classic_example():
    # Fleiss (1971) as reproduced on Wikipedia: 10 subjects, 14 raters, 5 categories;
    # P-bar = 0.378, P_e = 0.213, kappa = 0.210.
    rows = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    units = units_from_counts(rows)
    assert observed_agreement(units) == pytest.approx(0.378, abs=5e-4)
    assert fleiss_kappa(units) == pytest.approx(0.210, abs=5e-4)


def test_krippendorff_alpha_of_the_reliability_data_with_missing_values():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", nominal data:
    # 4 observers, 12 units, some values missing; alpha = 0.743.
    observers = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    ]
    units = [[None if row[u] is None else str(row[u]) for row in observers] for u in range(12)]
    assert krippendorff_alpha(units) == pytest.approx(0.743, abs=5e-4)


TEXT = "Anna Berg lives in Oslo since 2001."


def m(text, entity_type, identifier, confidential="NOT_CONFIDENTIAL"):
    start = TEXT.index(text)
    return {
        "start_offset": start,
        "end_offset": start + len(text),
        "entity_type": entity_type,
        "identifier_type": identifier,
        "confidential_status": confidential,
    }


LAYERS = {
    "a": [m("Anna Berg", "PERSON", "DIRECT"), m("Oslo", "LOC", "QUASI"), m("2001", "DATETIME", "QUASI")],
    "b": [m("Anna Berg", "PERSON", "DIRECT"), m("Oslo", "LOC", "NO_MASK"), m("since 2001", "DATETIME", "QUASI")],
}
DOCUMENT = {"doc_id": "d", "text": TEXT, "annotations": {k: {"entity_mentions": v} for k, v in LAYERS.items()}}


def test_exact_spans_on_a_hand_made_case():
    units = exact_span_units(LAYERS, "entity_type")
    assert units == [["PERSON", "PERSON"], ["LOC", "LOC"], ["O", "DATETIME"], ["DATETIME", "O"]]
    assert observed_agreement(units) == 0.5
    # Pooled labels 2 x PERSON, LOC, DATETIME, O: P_e = 1/4, kappa = (1/2 - 1/4) / (3/4).
    assert fleiss_kappa(units) == pytest.approx(1 / 3)
    # Coincidences: o(P,P) = o(L,L) = 2, o(D,O) = o(O,D) = 2; n = 8, each n_c = 2.
    # D_o = 4/8, D_e = (64 - 16) / 56 = 6/7: alpha = 1 - (1/2) / (6/7) = 5/12.
    assert krippendorff_alpha(units) == pytest.approx(5 / 12)


def test_partial_spans_and_characters():
    assert partial_span_units(LAYERS, "entity_type") == [["PERSON", "PERSON"], ["LOC", "LOC"], ["DATETIME", "DATETIME"]]
    assert fleiss_kappa(partial_span_units(LAYERS, "entity_type")) == 1.0
    units = character_units(LAYERS, "entity_type")
    # 9 + 4 agreeing characters, "since " (6) only b, "2001" (4) both.
    assert len(units) == 23 and observed_agreement(units) == pytest.approx(17 / 23)
    assert observed_agreement(exact_span_units(LAYERS, "identifier_type")) == 0.25


def test_table_confusion_and_identifier_disagreements():
    table = agreement_table(
        [DOCUMENT, {"doc_id": "single", "text": TEXT, "annotations": {"a": {"entity_mentions": []}}}]
    )
    assert table["entity_type"]["span (exact)"].units == 4  # the one-layer document adds nothing
    assert table["entity_type"]["span (partial)"].fleiss_kappa == 1.0
    assert table["confidential_status"]["span (exact)"].observed == 0.5
    confusion = entity_type_confusion([DOCUMENT])
    assert confusion == {("PERSON", "PERSON"): 2, ("LOC", "LOC"): 2, ("DATETIME", "O"): 2, ("O", "DATETIME"): 2}
    assert identifier_disagreements([DOCUMENT]) == {
        "LOC": {"disagree": 1, "NO_MASK vs QUASI": 1},
        "PERSON": {"agree": 1},
    }


def test_the_confusion_has_no_cell_for_two_annotators_who_both_left_a_span_out():
    three = {**LAYERS, "c": [m("Oslo", "LOC", "QUASI")]}
    document = {"doc_id": "d", "text": TEXT, "annotations": {k: {"entity_mentions": v} for k, v in three.items()}}
    confusion = entity_type_confusion([document])
    assert ("O", "O") not in confusion
    # "Anna Berg": a and b say PERSON, c has nothing: (P,P) x2, (P,O) x2, (O,P) x2.
    assert confusion[("PERSON", "O")] == 2 and confusion[("PERSON", "PERSON")] == 2
