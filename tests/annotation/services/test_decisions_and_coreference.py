import pytest

from annotation.models import AuditEvent, Entity, Mention, MentionLink
from annotation.services.coreference import merge_entities, split_mention
from annotation.services.decisions import set_entity_decision
from annotation.services.errors import InvalidAnnotation
from annotation.services.mentions import create_mention

from .conftest import span


def add(layer, actor, text, entity_type, occurrence=0, **kwargs):
    start, end = span(text, occurrence)
    return create_mention(layer, actor=actor, start_offset=start, end_offset=end, entity_type=entity_type, **kwargs)


def test_a_decision_applies_to_every_mention_of_the_entity(layer, people):
    ann = people["ann"]
    first = add(layer, ann, "Oslo", "LOC")
    add(layer, ann, "Oslo", "LOC", occurrence=1)
    other = add(layer, ann, "1961", "DATETIME")
    set_entity_decision(first.entity, actor=ann, identifier_type="QUASI", confidential_status="NOT_CONFIDENTIAL")
    assert list(Mention.objects.filter(entity=first.entity).values_list("identifier_type", flat=True)) == [
        "QUASI",
        "QUASI",
    ]
    other.refresh_from_db()
    assert other.identifier_type is None  # other entities untouched
    event = AuditEvent.objects.get(action="entity.decision")
    assert event.changes["mentions"] == 2 and event.actor == ann


def test_an_unknown_decision_is_refused(layer, people):
    mention = add(layer, people["ann"], "Oslo", "LOC")
    with pytest.raises(InvalidAnnotation, match="identifier_type 'MASK'"):
        set_entity_decision(mention.entity, actor=people["ann"], identifier_type="MASK")


def test_merge_moves_mentions_links_them_and_keeps_the_target_decision(layer, people):
    ann = people["ann"]
    full = add(layer, ann, "Mr John Smith", "PERSON", identifier_type="DIRECT")
    short = add(layer, ann, "Mr Smith", "PERSON", identifier_type="QUASI")
    merge_entities(full.entity, short.entity, actor=ann)
    short.refresh_from_db()
    assert short.entity_id == full.entity_id
    assert short.identifier_type == "DIRECT"
    assert short.related_mentions_present
    assert list(MentionLink.objects.values_list("source_id", "target_id")) == [(short.pk, full.pk)]
    assert Entity.objects.count() == 1


def test_merge_across_layers_is_refused(layer, people, corpus):
    from annotation.models import AnnotationLayer

    other_layer = AnnotationLayer.objects.create(document=layer.document, annotator=people["bob"])
    mine = add(layer, people["ann"], "Oslo", "LOC")
    theirs = add(other_layer, people["bob"], "Oslo", "LOC")
    with pytest.raises(InvalidAnnotation, match="same layer"):
        merge_entities(mine.entity, theirs.entity, actor=people["ann"])


def test_split_takes_a_mention_into_its_own_entity(layer, people):
    ann = people["ann"]
    first = add(layer, ann, "Oslo", "LOC", identifier_type="QUASI")
    second = add(layer, ann, "Oslo", "LOC", occurrence=1)
    new_entity = split_mention(second, actor=ann)
    second.refresh_from_db()
    assert second.entity_id == new_entity.pk != first.entity_id
    assert second.identifier_type == "QUASI"  # keeps its decision
    with pytest.raises(InvalidAnnotation, match="only mention"):
        split_mention(second, actor=ann)
