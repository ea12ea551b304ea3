"""The risk meter's suggested masks: attack-guided masking's ``suggest`` mode run on the
layer as currently masked. Each proposal names the words to mask (where they are in the
original), the rank the person moves from and to (after the proposals above it: they are
steps in order), and the annotated entity that covers them with its decision, if any (the
workspace then offers to mask that entity).

A well-known person's document needs many masks before the person leaves the attacker's
top k (about 25 for a WikiActors abstract at k = 5), so the masking runs up to
``STEP_LIMIT`` steps (each one scoring of the document: a fraction of a second with
tfidf-svc); the panel shows the first few and where the whole sequence ends."""

from sanitize_app.engine.reidentification.guided_masking import spacy_entities, suggest
from sanitize_app.engine.release.types import SanitizedDocument

from ..models import AnnotationLayer
from .layer_attack import EntityCover

STEP_LIMIT = 30


def suggested_masks(
    layer: AnnotationLayer, sanitized: SanitizedDocument, fitted, person: str, top_k: int, cover: EntityCover
) -> list[dict]:
    """[{text, start, end, entity_type, replacement, rank_before, rank_after, entity_id, decision}]"""
    masked = [(span.start, span.end, span.replacement) for span in sanitized.spans]
    result = suggest(
        layer.document.text,
        masked,
        person,
        fitted.attacker,
        fitted.pretreatment,
        top_k=top_k,
        entities=spacy_entities(fitted.pretreatment.nlp),
        step_limit=STEP_LIMIT,
    )
    proposals = []
    for step in result.steps:
        start, end = step.mentions[0]
        covering = cover.at(start, end)
        proposals.append(
            {
                "text": step.unit,
                "start": start,
                "end": end,
                "entity_type": step.entity_type,
                "replacement": step.replacement,
                "rank_before": step.rank_before,
                "rank_after": step.rank_after,
                "entity_id": covering.entity_id if covering else None,
                "decision": covering.decision if covering else "",
                "mask_as": covering.mask_as if covering else "",
            }
        )
    return proposals
