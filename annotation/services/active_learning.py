"""Active learning order: documents where the engine was least sure of its masking
decisions first, so that the annotators' work teaches the next model the most."""

from collections import defaultdict

from ..models import Prediction, RunDocument


def entity_uncertainty(risk: float) -> float:
    """1 when the engine's risk is 0.5 (a coin toss), 0 when it is 0 or 1."""
    return 1.0 - abs(2.0 * min(max(risk, 0.0), 1.0) - 1.0)


def document_uncertainty(document_ids) -> dict[int, float]:
    """Per document, the sum of its proposed entities' uncertainty under its newest
    pre-annotation (the expected number of decisions the engine could not make);
    documents never pre-annotated are left out."""
    newest: dict[int, int] = {}
    for document_id, run_id in (
        RunDocument.objects.filter(document_id__in=list(document_ids), status=RunDocument.Status.DONE)
        .order_by("run__created_at", "run_id")
        .values_list("document_id", "run_id")
    ):
        newest[document_id] = run_id  # the last one wins
    risks: dict[tuple[int, int], float] = defaultdict(float)
    for document_id, run_id, key, risk in Prediction.objects.filter(
        document_id__in=list(newest), run_id__in=set(newest.values())
    ).values_list("document_id", "run_id", "entity_key", "risk"):
        if newest[document_id] == run_id:
            risks[(document_id, key)] = max(risks[(document_id, key)], risk)
    scores = dict.fromkeys(newest, 0.0)
    for (document_id, _key), risk in risks.items():
        scores[document_id] += entity_uncertainty(risk)
    return scores


def most_uncertain_first(layers: list) -> list:
    """``layers`` ordered by their document's uncertainty, highest first; layers of
    documents without pre-annotation keep their order, last."""
    scores = document_uncertainty({layer.document_id for layer in layers})
    for layer in layers:
        layer.uncertainty = scores.get(layer.document_id)
    return sorted(layers, key=lambda layer: -(layer.uncertainty if layer.uncertainty is not None else -1.0))
