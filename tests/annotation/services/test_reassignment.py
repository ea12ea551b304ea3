"""Withdrawing and handing over layers: work is never silently lost."""

import pytest

from annotation import permissions as policy
from annotation.enums import LayerStatus, Role
from annotation.models import (
    AnnotationLayer,
    AuditEvent,
    CorpusMembership,
    Mention,
    PreannotationRun,
    Prediction,
    ReviewAssignment,
    RunDocument,
)
from annotation.services import reassignment
from annotation.services.errors import DomainError, InvalidTransition, LayerLocked
from annotation.services.layers import assign_layer, change_layer_status
from annotation.services.mentions import create_mention
from tests.conftest import make_user

from .conftest import span


@pytest.fixture
def assigned(layer, people):
    """The fixture layer of ann, as a manager's assignment leaves it."""
    AuditEvent.objects.create(action="layer.assign", actor=people["manager"], corpus=layer.document.corpus, layer=layer)
    return layer


def started(layer, people):
    start, end = span("Oslo")
    create_mention(layer, actor=people["ann"], start_offset=start, end_offset=end, entity_type="LOC")
    layer.refresh_from_db()
    return layer


def test_an_unstarted_layer_is_deleted_and_the_withdrawal_recorded(assigned, people):
    document = assigned.document
    assert reassignment.withdraw_layer(assigned, actor=people["manager"]) == "deleted"
    assert not AnnotationLayer.objects.filter(pk=assigned.pk).exists()
    event = AuditEvent.objects.get(action="layer.withdraw")
    assert (event.document, event.actor, event.target) == (document, people["manager"], "case-1 / ann_annotator")
    assert event.changes["result"] == "deleted" and event.changes["annotator"] == "ann_annotator"


def test_a_started_layer_is_withdrawn_read_only_with_its_history(assigned, people):
    layer = started(assigned, people)
    assert layer.status == LayerStatus.IN_PROGRESS
    assert reassignment.withdraw_layer(layer, actor=people["manager"]) == "withdrawn"
    layer.refresh_from_db()
    assert layer.status == LayerStatus.WITHDRAWN
    assert list(Mention.objects.filter(layer=layer).values_list("span_text", flat=True)) == ["Oslo"]
    actions = list(AuditEvent.objects.filter(layer=layer).order_by("id").values_list("action", flat=True))
    assert actions == ["layer.assign", "mention.create", "layer.withdraw"]
    # Nobody writes to it any more, the manager included.
    start, end = span("John Smith")
    for writer in (people["ann"], people["manager"]):
        with pytest.raises(LayerLocked, match="withdrawn by a manager"):
            create_mention(layer, actor=writer, start_offset=start, end_offset=end, entity_type="PERSON")
    with pytest.raises(InvalidTransition, match="cannot go from withdrawn to confirmed"):
        change_layer_status(layer, LayerStatus.CONFIRMED, actor=people["manager"])


def test_an_assigned_layer_the_annotator_touched_counts_as_started(assigned, people):
    # A change by a person that leaves the status "assigned" (e.g. an undone edit) is work.
    corpus = assigned.document.corpus
    AuditEvent.objects.create(action="mention.create", actor=people["ann"], corpus=corpus, layer=assigned)
    assert reassignment.withdraw_layer(assigned, actor=people["manager"]) == "withdrawn"


def test_a_layer_holding_only_the_engines_proposals_is_unstarted_and_deleted(layer, people):
    document = layer.document
    run = PreannotationRun.objects.create(corpus=document.corpus, status=PreannotationRun.Status.SUCCEEDED)
    RunDocument.objects.create(run=run, document=document, status=RunDocument.Status.DONE)
    start, end = span("Oslo")
    Prediction.objects.create(
        run=run, document=document, entity_key=1, start_offset=start, end_offset=end, span_text="Oslo",
        entity_type="LOC", identifier_type="QUASI",
    )  # fmt: skip
    fresh = assign_layer(document, people["bob"], actor=people["manager"])  # starts from the proposal
    assert list(fresh.mentions.values_list("span_text", flat=True)) == ["Oslo"]
    assert reassignment.withdraw_layer(fresh, actor=people["manager"]) == "deleted"
    assert not AnnotationLayer.objects.filter(pk=fresh.pk).exists()
    assert not Mention.objects.filter(layer_id=fresh.pk).exists()


@pytest.mark.parametrize("status", [LayerStatus.CONFIRMED, LayerStatus.UNDER_REVIEW, LayerStatus.REVIEWED])
def test_finished_work_is_never_withdrawn_or_handed_over(layer, people, status):
    AnnotationLayer.objects.filter(pk=layer.pk).update(status=status)
    layer.refresh_from_db()
    with pytest.raises(DomainError, match="finished work is never withdrawn"):
        reassignment.withdraw_layer(layer, actor=people["manager"])
    with pytest.raises(DomainError, match="finished work is never handed over"):
        reassignment.hand_over_layer(layer, people["bob"], actor=people["manager"])
    layer.refresh_from_db()
    assert (layer.status, layer.annotator) == (status, people["ann"])


def test_a_withdrawn_layer_is_not_withdrawn_again(assigned, people):
    layer = started(assigned, people)
    reassignment.withdraw_layer(layer, actor=people["manager"])
    with pytest.raises(DomainError, match="already withdrawn"):
        reassignment.withdraw_layer(layer, actor=people["manager"])


def test_hand_over_keeps_the_work_and_history_and_the_new_annotator_owns_it(assigned, people):
    layer = started(assigned, people)
    version = layer.version
    handed = reassignment.hand_over_layer(layer, people["bob"], actor=people["manager"])
    layer.refresh_from_db()
    assert handed.annotator == people["bob"] and layer.annotator == people["bob"]
    assert layer.status == LayerStatus.IN_PROGRESS and layer.version == version + 1
    assert list(Mention.objects.filter(layer=layer).values_list("span_text", flat=True)) == ["Oslo"]
    event = AuditEvent.objects.get(action="layer.handover")
    assert event.changes == {"from": "ann_annotator", "to": "bob_annotator"}
    assert AuditEvent.objects.filter(layer=layer, action="mention.create", actor=people["ann"]).exists()
    # bob goes on with it; ann's next write is refused.
    start, end = span("John Smith")
    create_mention(layer, actor=people["bob"], start_offset=start, end_offset=end, entity_type="PERSON")
    assert policy.can_edit_layer(people["bob"], layer) and not policy.can_edit_layer(people["ann"], layer)


def test_hand_over_refuses_who_cannot_take_the_layer(assigned, people, corpus):
    layer = assigned
    other_layer_owner = make_user("carl_annotator")
    CorpusMembership.objects.create(corpus=corpus, user=other_layer_owner, role=Role.ANNOTATOR)
    assign_layer(layer.document, other_layer_owner, actor=people["manager"])
    sleeper = make_user("sid_inactive", active=False)
    CorpusMembership.objects.create(corpus=corpus, user=sleeper, role=Role.ANNOTATOR)
    seer = make_user("sue_reviewer")
    CorpusMembership.objects.create(corpus=corpus, user=seer, role=Role.ANNOTATOR)
    ReviewAssignment.objects.create(layer=layer.document.layers.get(annotator=other_layer_owner), reviewer=seer)
    cases = [
        (people["ann"], "ann_annotator already holds layer"),
        (people["rita"], "rita_reviewer is not an annotator of corpus ECHR test"),
        (people["outsider"], "oscar_outsider is not an annotator of corpus ECHR test"),
        (sleeper, "sid_inactive's account is inactive"),
        (other_layer_owner, "carl_annotator already has a layer on document case-1"),
        (seer, "sue_reviewer reviews a layer of document case-1"),
    ]
    for user, message in cases:
        with pytest.raises(DomainError, match=message):
            reassignment.hand_over_layer(layer, user, actor=people["manager"])
    layer.refresh_from_db()
    assert layer.annotator == people["ann"]


def test_a_hand_over_from_a_stale_page_records_who_held_the_layer_then(assigned, people, corpus):
    """Two managers hand the same layer over: the second one's copy still says ann holds
    it, but the audit trail names bob, who held it when the second hand-over ran."""
    stale = AnnotationLayer.objects.select_related("document__corpus", "annotator").get(pk=assigned.pk)
    reassignment.hand_over_layer(assigned, people["bob"], actor=people["manager"])
    carl = make_user("carl_annotator")
    CorpusMembership.objects.create(corpus=corpus, user=carl, role=Role.ANNOTATOR)
    reassignment.hand_over_layer(stale, carl, actor=people["manager"])
    events = AuditEvent.objects.filter(action="layer.handover").order_by("id")
    assert [event.changes for event in events] == [
        {"from": "ann_annotator", "to": "bob_annotator"},
        {"from": "bob_annotator", "to": "carl_annotator"},
    ]
