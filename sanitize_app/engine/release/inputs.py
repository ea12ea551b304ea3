"""A release's input from mention rows: the DIRECT and QUASI mentions of one layer (or of
a pre-annotation) grouped per entity, in document order.

The rule (the one ``annotation.services.release_sources`` applies to stored layers):
a mention overlapping one before it (nested in it, or crossing it) is left out, since a
release replaces disjoint spans and the earlier (then longer) span already covers its
characters; the mentions of an entity normally share a type, and when an annotator gave
them different types each type is its own entity (key ``<entity>:<TYPE>``), so that a
type's ladder never sees another type's text; an entity is DIRECT when any of its
mentions is."""

from collections import defaultdict
from collections.abc import Iterable

from .types import Mention, ReleaseEntity, ReleaseInput

MASKED_IDENTIFIER_TYPES = ("DIRECT", "QUASI")

# (entity key, start, end, text, entity type, identifier type)
Row = tuple[str, int, int, str, str, str]


def group_mentions(rows: Iterable[Row]) -> list[ReleaseEntity]:
    """Entities in the order of their first kept mention (see the module's rule)."""
    ordered = sorted(rows, key=lambda row: (row[1], -row[2], row[0]))
    kept, covered_until = [], -1
    for row in ordered:
        if row[1] >= covered_until:
            kept.append(row)
            covered_until = row[2]
    types_of: dict[str, set[str]] = defaultdict(set)
    for key, _, _, _, entity_type, _ in kept:
        types_of[key].add(entity_type)
    groups: dict[str, list[Row]] = {}
    for row in kept:
        key, entity_type = row[0], row[4]
        groups.setdefault(key if len(types_of[key]) == 1 else f"{key}:{entity_type}", []).append(row)
    return [
        ReleaseEntity(
            key=group_key,
            entity_type=members[0][4],
            identifier_type="DIRECT" if any(row[5] == "DIRECT" for row in members) else "QUASI",
            mentions=[Mention(start=row[1], end=row[2], text=row[3]) for row in members],
        )
        for group_key, members in groups.items()
    ]


def tab_layer_input(document: dict, annotator: str) -> ReleaseInput:
    """The release input of one annotator's layer of a TAB document (the JSON of the
    corpus files: ``annotations[annotator]["entity_mentions"]``). KeyError names a
    missing annotator."""
    layers = document.get("annotations", {})
    if annotator not in layers:
        raise KeyError(f"document {document['doc_id']} has no layer of {annotator} (it has {', '.join(layers)})")
    rows = [
        (m["entity_id"], m["start_offset"], m["end_offset"], m["span_text"], m["entity_type"], m["identifier_type"])
        for m in layers[annotator]["entity_mentions"]
        if m["identifier_type"] in MASKED_IDENTIFIER_TYPES
    ]
    return ReleaseInput(doc_id=document["doc_id"], text=document["text"], entities=group_mentions(rows))
