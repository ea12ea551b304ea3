"""Undo takes back each kind of change exactly, one step at a time, per person."""

import pytest

from annotation.enums import LayerStatus
from annotation.models import AuditEvent, Entity, Mention, MentionLink
from annotation.services.coreference import merge_entities, split_mention
from annotation.services.decisions import set_entity_decision
from annotation.services.errors import DomainError
from annotation.services.layers import change_layer_status
from annotation.services.mentions import create_mention, delete_mention, update_mention
from annotation.services.occurrences import annotate_all_occurrences
from annotation.services.undo import undo_last_change

from .conftest import span


def state(layer) -> list[tuple]:
    """Everything a user can see of the layer's annotations."""
    mentions = Mention.objects.filter(layer=layer).order_by("start_offset", "id")
    rows = [
        (
            m.tab_mention_id,
            m.entity.tab_entity_id,
            m.start_offset,
            m.end_offset,
            m.span_text,
            m.entity_type,
            m.identifier_type,
            m.confidential_status,
            m.edit_type,
            m.related_mentions_present,
        )
        for m in mentions.select_related("entity")
    ]
    links = sorted(
        MentionLink.objects.filter(source__layer=layer).values_list(
            "source__tab_mention_id", "target__tab_mention_id", "position"
        )
    )
    return rows + links + sorted(Entity.objects.filter(layer=layer).values_list("tab_entity_id", flat=True))


def add(layer, actor, text, entity_type, occurrence=0, **kwargs):
    start, end = span(text, occurrence)
    return create_mention(layer, actor=actor, start_offset=start, end_offset=end, entity_type=entity_type, **kwargs)


@pytest.fixture
def annotated(layer, people):
    ann = people["ann"]
    full = add(layer, ann, "Mr John Smith", "PERSON", identifier_type="DIRECT")
    short = add(layer, ann, "Mr Smith", "PERSON", identifier_type="QUASI")
    oslo = add(layer, ann, "Oslo", "LOC")
    add(layer, ann, "Oslo", "LOC", occurrence=1)
    set_entity_decision(oslo.entity, actor=ann, identifier_type="QUASI")
    return {"full": full, "short": short, "oslo": oslo}


@pytest.mark.parametrize("change", ["create", "create_many", "update", "delete", "decision", "merge", "split"])
def test_undo_restores_the_state_before_the_change(layer, people, annotated, change):
    ann = people["ann"]
    before = state(layer)
    if change == "create":
        add(layer, ann, "1961", "DATETIME")
    elif change == "create_many":
        # Leave the second "Oslo" unannotated, then let the service find it again.
        Mention.objects.filter(span_text="Oslo").exclude(pk=annotated["oslo"].pk).delete()
        before = state(layer)
        assert annotate_all_occurrences(annotated["oslo"].entity, actor=ann)
    elif change == "update":
        update_mention(annotated["full"], actor=ann, start_offset=span("John Smith")[0], entity_type="MISC")
    elif change == "delete":
        merge_entities(annotated["full"].entity, annotated["short"].entity, actor=ann)  # gives it a link
        before = state(layer)
        delete_mention(Mention.objects.get(pk=annotated["full"].pk), actor=ann)
    elif change == "decision":
        set_entity_decision(
            annotated["oslo"].entity, actor=ann, identifier_type="NO_MASK", confidential_status="ETHNIC"
        )
    elif change == "merge":
        merge_entities(annotated["full"].entity, annotated["short"].entity, actor=ann)
    elif change == "split":
        split_mention(annotated["oslo"], actor=ann)
    assert state(layer) != before
    undone = undo_last_change(layer, actor=ann)
    assert state(layer) == before
    assert undone.ranges  # the text ranges to redraw
    assert AuditEvent.objects.filter(undone=True).count() == 1
    assert AuditEvent.objects.filter(action="undo", actor=ann).count() == 1


def test_undo_walks_back_several_steps(layer, people, annotated):
    ann = people["ann"]
    start = state(layer)
    set_entity_decision(annotated["oslo"].entity, actor=ann, identifier_type="NO_MASK")
    add(layer, ann, "1961", "DATETIME")
    undo_last_change(layer, actor=ann)
    undo_last_change(layer, actor=ann)
    assert state(layer) == start


def test_undo_is_per_person_and_stops_at_a_status_change(layer, people, annotated):
    ann, manager = people["ann"], people["manager"]
    set_entity_decision(annotated["oslo"].entity, actor=manager, identifier_type="NO_MASK")
    with pytest.raises(DomainError, match="made by mia_manager"):
        undo_last_change(layer, actor=ann)
    undo_last_change(layer, actor=manager)
    set_entity_decision(Mention.objects.get(span_text="Mr John Smith").entity, actor=ann, identifier_type="DIRECT")
    add(layer, ann, "John Smith", "PERSON", occurrence=1, identifier_type="DIRECT")
    change_layer_status(layer, LayerStatus.CONFIRMED, actor=ann)
    with pytest.raises(DomainError, match="confirmed, so it is read-only"):
        undo_last_change(layer, actor=ann)
    change_layer_status(layer, LayerStatus.IN_PROGRESS, actor=ann)  # reopened
    with pytest.raises(DomainError, match="nothing to undo"):
        undo_last_change(layer, actor=ann)
