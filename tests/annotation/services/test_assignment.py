"""Bulk assignment against the database: preview, apply (atomic, from the newest
pre-annotation), re-checks, and the document filter."""

import pytest

from annotation.enums import DatasetType, LayerStatus, Role
from annotation.models import (
    AnnotationLayer,
    AuditEvent,
    CorpusMembership,
    Document,
    PreannotationRun,
    Prediction,
    RunDocument,
)
from annotation.services import assignment
from annotation.services.errors import DomainError
from annotation.services.layers import assign_layer
from tests.conftest import make_user


@pytest.fixture
def team(desk):
    return desk


def ids(objects) -> list[int]:
    return [obj.pk for obj in objects]


def pairs_by_name(pairs) -> list[tuple[str, str]]:
    return [(document.doc_id, user.username) for document, user in pairs]


def test_preview_of_balanced_two_per_document_changes_nothing(team, corpus):
    preview = assignment.preview_assignment(
        corpus, ids(team["docs"]), ids(team["annotators"]), strategy="balanced", per_document=2
    )
    a, b, c = "ann_annotator", "bob_annotator", "cleo_annotator"
    assert pairs_by_name(preview.pairs) == [
        ("d1", a), ("d1", b), ("d2", a), ("d2", c), ("d3", b), ("d3", c), ("d4", a), ("d4", b), ("d5", a), ("d5", c),
    ]  # fmt: skip
    assert preview.loads_before == {a: 0, b: 0, c: 0}
    assert preview.loads_after == {a: 4, b: 3, c: 3}
    assert preview.skipped == []
    assert not AnnotationLayer.objects.exists()


def test_apply_creates_every_layer_of_the_preview_and_records_it(team, corpus):
    preview = assignment.preview_assignment(corpus, ids(team["docs"]), ids(team["annotators"]), strategy="round_robin")
    layers = assignment.apply_assignment(corpus, preview, actor=team["manager"])
    created = sorted(AnnotationLayer.objects.values_list("document__doc_id", "annotator__username"))
    assert created == [
        ("d1", "ann_annotator"),
        ("d2", "bob_annotator"),
        ("d3", "cleo_annotator"),
        ("d4", "ann_annotator"),
        ("d5", "bob_annotator"),
    ]
    assert len(layers) == 5 and layers.skipped == []
    assert all(layer.status == LayerStatus.ASSIGNED for layer in layers)
    event = AuditEvent.objects.get(action="assignment.apply")
    assert event.changes["pairs"][0] == ["d1", "ann_annotator"]


def test_a_second_balanced_run_counts_open_layers_as_load(team, corpus):
    ann, bob, cleo = team["annotators"]
    assign_layer(team["docs"][0], ann, actor=team["manager"])
    assign_layer(team["docs"][1], ann, actor=team["manager"])
    # d1 and d2 already have ann (counted towards their 1 annotator); ann's load is 2.
    preview = assignment.preview_assignment(corpus, ids(team["docs"]), ids(team["annotators"]), strategy="balanced")
    # d3: bob (0) ; d4: cleo (0) ; d5: bob (1, before cleo 1).
    assert pairs_by_name(preview.pairs) == [("d3", "bob_annotator"), ("d4", "cleo_annotator"), ("d5", "bob_annotator")]
    assert pairs_by_name([(d, u) for d, u, _ in preview.skipped]) == [("d1", "ann_annotator"), ("d2", "ann_annotator")]
    assert {reason for _, _, reason in preview.skipped} == {"already has a layer on this document"}
    assert preview.loads_before["ann_annotator"] == 2 and preview.loads_after["bob_annotator"] == 2


def test_apply_skips_and_reports_a_pair_made_since_the_preview(team, corpus):
    ann, bob, _ = team["annotators"]
    preview = assignment.preview_assignment(
        corpus, [], [], strategy="explicit", pairs=[(team["docs"][0].pk, ann.pk), (team["docs"][0].pk, bob.pk)]
    )
    assign_layer(team["docs"][0], bob, actor=team["manager"])  # somebody was faster
    layers = assignment.apply_assignment(corpus, preview, actor=team["manager"])
    assert [(layer.document.doc_id, layer.annotator.username) for layer in layers] == [("d1", "ann_annotator")]
    assert [(d.doc_id, u.username, reason) for d, u, reason in layers.skipped] == [
        ("d1", "bob_annotator", "already has a layer on this document")
    ]


def test_apply_is_all_or_nothing_when_an_annotator_lost_the_role_since_the_preview(team, corpus):
    preview = assignment.preview_assignment(corpus, ids(team["docs"][:2]), ids(team["annotators"]), strategy="balanced")
    CorpusMembership.objects.filter(user=team["bob"], role=Role.ANNOTATOR).delete()
    with pytest.raises(DomainError, match="bob_annotator is not an annotator of corpus ECHR test"):
        assignment.apply_assignment(corpus, preview, actor=team["manager"])
    assert not AnnotationLayer.objects.exists()


def test_assigned_layers_start_from_the_newest_preannotation(team, corpus):
    document = team["docs"][0]
    old = PreannotationRun.objects.create(corpus=corpus, status=PreannotationRun.Status.SUCCEEDED)
    new = PreannotationRun.objects.create(corpus=corpus, status=PreannotationRun.Status.SUCCEEDED)
    for run, text in ((old, "Smith"), (new, "Oslo")):
        RunDocument.objects.create(run=run, document=document, status=RunDocument.Status.DONE)
        start = document.text.index(text)
        Prediction.objects.create(
            run=run,
            document=document,
            entity_key=1,
            start_offset=start,
            end_offset=start + len(text),
            span_text=text,
            entity_type="LOC" if text == "Oslo" else "PERSON",
            identifier_type="QUASI",
        )
    (layer,) = assignment.apply_assignment(corpus, [document.pk], [team["ann"].pk], strategy="balanced", actor=None)
    assert list(layer.mentions.values_list("span_text", flat=True)) == ["Oslo"]


@pytest.mark.parametrize(
    ("change", "message", "field"),
    [
        ({"strategy": "random"}, "Unknown strategy 'random'", "strategy"),
        ({"per_document": 4}, "between 1 and the 3 annotators chosen, not 4", "per_document"),
        ({"per_document": 0}, "between 1 and the 3 annotators chosen, not 0", "per_document"),
        ({"documents": "other"}, "is not a document of corpus ECHR test", "documents"),
        ({"annotators": "rita"}, "rita_reviewer is not an annotator of corpus ECHR test", "annotators"),
        ({"annotators": "inactive"}, "zoe_inactive's account is inactive", "annotators"),
    ],
)
def test_preview_refuses_naming_what_is_wrong(team, corpus, change, message, field):
    documents, annotators = ids(team["docs"]), ids(team["annotators"])
    if change.get("documents") == "other":
        documents.append(Document.objects.create(corpus=team["other_corpus"], doc_id="x", text="x").pk)
    if change.get("annotators") == "rita":
        annotators.append(team["rita"].pk)
    if change.get("annotators") == "inactive":
        zoe = make_user("zoe_inactive", active=False)
        CorpusMembership.objects.create(corpus=corpus, user=zoe, role=Role.ANNOTATOR)
        annotators.append(zoe.pk)
    options = {"strategy": change.get("strategy", "balanced"), "per_document": change.get("per_document", 1)}
    with pytest.raises(DomainError, match=message) as refused:
        assignment.preview_assignment(corpus, documents, annotators, **options)
    assert refused.value.field == field


def test_document_filter_by_split_status_preannotation_and_search(team, corpus):
    d1, d2, d3, d4, d5 = team["docs"]
    Document.objects.filter(pk__in=[d1.pk, d2.pk]).update(dataset_type=DatasetType.TEST)
    Document.objects.filter(pk=d3.pk).update(person_to_protect="Galip Yalman")
    open_layer = assign_layer(d1, team["ann"], actor=team["manager"])
    finished = assign_layer(d2, team["bob"], actor=team["manager"])
    AnnotationLayer.objects.filter(pk=finished.pk).update(status=LayerStatus.CONFIRMED)
    # An imported layer (no assignment event) leaves d4 unassigned.
    AnnotationLayer.objects.create(document=d4, annotator=team["cleo"], status=LayerStatus.CONFIRMED)
    run = PreannotationRun.objects.create(corpus=corpus, status=PreannotationRun.Status.RUNNING)
    RunDocument.objects.create(run=run, document=d5, status=RunDocument.Status.DONE)
    RunDocument.objects.create(run=run, document=d3, status=RunDocument.Status.PENDING)  # not yet

    def doc_ids(**filters) -> list[str]:
        return [document.doc_id for document in assignment.document_filter(corpus, **filters)]

    assert doc_ids() == ["d1", "d2", "d3", "d4", "d5"]
    assert doc_ids(dataset_type="test") == ["d1", "d2"]
    assert doc_ids(status="open") == ["d1"]
    assert doc_ids(status="finished") == ["d2", "d4"]
    assert doc_ids(status="unassigned") == ["d3", "d4", "d5"]
    assert doc_ids(has_preannotation=True) == ["d5"]
    assert doc_ids(has_preannotation=False, status="unassigned") == ["d3", "d4"]
    assert doc_ids(query="yalman") == ["d3"]
    assert doc_ids(query="D2") == ["d2"]
    assert open_layer.pk  # the open layer made d1 "open"
    with pytest.raises(DomainError, match="status filter is one of unassigned, open, finished, not 'done'"):
        doc_ids(status="done")


def test_a_preview_reads_the_existing_pairs_and_the_loads_once(team, corpus, django_assert_num_queries):
    # Documents, accounts, memberships, existing pairs, open loads: five queries whatever
    # the number of documents and annotators (the preview reports from the plan's rows).
    with django_assert_num_queries(5):
        assignment.preview_assignment(
            corpus, ids(team["docs"]), ids(team["annotators"]), strategy="balanced", per_document=2
        )
