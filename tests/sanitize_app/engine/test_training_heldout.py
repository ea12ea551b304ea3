"""Held-out scoring of recognised spans: exact (start, end, type), micro over annotators."""

import pytest

from sanitize_app.engine.training.heldout import entity_type_scores
from sanitize_app.engine.training.layers import Layer


def layer(annotator, *spans):
    mentions = [{"start_offset": s, "end_offset": e, "entity_type": t} for s, e, t in spans]
    return Layer("d1", annotator, "x" * 30, "", [], mentions)


def test_entity_type_scores_count_each_annotator_once():
    layers = [layer("a", (0, 4, "PERSON"), (10, 14, "DATETIME")), layer("b", (0, 4, "PERSON"))]
    predicted = {"d1": {(0, 4, "PERSON"), (10, 14, "CODE"), (20, 24, "ORG")}}
    scores = entity_type_scores(predicted, layers)
    # hits 1 + 1, predicted 3 + 3, gold 2 + 1
    assert scores["entity_type_precision"] == pytest.approx(2 / 6)
    assert scores["entity_type_recall"] == pytest.approx(2 / 3)
    assert scores["entity_type_f1"] == pytest.approx(4 / 9)
    per_type = scores["per_type"]
    assert per_type["PERSON"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0, "support": 2}
    assert per_type["DATETIME"]["recall"] == 0.0 and per_type["DATETIME"]["support"] == 1
    assert per_type["CODE"]["precision"] == 0.0 and per_type["CODE"]["support"] == 0
    assert "QUANTITY" not in per_type  # neither predicted nor annotated


def test_a_document_without_prediction_scores_zero():
    scores = entity_type_scores({}, [layer("a", (0, 4, "PERSON"))])
    assert scores["entity_type_f1"] == 0.0 and scores["entity_type_recall"] == 0.0
