"""Creating, changing and deleting mentions (TAB Step 1)."""

from django.contrib.auth.models import AbstractBaseUser

from ..enums import ConfidentialStatus, EditType, EntityType, IdentifierType, Origin
from ..models import AnnotationLayer, Entity, Mention
from .audit import record_event
from .decisions import apply_decision
from .enum_values import checked_choice
from .errors import InvalidAnnotation
from .layer_edit import allocate_tab_id, layer_edit, touch
from .overlaps import refuse_crossing
from .spans import snap_to_tokens, trimmed_span, with_title


def mention_snapshot(mention: Mention) -> dict:
    """The fields of a mention as the audit trail records them: enough to restore it
    exactly (undo of a deletion), links included."""
    return {
        "entity_mention_id": mention.tab_mention_id,
        "entity_id": mention.entity.tab_entity_id,
        "start_offset": mention.start_offset,
        "end_offset": mention.end_offset,
        "span_text": mention.span_text,
        "entity_type": mention.entity_type,
        "identifier_type": mention.identifier_type,
        "confidential_status": mention.confidential_status,
        "edit_type": mention.edit_type,
        "origin": mention.origin,
        "original": [mention.original_start, mention.original_end, mention.original_entity_type],
        "related_mentions_present": mention.related_mentions_present,
        "related_mentions": list(
            mention.outgoing_links.order_by("position").values_list("target__tab_mention_id", flat=True)
        ),
        "related_from": list(mention.incoming_links.values_list("source__tab_mention_id", "position")),
        "position": mention.position,
        "tab_extra": mention.tab_extra,
    }


def _span(text: str, start: int, end: int, snap: bool) -> tuple[int, int]:
    return snap_to_tokens(text, start, end) if snap else trimmed_span(text, start, end)


def edit_type_for(mention: Mention) -> str:
    """``edit_type`` relative to the pre-annotation: insert for a manual span, check
    while a pre-annotated span is as proposed, correct once it was changed."""
    if mention.origin == Origin.MANUAL:
        return EditType.INSERT
    proposed = (mention.original_start, mention.original_end, mention.original_entity_type)
    if None in proposed:
        # A corrected span imported without its proposal stays corrected.
        return mention.edit_type or EditType.CORRECT
    current = (mention.start_offset, mention.end_offset, mention.entity_type)
    return EditType.CHECK if current == proposed else EditType.CORRECT


def _entity_in_layer(entity: Entity | int, layer: AnnotationLayer) -> Entity:
    entity_id = entity.pk if isinstance(entity, Entity) else entity
    found = Entity.objects.filter(pk=entity_id, layer=layer).first()
    if found is None:
        raise InvalidAnnotation(f"Entity {entity_id} is not in layer {layer.pk}.", field="entity")
    return found


def _entity_for_new_span(layer: AnnotationLayer, span_text: str) -> Entity | None:
    """Identical strings are one entity by default (TAB Step 4)."""
    same = Mention.objects.filter(layer=layer, span_text=span_text).select_related("entity").first()
    return same.entity if same else None


def _entity_decision(entity: Entity) -> tuple[str | None, str | None]:
    first = entity.mentions.order_by("start_offset", "id").values_list("identifier_type", "confidential_status").first()
    return first if first else (None, None)


def create_mention(
    layer: AnnotationLayer,
    *,
    actor: AbstractBaseUser | None,
    start_offset: int,
    end_offset: int,
    entity_type: str,
    entity: Entity | int | None = None,
    identifier_type: str | None = None,
    confidential_status: str | None = None,
    expected_version: int | None = None,
    snap: bool = False,
) -> Mention:
    """Add a span. It joins ``entity`` if given, else the entity of an identical string
    in the layer, else a new entity. A decision given here applies to the whole entity.

    ``snap`` cleans a rough browser selection (whole words, no edge punctuation);
    otherwise only whitespace at the edges is trimmed."""
    checked_choice(entity_type, EntityType, "entity_type")
    checked_choice(identifier_type, IdentifierType, "identifier_type", nullable=True)
    checked_choice(confidential_status, ConfidentialStatus, "confidential_status", nullable=True)
    with layer_edit(layer, actor=actor, expected_version=expected_version) as locked:
        text = locked.document.text
        start, end = _span(text, start_offset, end_offset, snap)
        if snap and entity_type == EntityType.PERSON:
            start = with_title(text, start)
        if Mention.objects.filter(layer=locked, start_offset=start, end_offset=end).exists():
            raise InvalidAnnotation(
                f"The span {start}:{end} ({text[start:end]!r}) is already annotated in this layer.",
                field="start_offset",
            )
        refuse_crossing(locked, start, end)
        span_text = text[start:end]
        target = _entity_in_layer(entity, locked) if entity is not None else _entity_for_new_span(locked, span_text)
        if target is None:
            target = Entity.objects.create(layer=locked, tab_entity_id=allocate_tab_id(locked, "e"))
            inherited = (None, ConfidentialStatus.NOT_CONFIDENTIAL)
        else:
            inherited = _entity_decision(target)
        mention = Mention.objects.create(
            layer=locked,
            entity=target,
            tab_mention_id=allocate_tab_id(locked, "em"),
            start_offset=start,
            end_offset=end,
            span_text=span_text,
            entity_type=entity_type,
            identifier_type=inherited[0],
            confidential_status=inherited[1],
            edit_type=EditType.INSERT,
            origin=Origin.MANUAL,
        )
        if identifier_type is not None or confidential_status is not None:
            apply_decision(target, identifier_type=identifier_type, confidential_status=confidential_status)
            mention.refresh_from_db()
        record_event(
            "mention.create",
            actor=actor,
            layer=locked,
            target=mention.tab_mention_id,
            changes={"after": mention_snapshot(mention)},
        )
    return mention


def update_mention(
    mention: Mention,
    *,
    actor: AbstractBaseUser | None,
    start_offset: int | None = None,
    end_offset: int | None = None,
    entity_type: str | None = None,
    expected_version: int | None = None,
    snap: bool = False,
) -> Mention:
    """Resize a span or change its semantic type; ``edit_type`` follows automatically."""
    if entity_type is not None:
        checked_choice(entity_type, EntityType, "entity_type")
    with layer_edit(mention.layer, actor=actor, expected_version=expected_version) as locked:
        current = Mention.objects.select_related("entity").get(pk=mention.pk)
        before = mention_snapshot(current)
        start = current.start_offset if start_offset is None else start_offset
        end = current.end_offset if end_offset is None else end_offset
        start, end = _span(locked.document.text, start, end, snap)
        clash = Mention.objects.filter(layer=locked, start_offset=start, end_offset=end).exclude(pk=current.pk)
        if clash.exists():
            raise InvalidAnnotation(f"The span {start}:{end} is already annotated in this layer.", field="start_offset")
        refuse_crossing(locked, start, end, exclude=current.pk)
        current.start_offset, current.end_offset = start, end
        current.span_text = locked.document.text[start:end]
        if entity_type is not None:
            current.entity_type = entity_type
        current.edit_type = edit_type_for(current)
        current.save(update_fields=["start_offset", "end_offset", "span_text", "entity_type", "edit_type"])
        touch(current.entity_id)
        record_event(
            "mention.update",
            actor=actor,
            layer=locked,
            target=current.tab_mention_id,
            changes={"before": before, "after": mention_snapshot(current)},
        )
    return current


def delete_mention(mention: Mention, *, actor: AbstractBaseUser | None, expected_version: int | None = None) -> None:
    """Remove a span; an entity left without mentions goes with it."""
    with layer_edit(mention.layer, actor=actor, expected_version=expected_version) as locked:
        current = Mention.objects.select_related("entity").get(pk=mention.pk)
        before = mention_snapshot(current)
        entity = current.entity
        current.delete()
        if not entity.mentions.exists():
            entity.delete()
        else:
            touch(entity)
        record_event(
            "mention.delete", actor=actor, layer=locked, target=before["entity_mention_id"], changes={"before": before}
        )
