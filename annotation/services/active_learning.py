"""Active learning order: the documents whose masking decisions a trained model was least
sure of come first, so that the annotators' work teaches the next model the most.

Only a trained model's probability can order anything: the guideline rules say 0 or 1.
The pre-annotation stores the models' P(mask) on each prediction (``mask_probability``,
empty when no trained model judged the entity), so the order is read from the database
and never runs the engine in the request. Documents whose newest pre-annotation had no
trained model follow by document id, and the message says how many were scored."""

from dataclasses import dataclass

from django.db.models import Max

from ..enums import IdentifierType
from ..models import Prediction, TrainedModel
from ..selectors import natural_key
from .preannotation import newest_runs

# The kinds whose model gives a P(mask) (a recognizer only finds the spans).
SCORING_KINDS = (TrainedModel.Kind.MASKING, TrainedModel.Kind.SEQUENCE)


@dataclass
class UncertaintyOrder:
    layers: list
    scored: int  # how many of ``layers`` (first) a trained model scored
    message: str


def entity_uncertainty(probability: float) -> float:
    """The chance, by the model's own estimate, that its decision on the entity is wrong:
    0.5 for a coin toss, 0 when it is sure (P(mask) 0 or 1)."""
    p = min(max(probability, 0.0), 1.0)
    return min(p, 1.0 - p)


def document_uncertainty(document_ids) -> dict[int, float]:
    """Per document that a trained model scored in its newest pre-annotation, the expected
    number of the model's masking decisions that are wrong: the sum of its entities'
    uncertainty. Direct identifiers do not count (they are masked by rule whatever the
    model says). Documents whose newest pre-annotation has no model probability (only
    rules, or never pre-annotated) are left out."""
    newest = newest_runs(list(document_ids))
    entities = (
        Prediction.objects.filter(
            document_id__in=list(newest), run_id__in=set(newest.values()), mask_probability__isnull=False
        )
        .order_by()
        .values("document_id", "run_id", "entity_key", "identifier_type")
        .annotate(probability=Max("mask_probability"))  # one value per entity, on each of its mentions
    )
    scores: dict[int, float] = {}
    for entity in entities:
        document_id = entity["document_id"]
        if newest[document_id] != entity["run_id"]:
            continue
        scores.setdefault(document_id, 0.0)
        if entity["identifier_type"] != IdentifierType.DIRECT:
            scores[document_id] += entity_uncertainty(entity["probability"])
    return scores


def by_document_id(layer) -> tuple:
    return natural_key(layer.document.doc_id), natural_key(layer.document.corpus.name), layer.pk


def most_uncertain_first(layers: list) -> UncertaintyOrder:
    """``layers`` (with document and corpus loaded) in active learning order: those a
    trained model scored first, most uncertain first, the rest after them by document id.
    Each layer gets ``uncertainty`` (None when not scored)."""
    scores = document_uncertainty({layer.document_id for layer in layers})
    for layer in layers:
        layer.uncertainty = scores.get(layer.document_id)
    scored = sorted(
        (layer for layer in layers if layer.uncertainty is not None),
        key=lambda layer: (-layer.uncertainty, *by_document_id(layer)),
    )
    rest = sorted((layer for layer in layers if layer.uncertainty is None), key=by_document_id)
    promoted = not scored and any_scoring_model_promoted({layer.document.corpus_id for layer in layers})
    return UncertaintyOrder(scored + rest, len(scored), order_message(len(scored), len(layers), promoted))


def any_scoring_model_promoted(corpus_ids) -> bool:
    return TrainedModel.objects.filter(corpus_id__in=corpus_ids, kind__in=SCORING_KINDS, is_active=True).exists()


def _documents(count: int) -> str:
    return f"{count} document" + ("" if count == 1 else "s")


def order_message(scored: int, total: int, promoted: bool = False) -> str:
    """What the order rests on, in words for the annotator."""
    if not total:
        return ""
    if not scored and promoted:
        return (
            "No document here was pre-annotated with the promoted trained model yet: ordered by document id "
            "(a new pre-annotation run scores them)."
        )
    if not scored:
        return "No trained model yet: ordered by document id."
    if scored == total:
        return f"Most uncertain first: all {_documents(total)} scored by a trained model."
    return (
        f"Most uncertain first: {scored} of {_documents(total)} scored by a trained model; "
        f"the other {total - scored}, not pre-annotated with one, follow by document id."
    )
