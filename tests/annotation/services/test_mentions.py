import pytest

from annotation.enums import EditType, LayerStatus, Origin
from annotation.models import AuditEvent, Entity, Mention
from annotation.services.errors import InvalidAnnotation, StaleLayerVersion
from annotation.services.mentions import create_mention, delete_mention, update_mention

from .conftest import TEXT, span


def test_create_trims_whitespace_and_stores_exact_offsets(layer, people):
    start, end = span("Oslo")
    mention = create_mention(layer, actor=people["ann"], start_offset=start - 1, end_offset=end + 0, entity_type="LOC")
    assert (mention.start_offset, mention.end_offset) == (start, end)
    assert mention.span_text == TEXT[start:end] == "Oslo"
    assert mention.edit_type == EditType.INSERT and mention.origin == Origin.MANUAL
    assert mention.tab_mention_id == "case-1_ann_annotator_em2"
    assert mention.entity.tab_entity_id == "case-1_ann_annotator_e1"


def test_first_change_starts_the_layer_and_bumps_its_version(layer, people):
    assert layer.status == LayerStatus.ASSIGNED and layer.version == 0
    create_mention(layer, actor=people["ann"], start_offset=15, end_offset=28, entity_type="PERSON")
    layer.refresh_from_db()
    assert layer.status == LayerStatus.IN_PROGRESS and layer.started_at is not None
    assert layer.version == 1


def test_identical_strings_join_one_entity_and_inherit_its_decision(layer, people):
    first = create_mention(
        layer,
        actor=people["ann"],
        start_offset=span("Oslo")[0],
        end_offset=span("Oslo")[1],
        entity_type="LOC",
        identifier_type="QUASI",
    )
    second = create_mention(
        layer, actor=people["ann"], start_offset=span("Oslo", 1)[0], end_offset=span("Oslo", 1)[1], entity_type="LOC"
    )
    assert second.entity_id == first.entity_id
    assert second.identifier_type == "QUASI"
    assert Entity.objects.count() == 1


@pytest.mark.parametrize(
    "start, end, field", [(-1, 4, "start_offset"), (10, 5, "start_offset"), (0, len(TEXT) + 1, "end_offset")]
)
def test_out_of_range_spans_are_refused_and_nothing_changes(layer, people, start, end, field):
    with pytest.raises(InvalidAnnotation) as caught:
        create_mention(layer, actor=people["ann"], start_offset=start, end_offset=end, entity_type="LOC")
    assert caught.value.field == field
    layer.refresh_from_db()
    assert layer.version == 0 and Mention.objects.count() == 0


def test_a_whitespace_only_span_and_a_duplicate_span_are_refused(layer, people):
    gap = TEXT.index("  ")
    with pytest.raises(InvalidAnnotation, match="only whitespace"):
        create_mention(layer, actor=people["ann"], start_offset=gap, end_offset=gap + 2, entity_type="MISC")
    create_mention(layer, actor=people["ann"], start_offset=15, end_offset=28, entity_type="PERSON")
    with pytest.raises(InvalidAnnotation, match="already annotated"):
        create_mention(layer, actor=people["ann"], start_offset=15, end_offset=28, entity_type="ORG")


def test_unknown_entity_type_is_refused(layer, people):
    with pytest.raises(InvalidAnnotation, match="entity_type 'PER' is not one of"):
        create_mention(layer, actor=people["ann"], start_offset=15, end_offset=28, entity_type="PER")


def test_edit_type_follows_the_pre_annotation(layer, people):
    start, end = span("Mr John Smith")
    proposed = Mention.objects.create(
        layer=layer,
        entity=Entity.objects.create(layer=layer, tab_entity_id="e1"),
        tab_mention_id="em1",
        start_offset=start,
        end_offset=end,
        span_text=TEXT[start:end],
        entity_type="PERSON",
        edit_type=EditType.CHECK,
        origin=Origin.PREANNOTATION,
        original_start=start,
        original_end=end,
        original_entity_type="PERSON",
    )
    changed = update_mention(proposed, actor=people["ann"], start_offset=start + 3)
    assert changed.span_text == "John Smith" and changed.edit_type == EditType.CORRECT
    restored = update_mention(changed, actor=people["ann"], start_offset=start)
    assert restored.edit_type == EditType.CHECK
    retyped = update_mention(restored, actor=people["ann"], entity_type="ORG")
    assert retyped.edit_type == EditType.CORRECT


def test_delete_removes_an_entity_left_empty_and_is_audited(layer, people):
    mention = create_mention(layer, actor=people["ann"], start_offset=15, end_offset=28, entity_type="PERSON")
    delete_mention(mention, actor=people["ann"])
    assert Mention.objects.count() == 0 and Entity.objects.count() == 0
    events = list(AuditEvent.objects.filter(layer=layer).order_by("id").values_list("action", "actor__username"))
    assert events == [("mention.create", "ann_annotator"), ("mention.delete", "ann_annotator")]
    deleted = AuditEvent.objects.get(action="mention.delete")
    assert deleted.changes["before"]["span_text"] == "Mr John Smith"


def test_a_stale_version_is_refused_and_nothing_is_written(layer, people):
    create_mention(layer, actor=people["ann"], start_offset=15, end_offset=28, entity_type="PERSON", expected_version=0)
    with pytest.raises(StaleLayerVersion) as caught:
        create_mention(
            layer,
            actor=people["bob"],
            start_offset=span("Oslo")[0],
            end_offset=span("Oslo")[1],
            entity_type="LOC",
            expected_version=0,
        )
    assert caught.value.current == 1
    assert Mention.objects.count() == 1
    assert AuditEvent.objects.filter(action="mention.create").count() == 1
