"""The layer state machine: every transition, and every annotation write refused in the
statuses that lock a layer (confirmed, reviewed, a review not yet started by the masked
reading), with nothing changed when refused."""

import pytest

from annotation.enums import FINISHED_LAYER_STATUSES, LayerStatus
from annotation.models import AnnotationLayer, AuditEvent, Mention, ReviewAssignment
from annotation.services import coreference, decisions, mentions, occurrences, undo
from annotation.services.errors import InvalidTransition, LayerLocked
from annotation.services.layer_states import unread_review
from annotation.services.layers import add_reviewer, change_layer_status
from annotation.services.masked_review import is_current, render_masked_review
from annotation.services.review import record_masked_reading

from .conftest import span

S = LayerStatus
# Written out by hand from the documented workflow (annotation/services/layer_states.py).
ALLOWED = {
    (S.ASSIGNED, S.IN_PROGRESS),
    (S.ASSIGNED, S.CONFIRMED),
    (S.IN_PROGRESS, S.CONFIRMED),
    (S.CONFIRMED, S.IN_PROGRESS),  # reopen
    (S.CONFIRMED, S.UNDER_REVIEW),
    (S.UNDER_REVIEW, S.REVIEWED),
    (S.REVIEWED, S.UNDER_REVIEW),  # a manager reopens the review
}
ALL_PAIRS = [(a, b) for a in S.values for b in S.values if a != b]


def _decided_layer(layer, actor):
    """The layer with its person masked and every entity decided: it passes the checks."""
    for occurrence in (0, 1):
        start, end = span("John Smith", occurrence)
        mentions.create_mention(
            layer, actor=actor, start_offset=start, end_offset=end, entity_type="PERSON", identifier_type="DIRECT"
        )
    start, end = span("Oslo")
    mentions.create_mention(
        layer, actor=actor, start_offset=start, end_offset=end, entity_type="LOC", identifier_type="QUASI"
    )
    layer.refresh_from_db()
    return layer


def _force_status(layer, status):
    AnnotationLayer.objects.filter(pk=layer.pk).update(status=status)
    layer.refresh_from_db()


@pytest.mark.parametrize(("before", "after"), ALL_PAIRS)
def test_each_transition_is_allowed_or_refused_as_documented(layer, people, before, after):
    _decided_layer(layer, people["ann"])
    _force_status(layer, before)
    if (before, after) in ALLOWED:
        change_layer_status(layer, after, actor=people["manager"])
        layer.refresh_from_db()
        assert layer.status == after
        event = AuditEvent.objects.filter(layer=layer, action="layer.status").latest("id")
        assert event.changes == {"before": before, "after": after} and event.actor == people["manager"]
    else:
        version = layer.version
        with pytest.raises(InvalidTransition, match=f"from {before} to {after}"):
            change_layer_status(layer, after, actor=people["manager"])
        layer.refresh_from_db()
        assert (layer.status, layer.version) == (before, version)


def _writes(layer, actor):
    """Every kind of annotation write, each as a thunk, against the layer as it is."""
    oslo = Mention.objects.get(layer=layer, span_text="Oslo")
    smith = Mention.objects.filter(layer=layer, span_text="John Smith").order_by("start_offset")
    start, end = span("1961")
    return {
        "create": lambda: mentions.create_mention(
            layer, actor=actor, start_offset=start, end_offset=end, entity_type="DATETIME"
        ),
        "resize or retype": lambda: mentions.update_mention(oslo, actor=actor, entity_type="ORG"),
        "delete": lambda: mentions.delete_mention(oslo, actor=actor),
        "decide": lambda: decisions.set_entity_decision(oslo.entity, actor=actor, identifier_type="NO_MASK"),
        "merge": lambda: coreference.merge_entities(smith[0].entity, oslo.entity, actor=actor),
        "split": lambda: coreference.split_mention(smith[1], actor=actor),
        "annotate occurrences": lambda: occurrences.annotate_all_occurrences(oslo.entity, actor=actor),
        "undo": lambda: undo.undo_last_change(layer, actor=actor),
    }


def _state(layer):
    layer.refresh_from_db()
    rows = Mention.objects.filter(layer=layer).order_by("id")
    return layer.version, list(rows.values_list("start_offset", "end_offset", "entity_type", "identifier_type"))


WRITES = ["create", "resize or retype", "delete", "decide", "merge", "split", "annotate occurrences", "undo"]


@pytest.mark.parametrize("write", WRITES)
@pytest.mark.parametrize(
    ("status", "reason"),
    [(S.CONFIRMED, "confirmed, so it is read-only"), (S.REVIEWED, r"reviewed \(quality checked\) and final")],
)
@pytest.mark.parametrize("who", ["ann", "manager"])
def test_a_locked_layer_refuses_every_write_and_changes_nothing(layer, people, write, status, reason, who):
    _decided_layer(layer, people["ann"])
    _force_status(layer, status)
    before = _state(layer)
    with pytest.raises(LayerLocked, match=reason):
        _writes(layer, people[who])[write]()
    assert _state(layer) == before


@pytest.mark.parametrize("write", WRITES)
def test_under_review_the_reviewer_writes_only_after_the_masked_reading(layer, people, write):
    _decided_layer(layer, people["ann"])
    change_layer_status(layer, S.CONFIRMED, actor=people["ann"])
    assignment = add_reviewer(layer, people["rita"], actor=people["manager"])
    # The review has started (say a second reviewer read it), but rita has not read it yet.
    change_layer_status(layer, S.UNDER_REVIEW, actor=people["manager"])
    before = _state(layer)
    with pytest.raises(LayerLocked, match="Read the masked document"):
        _writes(layer, people["rita"])[write]()
    assert _state(layer) == before
    record_masked_reading(assignment, reidentifiable="no", actor=people["rita"])
    if write == "undo":  # rita has made no change yet: nothing of hers to undo
        mentions.update_mention(Mention.objects.get(layer=layer, span_text="Oslo"), actor=people["rita"])
    _writes(layer, people["rita"])[write]()
    assert _state(layer)[0] > before[0]


@pytest.mark.parametrize("who", ["ann", "manager"])
def test_under_review_the_author_and_managers_may_write(layer, people, who):
    _decided_layer(layer, people["ann"])
    _force_status(layer, S.UNDER_REVIEW)
    oslo = Mention.objects.get(layer=layer, span_text="Oslo")
    decisions.set_entity_decision(oslo.entity, actor=people[who], identifier_type="NO_MASK")
    oslo.refresh_from_db()
    assert oslo.identifier_type == "NO_MASK"


def test_reopening_unlocks_and_the_layer_stops_counting_as_finished(layer, people):
    ann = people["ann"]
    _decided_layer(layer, ann)
    change_layer_status(layer, S.CONFIRMED, actor=ann)
    review = render_masked_review(layer)
    assert layer.status in FINISHED_LAYER_STATUSES and is_current(layer, review)
    change_layer_status(layer, S.IN_PROGRESS, actor=ann)  # Reopen
    layer.refresh_from_db()
    assert layer.status == S.IN_PROGRESS and layer.status not in FINISHED_LAYER_STATUSES
    assert not is_current(layer, review)  # the masked review is stale
    oslo = Mention.objects.get(layer=layer, span_text="Oslo")
    decisions.set_entity_decision(oslo.entity, actor=ann, identifier_type="NO_MASK")
    oslo.refresh_from_db()
    assert oslo.identifier_type == "NO_MASK"


def test_a_task_never_changes_a_confirmed_layer(layer, people):
    """System writes (actor None, e.g. a task) obey the same lock."""
    _decided_layer(layer, people["ann"])
    _force_status(layer, S.CONFIRMED)
    before = _state(layer)
    start, end = span("1961")
    with pytest.raises(LayerLocked):
        mentions.create_mention(layer, actor=None, start_offset=start, end_offset=end, entity_type="DATETIME")
    assert _state(layer) == before


def test_the_masked_reading_records_the_answer_before_the_review_starts(layer, people):
    _decided_layer(layer, people["ann"])
    change_layer_status(layer, S.CONFIRMED, actor=people["ann"])
    assignment = add_reviewer(layer, people["rita"], actor=people["manager"])
    record_masked_reading(assignment, reidentifiable="maybe", actor=people["rita"])
    layer.refresh_from_db()
    assert layer.status == S.UNDER_REVIEW
    assert ReviewAssignment.objects.get(pk=assignment.pk).masked_read_at is not None


def test_the_review_order_check_costs_one_query_on_every_write(layer, people, django_assert_num_queries):
    # ``layer_edit`` asks it on every change: one query, answered before and after the reading.
    _decided_layer(layer, people["ann"])
    change_layer_status(layer, S.CONFIRMED, actor=people["ann"])
    assignment = add_reviewer(layer, people["rita"], actor=people["manager"])
    with django_assert_num_queries(1):
        assert unread_review(layer, people["rita"]) is True
    record_masked_reading(assignment, reidentifiable="no", actor=people["rita"])
    with django_assert_num_queries(1):
        assert unread_review(layer, people["rita"]) is False
    with django_assert_num_queries(1):
        assert unread_review(layer, people["bob"]) is False  # not paired on it
