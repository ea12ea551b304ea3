"""Finding and annotating the other occurrences of an entity's strings.

An annotator who masks "Istanbul" once usually wants every "Istanbul" masked: a string
left readable elsewhere leaks what the mask hides. Occurrences are whole words that no
mention of the layer covers yet."""

import re

from django.contrib.auth.models import AbstractBaseUser

from ..enums import EditType, Origin
from ..models import AnnotationLayer, Entity, Mention
from .audit import record_event
from .layer_edit import allocate_tab_id, layer_edit, touch


def word_occurrences(text: str, needle: str):
    """Start offsets of ``needle`` in ``text`` where it stands as whole words."""
    for match in re.finditer(re.escape(needle), text):
        start, end = match.span()
        if (start == 0 or not text[start - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            yield start


def unannotated_occurrences(
    layer: AnnotationLayer,
    strings: set[str],
    text: str | None = None,
    covered: list[tuple[int, int]] | None = None,
) -> list[tuple[int, int, str]]:
    """(start, end, string) of whole-word occurrences of ``strings`` not covered by any
    mention of ``layer`` (or by the ``covered`` spans when the caller has them), in text
    order, longest string first where they overlap."""
    text = layer.document.text if text is None else text
    if covered is None:
        covered = sorted(layer.mentions.values_list("start_offset", "end_offset"))
    found: list[tuple[int, int, str]] = []
    for string in sorted(strings, key=len, reverse=True):
        if not string.strip():
            continue
        for start in word_occurrences(text, string):
            end = start + len(string)
            taken = any(s < end and start < e for s, e in covered) or any(s < end and start < e for s, e, _ in found)
            if not taken:
                found.append((start, end, string))
    return sorted(found)


def annotate_all_occurrences(
    entity: Entity, *, actor: AbstractBaseUser | None, expected_version: int | None = None
) -> list[Mention]:
    """Add every unannotated occurrence of the entity's strings to the entity, with the
    entity's type and decision."""
    with layer_edit(entity.layer, actor=actor, expected_version=expected_version) as locked:
        mentions = list(entity.mentions.order_by("start_offset", "id"))
        model = mentions[0]
        types = {mention.span_text: mention.entity_type for mention in mentions}
        created = [
            Mention.objects.create(
                layer=locked,
                entity=entity,
                tab_mention_id=allocate_tab_id(locked, "em"),
                start_offset=start,
                end_offset=end,
                span_text=string,
                entity_type=types[string],
                identifier_type=model.identifier_type,
                confidential_status=model.confidential_status,
                edit_type=EditType.INSERT,
                origin=Origin.MANUAL,
            )
            for start, end, string in unannotated_occurrences(locked, set(types))
        ]
        if created:
            touch(entity)
            record_event(
                "mention.create_many",
                actor=actor,
                layer=locked,
                target=entity.tab_entity_id,
                changes={"created": [[m.tab_mention_id, m.start_offset, m.end_offset] for m in created]},
            )
    return created
