"""The spans a release sanitizes: which layer each source takes per document, DIRECT and
QUASI mentions grouped per entity in document order, documents skipped with a reason."""

import pytest

from annotation.enums import LayerStatus
from annotation.models import AnnotationLayer, Prediction
from annotation.services.errors import DomainError
from annotation.services.preannotation import run_batch, start_run
from annotation.services.release_sources import (
    NO_FINISHED_LAYER,
    NOT_PREANNOTATED,
    plan_source,
    release_input,
    resolve_annotator,
    source_layer,
)
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

# Polat: annotator1 (first in the file, confirmed) and annotator10 (quality checked).
# Canpolat: annotator1 only (quality checked).
POLAT, CANPOLAT = "001-83927", "001-79436"


@pytest.fixture
def documents(corpus, pick, import_documents):
    import_documents(corpus, pick(POLAT, CANPOLAT))
    return {d.doc_id: d for d in corpus.documents.all()}


def set_status(document, annotator: str, status: str) -> None:
    AnnotationLayer.objects.filter(document=document, annotator__username=annotator).update(status=status)


def test_reviewed_source_takes_the_reviewed_layer_before_an_earlier_confirmed_one(documents):
    polat = documents[POLAT]
    assert source_layer(polat, "reviewed").annotator.username == "annotator10"

    released = release_input(polat, "reviewed")

    assert released.doc_id == POLAT and released.text == polat.text
    # annotator10's 21 DIRECT/QUASI mentions of the file, in 19 entities (two entities
    # have two mentions); read off the TAB file.
    assert sum(len(e.mentions) for e in released.entities) == 21
    assert len(released.entities) == 19
    first, second = released.entities[:2]
    assert (first.key, first.entity_type, first.identifier_type) == ("001-83927_a10_e1", "CODE", "DIRECT")
    assert [(m.start, m.end, m.text) for m in first.mentions] == [(54, 62, "40593/04")]
    assert (second.key, second.original) == ("001-83927_a10_e4", "Mr Cengiz Polat")
    party = next(e for e in released.entities if e.key == "001-83927_a10_e14")
    assert [m.text for m in party.mentions] == [
        "TKP/ML-TIKKO",
        "Turkish Communist Party/Marxist Leninist -Turkish Workers and Peasants' Liberation Army",
    ]
    court = next(e for e in released.entities if e.key == "001-83927_a10_e22")
    assert [(m.start, m.end) for m in court.mentions] == [(2218, 2236), (3094, 3112)]
    starts = [e.first.start for e in released.entities]
    assert starts == sorted(starts)
    assert {e.identifier_type for e in released.entities} <= {"DIRECT", "QUASI"}


def test_reviewed_source_prefers_under_review_to_confirmed_then_the_first_layer(documents):
    polat = documents[POLAT]
    set_status(polat, "annotator10", LayerStatus.CONFIRMED)
    set_status(polat, "annotator1", LayerStatus.UNDER_REVIEW)
    assert source_layer(polat, "reviewed").annotator.username == "annotator1"

    set_status(polat, "annotator1", LayerStatus.CONFIRMED)
    set_status(polat, "annotator10", LayerStatus.UNDER_REVIEW)
    assert source_layer(polat, "reviewed").annotator.username == "annotator10"

    # Both confirmed: the first layer of the document (annotator1 comes first in the file).
    set_status(polat, "annotator10", LayerStatus.CONFIRMED)
    assert source_layer(polat, "reviewed").annotator.username == "annotator1"


def test_documents_without_a_finished_layer_are_skipped_with_the_reason(corpus, documents):
    set_status(documents[CANPOLAT], "annotator1", LayerStatus.IN_PROGRESS)

    plan = plan_source(corpus, "reviewed")

    assert plan.document_ids == [documents[POLAT].pk]
    assert plan.skipped == [{"doc_id": CANPOLAT, "reason": NO_FINISHED_LAYER}]
    with pytest.raises(DomainError, match=f"{CANPOLAT} has no finished layer"):
        release_input(documents[CANPOLAT], "reviewed")


def test_a_withdrawn_layer_is_not_released(corpus, documents):
    set_status(documents[POLAT], "annotator10", LayerStatus.WITHDRAWN)
    assert source_layer(documents[POLAT], "reviewed").annotator.username == "annotator1"


def test_annotator_source_takes_that_annotators_layer_and_skips_the_others(corpus, documents):
    annotator1 = resolve_annotator(corpus, "annotator1")
    released = release_input(documents[POLAT], "annotator", annotator1)
    assert {e.key.split("_")[1] for e in released.entities} == {"a1"}

    annotator10 = resolve_annotator(corpus, "annotator10")
    plan = plan_source(corpus, "annotator", annotator10)
    assert plan.document_ids == [documents[POLAT].pk]
    assert plan.skipped == [{"doc_id": CANPOLAT, "reason": "annotator10 has no finished layer"}]


def test_an_unknown_annotator_or_one_without_finished_layers_is_refused_by_field(corpus, documents):
    with pytest.raises(DomainError, match="no annotator named 'nobody'") as unknown:
        resolve_annotator(corpus, "nobody")
    assert unknown.value.field == "annotator"

    make_user("newcomer")
    with pytest.raises(DomainError, match="newcomer has no finished layer in corpus ECHR test") as idle:
        resolve_annotator(corpus, "newcomer")
    assert idle.value.field == "annotator"

    set_status(documents[POLAT], "annotator10", LayerStatus.IN_PROGRESS)
    with pytest.raises(DomainError) as unfinished:
        resolve_annotator(corpus, "annotator10")
    assert unfinished.value.field == "annotator"


@pytest.mark.usefixtures("rules_only_engine")
def test_preannotation_source_groups_the_newest_runs_predictions_by_entity_key(corpus, documents):
    run = start_run(corpus, documents=[POLAT])
    run_batch(run.pk, [documents[POLAT].pk])

    plan = plan_source(corpus, "preannotation")
    assert plan.document_ids == [documents[POLAT].pk]
    assert plan.skipped == [{"doc_id": CANPOLAT, "reason": NOT_PREANNOTATED}]

    released = release_input(documents[POLAT], "preannotation")
    predicted = Prediction.objects.filter(run=run, identifier_type__in=["DIRECT", "QUASI"])
    expected = {}
    for p in predicted.order_by("start_offset"):
        expected.setdefault(str(p.entity_key), []).append((p.start_offset, p.end_offset, p.span_text))
    assert predicted.exists() and Prediction.objects.filter(run=run, identifier_type="NO_MASK").exists()
    assert {e.key: [(m.start, m.end, m.text) for m in e.mentions] for e in released.entities} == expected
    # The applicant is predicted DIRECT: released as such.
    applicant = next(e for e in released.entities if e.original == "Mr Cengiz Polat")
    assert (applicant.entity_type, applicant.identifier_type) == ("PERSON", "DIRECT")


def test_a_newer_run_replaces_an_older_one(corpus, documents, rules_only_engine):
    older = start_run(corpus, documents=[POLAT])
    run_batch(older.pk, [documents[POLAT].pk])
    newer = start_run(corpus, documents=[POLAT])
    run_batch(newer.pk, [documents[POLAT].pk])
    Prediction.objects.filter(run=newer).exclude(span_text="Mr Cengiz Polat").delete()

    released = release_input(documents[POLAT], "preannotation")

    assert [m.text for e in released.entities for m in e.mentions] == ["Mr Cengiz Polat"]
