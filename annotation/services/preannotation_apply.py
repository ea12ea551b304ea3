"""Putting the engine's predictions into annotators' layers as pre-annotations.

An annotator's work always wins: an entity a person changed in any way (``touched``),
or a span overlapping one of its mentions, is never replaced. Untouched pre-annotated
entities are exchanged for the new predictions; an identical proposal keeps its
mention ids, so re-running the engine over unchanged documents changes nothing.
Pre-annotated mentions carry no decision: the proposed identifier type and confidential
status stay on the prediction (shown as a suggestion in the workspace), so nobody
confirms a layer without looking at it. Taking the suggestion (``take_suggestion``, the
workspace's ``g``) is a person's decision like any other, through the same service (audit
trail, undo); it never replaces a confidential status that a person chose."""

from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from ..enums import ConfidentialStatus, EditType, LayerStatus, Origin
from ..models import AnnotationLayer, AuditEvent, Entity, Mention, Prediction, RunDocument
from .audit import record_event
from .decisions import set_entity_decision
from .errors import DomainError
from .layer_edit import allocate_tab_id, layer_edit

# Layers a pre-annotation may still change: not yet confirmed.
OPEN_STATUSES = (LayerStatus.ASSIGNED, LayerStatus.IN_PROGRESS)


@dataclass
class ApplyResult:
    added: int = 0  # mentions added
    removed: int = 0  # untouched pre-annotated mentions no longer proposed
    kept: int = 0  # untouched pre-annotated mentions proposed again
    skipped: int = 0  # proposed mentions overlapping an annotator's spans

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)


def _signature(rows) -> frozenset:
    return frozenset((row.start_offset, row.end_offset, row.entity_type) for row in rows)


def _split_layer(layer: AnnotationLayer) -> tuple[dict[int, list[Mention]], list[tuple[int, int]]]:
    """The engine's entities to replace (untouched, made only of pre-annotated mentions)
    and the spans of everything else, which proposals must not overlap."""
    by_entity: dict[int, list[Mention]] = defaultdict(list)
    human: set[int] = set()
    mentions = list(Mention.objects.filter(layer=layer).select_related("entity"))
    for mention in mentions:
        if mention.origin == Origin.PREANNOTATION and mention.prediction_id and not mention.entity.touched:
            by_entity[mention.entity_id].append(mention)
        else:
            human.add(mention.entity_id)
    machine = {entity: rows for entity, rows in by_entity.items() if entity not in human}
    occupied = [(m.start_offset, m.end_offset) for m in mentions if m.entity_id not in machine]
    return machine, occupied


def _plan(layer: AnnotationLayer, predictions: list[Prediction]):
    machine, occupied = _split_layer(layer)
    proposed: dict[int, list[Prediction]] = defaultdict(list)
    skipped = 0
    for prediction in predictions:
        if any(prediction.start_offset < end and start < prediction.end_offset for start, end in occupied):
            skipped += 1
            continue
        proposed[prediction.entity_key].append(prediction)
    existing = {_signature(mentions): entity for entity, mentions in machine.items()}
    keep, add = {}, []
    for group in proposed.values():
        entity = existing.pop(_signature(group), None)
        if entity is None:
            add.append(group)
        else:
            keep[entity] = group
    return machine, keep, add, list(existing.values()), skipped


def _add_entity(locked: AnnotationLayer, group: list[Prediction], serials: dict) -> int:
    entity = Entity.objects.create(layer=locked, tab_entity_id=allocate_tab_id(locked, "e", serials["e"]))
    Mention.objects.bulk_create(
        Mention(
            layer=locked,
            entity=entity,
            tab_mention_id=allocate_tab_id(locked, "em", serials["em"]),
            start_offset=p.start_offset,
            end_offset=p.end_offset,
            span_text=p.span_text,
            entity_type=p.entity_type,
            confidential_status=ConfidentialStatus.NOT_CONFIDENTIAL,
            edit_type=EditType.CHECK,
            origin=Origin.PREANNOTATION,
            original_start=p.start_offset,
            original_end=p.end_offset,
            original_entity_type=p.entity_type,
            prediction=p,
        )
        for p in sorted(group, key=lambda p: p.start_offset)
    )
    return len(group)


def apply_predictions(
    layer: AnnotationLayer, predictions: list[Prediction], *, actor: AbstractBaseUser | None = None
) -> ApplyResult:
    """Bring ``layer``'s pre-annotations in line with ``predictions`` (one document's)."""
    with transaction.atomic():
        current = AnnotationLayer.objects.select_for_update().select_related("document", "annotator").get(pk=layer.pk)
        if current.status not in OPEN_STATUSES:
            return ApplyResult()
        machine, keep, add, drop, skipped = _plan(current, predictions)
        result = ApplyResult(skipped=skipped, kept=sum(len(group) for group in keep.values()))
        for entity, group in keep.items():
            by_span = {(p.start_offset, p.end_offset, p.entity_type): p.pk for p in group}
            for mention in machine[entity]:
                mention.prediction_id = by_span[(mention.start_offset, mention.end_offset, mention.entity_type)]
            Mention.objects.bulk_update(machine[entity], ["prediction"])
        if not add and not drop:
            return result
        with layer_edit(current, actor=None, by_person=False) as locked:
            result.removed = Mention.objects.filter(entity_id__in=drop).delete()[1].get("annotation.Mention", 0)
            Entity.objects.filter(pk__in=drop).delete()
            serials = {
                "e": set(Entity.objects.filter(layer=locked).values_list("tab_entity_id", flat=True)),
                "em": set(Mention.objects.filter(layer=locked).values_list("tab_mention_id", flat=True)),
            }
            result.added = sum(_add_entity(locked, group, serials) for group in add)
            record_event(
                "preannotation.apply",
                actor=actor,
                layer=locked,
                target=f"run {predictions[0].run_id}" if predictions else "",
                changes={"added": result.added, "removed": result.removed, "kept": result.kept, "skipped": skipped},
            )
        layer.version, layer.status = current.version, current.status
    return result


def latest_predictions(document) -> list[Prediction]:
    """The predictions of the newest run that finished this document."""
    done = (
        RunDocument.objects.filter(document=document, status=RunDocument.Status.DONE)
        .order_by("-run__created_at", "-run_id")
        .values_list("run_id", flat=True)
        .first()
    )
    if done is None:
        return []
    return list(Prediction.objects.filter(run_id=done, document=document))


def apply_latest_predictions(layer: AnnotationLayer, *, actor: AbstractBaseUser | None = None) -> ApplyResult:
    """Pre-annotate a newly assigned layer with what the engine last proposed."""
    predictions = latest_predictions(layer.document)
    return apply_predictions(layer, predictions, actor=actor) if predictions else ApplyResult()


PROPOSAL_FIELDS = (
    "identifier_type",
    "risk",
    "reasons",
    "information_content",
    "confidential_status",
    "confidential_reason",
    "mask_probability",
)


def engine_proposal(entity_id: int) -> dict | None:
    """What the engine proposed for an entity (its first pre-annotated mention's
    prediction), or None when no mention of it came from the engine."""
    return Prediction.objects.filter(mentions__entity_id=entity_id).values(*PROPOSAL_FIELDS).first()


def confidential_set_by_person(entity: Entity) -> bool:
    """Whether a person chose this entity's confidential status: a category on any of
    its mentions (the pre-annotation only writes NOT_CONFIDENTIAL), or a decision that
    set it and was not undone (a deliberate NOT_CONFIDENTIAL looks like the default)."""
    statuses = set(entity.mentions.values_list("confidential_status", flat=True))
    if statuses - {None, ConfidentialStatus.NOT_CONFIDENTIAL}:
        return True
    changes = AuditEvent.objects.filter(
        layer_id=entity.layer_id, action="entity.decision", target=entity.tab_entity_id, undone=False
    ).values_list("changes", flat=True)
    return any(((change or {}).get("after") or {}).get("confidential_status") for change in changes)


def confidential_to_take(entity: Entity, proposed: str | None) -> str | None:
    """The confidential status that taking the suggestion writes: the engine's category,
    unless it is NOT_CONFIDENTIAL, already there, or a person chose the status."""
    if not proposed or proposed == ConfidentialStatus.NOT_CONFIDENTIAL:
        return None
    if set(entity.mentions.values_list("confidential_status", flat=True)) == {proposed}:
        return None
    return None if confidential_set_by_person(entity) else proposed


def take_suggestion(
    entity: Entity, *, actor: AbstractBaseUser | None, expected_version: int | None = None
) -> tuple[str, str | None]:
    """Apply the engine's suggestion to ``entity`` as the person's decision: its
    identifier type and, where ``confidential_to_take`` allows, its confidential status.
    Returns (identifier type, confidential status written or None)."""
    proposal = engine_proposal(entity.pk)
    if proposal is None:
        raise DomainError("The engine made no suggestion for this entity.", field="entity")
    confidential = confidential_to_take(entity, proposal["confidential_status"])
    set_entity_decision(
        entity,
        actor=actor,
        identifier_type=proposal["identifier_type"],
        confidential_status=confidential,
        expected_version=expected_version,
    )
    return proposal["identifier_type"], confidential
