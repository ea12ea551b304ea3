"""The spans a release sanitizes: for each document, the DIRECT and QUASI mentions of the
chosen source, grouped per entity, as the engine's ``ReleaseInput``.

Sources:
- "reviewed": per document, one finished layer chosen by a fixed rule (``REVIEWED_RULE``):
  the best status first (reviewed, then under review, then confirmed), then the layer's
  order in the document (its position among the imported annotations, then its id). A
  document without a finished layer is skipped, with the reason.
- "annotator": that annotator's finished layer of each document; documents where they
  have none are skipped.
- "preannotation": the DIRECT and QUASI predictions of the newest pre-annotation run that
  finished the document, grouped by the run's ``entity_key``; documents never
  pre-annotated are skipped.

Mentions are grouped per entity by the engine's rule (``engine.release.inputs``:
nested spans left to the outer one, a type change splitting an entity, DIRECT when any
mention is). Everything is read one document at a time (a corpus is never loaded whole); the plan of a
release reads ids only."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from sanitize_app.engine.release.inputs import group_mentions
from sanitize_app.engine.release.types import ReleaseInput

from ..enums import FINISHED_LAYER_STATUSES, MASKED_IDENTIFIER_TYPES, LayerStatus
from ..models import AnnotationLayer, Corpus, Document, Mention, Prediction, Release
from .errors import DomainError
from .preannotation import newest_runs

# Rank of a finished layer's status for the "reviewed" source (lower is preferred).
STATUS_PREFERENCE = {LayerStatus.REVIEWED: 0, LayerStatus.UNDER_REVIEW: 1, LayerStatus.CONFIRMED: 2}
REVIEWED_RULE = (
    "per document, the finished layer with the best status (reviewed, then under review, then confirmed), "
    "then the first in the document's order of annotations"
)
NO_FINISHED_LAYER = "no finished layer"
NOT_PREANNOTATED = "never pre-annotated"


@dataclass
class SourcePlan:
    """What a release will sanitize: document ids in corpus order, and the documents
    left out with why (``[{"doc_id", "reason"}]``)."""

    document_ids: list[int] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)


def resolve_annotator(corpus: Corpus, username: str) -> AbstractBaseUser:
    """The account named ``username`` with at least one finished layer in ``corpus``."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise DomainError(f"There is no annotator named {username!r}.", field="annotator")
    check_annotator(corpus, user)
    return user


def check_annotator(corpus: Corpus, annotator: AbstractBaseUser | None) -> None:
    if annotator is None:
        raise DomainError("The source 'annotator' needs an annotator.", field="annotator")
    finished = AnnotationLayer.objects.filter(
        document__corpus=corpus, annotator=annotator, status__in=FINISHED_LAYER_STATUSES
    )
    if not finished.exists():
        raise DomainError(
            f"{annotator.get_username()} has no finished layer in corpus {corpus.name}.", field="annotator"
        )


def plan_source(corpus: Corpus, source: str, annotator: AbstractBaseUser | None = None) -> SourcePlan:
    """The documents of ``corpus`` that ``source`` can release and those it skips."""
    documents = list(Document.objects.filter(corpus=corpus).order_by("position", "id").values_list("pk", "doc_id"))
    if source == Release.Source.PREANNOTATION:
        available = set(newest_runs([pk for pk, _ in documents]))
        reason = NOT_PREANNOTATED
    else:
        layers = AnnotationLayer.objects.filter(document__corpus=corpus, status__in=FINISHED_LAYER_STATUSES)
        if source == Release.Source.ANNOTATOR:
            check_annotator(corpus, annotator)
            layers = layers.filter(annotator=annotator)
            reason = f"{annotator.get_username()} has no finished layer"
        else:
            reason = NO_FINISHED_LAYER
        available = set(layers.values_list("document_id", flat=True))
    plan = SourcePlan()
    for pk, doc_id in documents:
        if pk in available:
            plan.document_ids.append(pk)
        else:
            plan.skipped.append({"doc_id": doc_id, "reason": reason})
    return plan


def _preference(status: str, position: int, pk: int) -> tuple:
    """The order of ``REVIEWED_RULE`` (the smallest is released)."""
    return STATUS_PREFERENCE[status], position, pk


def source_layer_ids(document_ids: Iterable[int], source: str, annotator_id: int | None = None) -> dict[int, int]:
    """The layer a layer source releases for each of ``document_ids`` (the rule of
    ``source_layer``), by document id: one query for them all; none for pre-annotations."""
    if source == Release.Source.PREANNOTATION:
        return {}
    layers = AnnotationLayer.objects.filter(document_id__in=list(document_ids), status__in=FINISHED_LAYER_STATUSES)
    if source == Release.Source.ANNOTATOR:
        layers = layers.filter(annotator_id=annotator_id)
    chosen: dict[int, tuple] = {}
    for pk, document_id, status, position in layers.values_list("pk", "document_id", "status", "position"):
        rank = _preference(status, position, pk)
        if document_id not in chosen or rank < chosen[document_id]:
            chosen[document_id] = rank
    return {document_id: rank[2] for document_id, rank in chosen.items()}


def source_layer(document: Document, source: str, annotator: AbstractBaseUser | None = None) -> AnnotationLayer:
    """The finished layer of ``document`` a layer source releases (see the module's rule)."""
    layers = AnnotationLayer.objects.filter(document=document, status__in=FINISHED_LAYER_STATUSES)
    if source == Release.Source.ANNOTATOR:
        layers = layers.filter(annotator=annotator)
    candidates = sorted(layers, key=lambda layer: _preference(layer.status, layer.position, layer.pk))
    if not candidates:
        who = f" by {annotator.get_username()}" if source == Release.Source.ANNOTATOR and annotator else ""
        raise DomainError(f"Document {document.doc_id} has no finished layer{who}.", field="source")
    return candidates[0]


def release_input(document: Document, source: str, annotator: AbstractBaseUser | None = None) -> ReleaseInput:
    """The entities of ``document`` to release from ``source``, as the engine reads them."""
    if source == Release.Source.PREANNOTATION:
        rows = prediction_rows(document)
    else:
        rows = layer_rows(source_layer(document, source, annotator))
    return ReleaseInput(doc_id=document.doc_id, text=document.text, entities=group_mentions(rows))


def layer_rows(layer: AnnotationLayer) -> Iterable[tuple]:
    """(entity key, start, end, text, entity type, identifier type) of the layer's
    DIRECT and QUASI mentions."""
    return Mention.objects.filter(layer=layer, identifier_type__in=MASKED_IDENTIFIER_TYPES).values_list(
        "entity__tab_entity_id", "start_offset", "end_offset", "span_text", "entity_type", "identifier_type"
    )


def prediction_rows(document: Document) -> Iterable[tuple]:
    run_id = newest_runs([document.pk]).get(document.pk)
    if run_id is None:
        raise DomainError(f"Document {document.doc_id} was never pre-annotated.", field="source")
    return (
        (str(key), start, end, text, entity_type, identifier_type)
        for key, start, end, text, entity_type, identifier_type in Prediction.objects.filter(
            run_id=run_id, document=document, identifier_type__in=MASKED_IDENTIFIER_TYPES
        ).values_list("entity_key", "start_offset", "end_offset", "span_text", "entity_type", "identifier_type")
    )
