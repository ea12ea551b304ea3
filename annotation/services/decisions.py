"""Masking and confidentiality decisions on entities (TAB Steps 2 and 3).

A decision is made on an entity and propagated to all of its mentions in one UPDATE:
the layer stays consistent and the cost does not grow with a per-mention loop."""

from django.contrib.auth.models import AbstractBaseUser

from ..enums import ConfidentialStatus, IdentifierType
from ..models import Entity, Mention
from .audit import record_event
from .enum_values import checked_choice
from .layer_edit import layer_edit, touch


def apply_decision(
    entity: Entity, *, identifier_type: str | None = None, confidential_status: str | None = None
) -> int:
    """Write the given values on every mention of ``entity`` (inside a ``layer_edit``).
    Returns the number of mentions updated."""
    values = {}
    if identifier_type is not None:
        values["identifier_type"] = identifier_type
    if confidential_status is not None:
        values["confidential_status"] = confidential_status
    if not values:
        return 0
    touch(entity)
    return Mention.objects.filter(entity=entity).update(**values)


def decision_state(entity: Entity) -> dict[str, list]:
    """Each mention's current decision, keyed by TAB mention id (for the audit trail and
    for undo: mentions of one entity may hold different values)."""
    return {
        tab_id: [identifier, confidential]
        for tab_id, identifier, confidential in entity.mentions.order_by("start_offset", "id").values_list(
            "tab_mention_id", "identifier_type", "confidential_status"
        )
    }


def set_entity_decision(
    entity: Entity,
    *,
    actor: AbstractBaseUser | None,
    identifier_type: str | None = None,
    confidential_status: str | None = None,
    expected_version: int | None = None,
) -> Entity:
    """Set DIRECT / QUASI / NO_MASK and/or the confidential status of an entity."""
    checked_choice(identifier_type, IdentifierType, "identifier_type", nullable=True)
    checked_choice(confidential_status, ConfidentialStatus, "confidential_status", nullable=True)
    with layer_edit(entity.layer, actor=actor, expected_version=expected_version) as locked:
        before = decision_state(entity)
        count = apply_decision(entity, identifier_type=identifier_type, confidential_status=confidential_status)
        record_event(
            "entity.decision",
            actor=actor,
            layer=locked,
            target=entity.tab_entity_id,
            changes={
                "before": before,
                "after": {"identifier_type": identifier_type, "confidential_status": confidential_status},
                "mentions": count,
            },
        )
    return entity
