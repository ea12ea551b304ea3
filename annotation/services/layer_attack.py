"""A layer as a re-identification attacker reads it, and the attack on it.

The attacked text is the layer's *current* state (whatever its status): its DIRECT and
QUASI mentions replaced by their entity type (the release's "label" strategy, ``[LOC]``),
everything else as written. What the attacker reports (leaking terms, proposed masks)
has offsets into that text; they are mapped back into the original through the
release's spans, so the workspace can point at the words. A term inside a replacement
is a label the annotator already chose: it is not listed (nothing is left to mask).

Each leaking term says which annotated entity covers it (if any) and that entity's
current decision, so the workspace can offer to mask it."""

from collections.abc import Sequence
from dataclasses import dataclass

from sanitize_app.engine.release.engine import build_release_engine
from sanitize_app.engine.release.inputs import group_mentions
from sanitize_app.engine.release.rendering import original_offsets
from sanitize_app.engine.release.types import ReleasedSpan, ReleaseInput, SanitizedDocument

from ..enums import MASKED_IDENTIFIER_TYPES
from ..models import AnnotationLayer, Mention
from .release_sources import layer_rows

LABEL_ENGINE = build_release_engine("label")


def attacked_document(layer: AnnotationLayer) -> SanitizedDocument:
    """The layer's text with its DIRECT and QUASI mentions replaced by their type."""
    document = layer.document
    entities = group_mentions(layer_rows(layer))
    return LABEL_ENGINE.sanitize(ReleaseInput(doc_id=document.doc_id, text=document.text, entities=entities))


def to_original(start: int, end: int, spans: Sequence[ReleasedSpan]) -> tuple[int, int] | None:
    """The original offsets of characters ``start:end`` of the sanitized text, or None
    when they touch a replacement (a label, not words of the original)."""
    return original_offsets(((span.start, span.end, span.replacement) for span in spans), start, end)


@dataclass(frozen=True)
class Covering:
    """The annotated entity under a span of the original, and its current decision."""

    entity_id: int
    entity_type: str
    decision: str  # DIRECT, QUASI, NO_MASK, "" undecided, "mixed"
    # What "Mask" sets: the engine's proposal when it proposed a mask (the protected
    # person's name is DIRECT), else QUASI.
    mask_as: str = "QUASI"


class EntityCover:
    """Which annotated entity covers a span of the original (the layer's mentions, read once)."""

    def __init__(self, layer: AnnotationLayer):
        rows = Mention.objects.filter(layer=layer).values_list(
            "entity_id", "start_offset", "end_offset", "entity_type", "identifier_type", "prediction__identifier_type"
        )
        self.mentions = sorted(rows, key=lambda row: (row[1], -row[2]))
        decisions: dict[int, set] = {}
        self.mask_as: dict[int, str] = {}
        for entity_id, _start, _end, _type, decision, proposed in self.mentions:
            decisions.setdefault(entity_id, set()).add(decision or "")
            if proposed in MASKED_IDENTIFIER_TYPES and self.mask_as.get(entity_id) != "DIRECT":
                self.mask_as[entity_id] = proposed
        self.decisions = {key: (kinds.pop() if len(kinds) == 1 else "mixed") for key, kinds in decisions.items()}

    def at(self, start: int, end: int) -> Covering | None:
        for entity_id, m_start, m_end, entity_type, *_ in self.mentions:
            if m_start < end and start < m_end:
                mask_as = self.mask_as.get(entity_id, "QUASI")
                return Covering(entity_id, entity_type, self.decisions[entity_id], mask_as)
        return None
