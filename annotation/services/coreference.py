"""Coreference (TAB Step 4): merging entities and splitting mentions out of them.

Two people may merge or split the same entities at the same moment (A into B and B into
A). Every change holds the layer's row lock (``layer_edit``), so they run one after the
other; the second finds the layer at a newer version, or (without a version) its
entities merged away or its mention gone, and is refused with ``StaleLayerVersion``
carrying the current state of the entities concerned (the API answers 409 with it)."""

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count

from ..models import AnnotationLayer, Entity, Mention, MentionLink
from .audit import record_event
from .decisions import apply_decision, decision_state
from .errors import InvalidAnnotation, StaleLayerVersion
from .layer_edit import allocate_tab_id, layer_edit, touch


def entity_states(ids: Iterable[int]) -> list[dict]:
    """The entities as they are now, in the order given: whether each still exists, and
    its TAB id and mention count when it does."""
    ids = list(ids)
    found = {
        entity.pk: entity
        for entity in Entity.objects.filter(pk__in=ids).annotate(mention_count=Count("mentions")).only("tab_entity_id")
    }
    return [
        {"id": pk, "exists": True, "entity_id": found[pk].tab_entity_id, "mention_count": found[pk].mention_count}
        if pk in found
        else {"id": pk, "exists": False}
        for pk in ids
    ]


def _gone(layer: AnnotationLayer, expected: int | None, what: str, ids: list[int]) -> StaleLayerVersion:
    conflict = StaleLayerVersion(layer.pk, expected, layer.version, entities=entity_states(ids))
    conflict.message = (
        f"{what} was changed by someone else meanwhile (layer {layer.pk} is at version {layer.version}). "
        "Reload to see the current annotations."
    )
    conflict.args = (conflict.message,)
    return conflict


@contextmanager
def _coreference_edit(
    layer: AnnotationLayer, concerned: Callable[[], list[int]], *, actor, expected_version: int | None
) -> Iterator[AnnotationLayer]:
    """``layer_edit`` whose refusal of a stale version carries the current state of the
    entities ``concerned()`` names (read after the refusal, outside the transaction)."""
    try:
        with layer_edit(layer, actor=actor, expected_version=expected_version) as locked:
            yield locked
    except StaleLayerVersion as stale:
        if stale.entities is not None:
            raise
        raise StaleLayerVersion(
            stale.layer_id, stale.expected, stale.current, entities=entity_states(concerned())
        ) from None


def _first_mention(entity: Entity) -> Mention | None:
    return entity.mentions.order_by("start_offset", "end_offset", "id").first()


def _link(source: Mention, target: Mention) -> dict | None:
    """Record an explicit link (TAB related_mentions) from ``source`` to ``target``;
    returns what undo needs to take it back (None if the link existed)."""
    if MentionLink.objects.filter(source=source, target=target).exists():
        return None
    position = MentionLink.objects.filter(source=source).count()
    MentionLink.objects.create(source=source, target=target, position=position)
    if not source.related_mentions_present:
        Mention.objects.filter(pk=source.pk).update(related_mentions_present=True)
    return {
        "source": source.tab_mention_id,
        "target": target.tab_mention_id,
        "flag_was": source.related_mentions_present,
    }


def merge_entities(
    target: Entity, source: Entity, *, actor: AbstractBaseUser | None, expected_version: int | None = None
) -> Entity:
    """Move every mention of ``source`` into ``target`` ("Mr Smith" into "John Smith").

    The merged entity keeps ``target``'s decision when it has one, else ``source``'s, and
    the first mention of ``source`` is linked explicitly to the first of ``target`` (how
    the TAB files record links between different strings)."""
    if target.layer_id != source.layer_id:
        raise InvalidAnnotation("Only entities of the same layer can be merged.", field="entity")
    if target.pk == source.pk:
        raise InvalidAnnotation("An entity cannot be merged into itself.", field="entity")
    ids = [target.pk, source.pk]
    with _coreference_edit(target.layer, lambda: ids, actor=actor, expected_version=expected_version) as locked:
        # Read again under the lock: a merge that ran first may have deleted either.
        current = {entity.pk: entity for entity in Entity.objects.filter(pk__in=ids, layer=locked)}
        if len(current) < 2:
            raise _gone(locked, expected_version, f"Entity {target.pk if target.pk not in current else source.pk}", ids)
        target, source = current[target.pk], current[source.pk]
        before = {"target": decision_state(target), "source": decision_state(source)}
        identifier, confidential = target.mentions.values_list("identifier_type", "confidential_status").order_by(
            "start_offset", "id"
        ).first() or (None, None)
        if identifier is None:
            identifier, confidential = source.mentions.values_list("identifier_type", "confidential_status").order_by(
                "start_offset", "id"
            ).first() or (None, None)
        anchor, moved_first = _first_mention(target), _first_mention(source)
        moved = list(source.mentions.values_list("tab_mention_id", flat=True))
        Mention.objects.filter(entity=source).update(entity=target)
        touch(target)
        apply_decision(target, identifier_type=identifier, confidential_status=confidential)
        link = None
        if anchor is not None and moved_first is not None and anchor.span_text != moved_first.span_text:
            link = _link(moved_first, anchor)
        source_id = source.tab_entity_id
        source.delete()
        record_event(
            "entity.merge",
            actor=actor,
            layer=locked,
            target=target.tab_entity_id,
            changes={"merged": source_id, "moved": moved, "before": before, "link": link},
        )
    return target


def split_mention(mention: Mention, *, actor: AbstractBaseUser | None, expected_version: int | None = None) -> Entity:
    """Take a mention out of its entity into a new entity of its own, keeping its
    decision; explicit links between it and its former entity are removed."""

    def concerned() -> list[int]:
        # The entity the mention is in now (its former one if the mention is gone).
        return list(Mention.objects.filter(pk=mention.pk).values_list("entity_id", flat=True)) or [mention.entity_id]

    with _coreference_edit(mention.layer, concerned, actor=actor, expected_version=expected_version) as locked:
        current = Mention.objects.select_related("entity").filter(pk=mention.pk, layer=locked).first()
        if current is None:
            raise _gone(locked, expected_version, f"Mention {mention.pk}", concerned())
        old = current.entity
        if not old.mentions.exclude(pk=current.pk).exists():
            raise InvalidAnnotation(
                f"Mention {current.tab_mention_id} is the only mention of entity {old.tab_entity_id}.", field="mention"
            )
        new = Entity.objects.create(layer=locked, tab_entity_id=allocate_tab_id(locked, "e"))
        former = list(old.mentions.exclude(pk=current.pk).values_list("pk", flat=True))
        links = MentionLink.objects.filter(source=current, target__in=former) | MentionLink.objects.filter(
            target=current, source__in=former
        )
        removed = list(links.values_list("source__tab_mention_id", "target__tab_mention_id", "position"))
        links.delete()
        current.entity = new
        current.save(update_fields=["entity"])
        touch(old, new)
        record_event(
            "mention.split",
            actor=actor,
            layer=locked,
            target=current.tab_mention_id,
            changes={
                "mention": current.tab_mention_id,
                "from_entity": old.tab_entity_id,
                "to_entity": new.tab_entity_id,
                "removed_links": removed,
            },
        )
    return new
