"""The panel of the current entity: its mentions in context and what can be done."""

from annotation.enums import ConfidentialStatus, EntityType, IdentifierType
from annotation.models import Entity
from annotation.services.active_learning import entity_uncertainty
from annotation.services.occurrences import unannotated_occurrences
from annotation.services.preannotation_apply import confidential_to_take, engine_proposal

from .model import EntityView, LayerView

CONTEXT_CHARS = 40


def snippet(text: str, start: int, end: int) -> tuple[str, str, str]:
    """(before, span, after) around a mention, cut at word boundaries."""
    left = max(0, start - CONTEXT_CHARS)
    right = min(len(text), end + CONTEXT_CHARS)
    before, after = text[left:start], text[end:right]
    if left > 0 and " " in before:
        before = "…" + before.split(" ", 1)[1]
    if right < len(text) and " " in after:
        after = after.rsplit(" ", 1)[0] + "…"
    return " ".join(before.split()), text[start:end], " ".join(after.split())


# P(mask) between 0.3 and 0.7: the models' decision is close to a coin toss.
UNSURE = 0.3


def engine_suggestion(entity: EntityView) -> dict | None:
    """What the pre-annotation engine proposed for this entity, if it came from it: the
    identifier type and the confidential status, and what ``g`` would take of them."""
    if entity.suggested is None:
        return None  # no mention of it was proposed by the engine: no query needed
    row = engine_proposal(entity.id)
    if row is None:
        return None
    row["label"] = IdentifierType(row["identifier_type"]).label
    confidential = row["confidential_status"]
    row["confidential"] = confidential if confidential != ConfidentialStatus.NOT_CONFIDENTIAL else None
    row["take_confidential"] = None
    if row["confidential"]:
        row["confidential_label"] = ConfidentialStatus(confidential).label
        row["confidential_taken"] = entity.confidential_status == confidential
        if not row["confidential_taken"]:
            row["take_confidential"] = confidential_to_take(Entity.objects.get(pk=entity.id), confidential)
        # Neither taken nor takeable: the annotator chose another status, which stays.
        row["confidential_kept"] = not row["confidential_taken"] and row["take_confidential"] is None
    row["accepted"] = entity.identifier_type == row["identifier_type"] and row["take_confidential"] is None
    if row["mask_probability"] is not None:
        # The trained models' own doubt: what the active-learning order ranks by.
        row["uncertainty"] = entity_uncertainty(row["mask_probability"])
        row["unsure"] = row["uncertainty"] >= UNSURE
    return row


def entity_panel_context(view: LayerView, entity: EntityView, editable: bool) -> dict:
    mentions = [
        {"mention": mention, "context": snippet(view.text, mention.start_offset, mention.end_offset)}
        for mention in entity.mentions
    ]
    # Merging joins strings of one thing ("Mr Smith" into "John Smith"): same type first.
    others = [e for e in view.entities if e.id != entity.id and e.first.entity_type == entity.first.entity_type]
    strings = {mention.text for mention in entity.mentions}
    covered = [(m.start_offset, m.end_offset) for m in view.mentions]
    return {
        "layer": view.layer,
        "entity": entity,
        "other_occurrences": len(unannotated_occurrences(view.layer, strings, text=view.text, covered=covered))
        if editable
        else 0,
        "mentions": mentions,
        "editable": editable,
        "identifier_types": IdentifierType.choices,
        "confidential_statuses": ConfidentialStatus.choices,
        "entity_types": EntityType.choices,
        "merge_candidates": others,
        "suggestion": engine_suggestion(entity),
    }
