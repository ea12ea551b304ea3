"""What the release pages show of re-identification runs: the newest run of a release
(its outcomes, and where each leaking term is in the workspace), and the newest
succeeded run of each release of a corpus for the comparison table. Each in a fixed
number of queries, however many releases or documents."""

from collections.abc import Iterable

from ..enums import FINISHED_LAYER_STATUSES
from ..models import AnnotationLayer, BackgroundDocument, ReidentificationRun, Release
from .release_sources import STATUS_PREFERENCE


def newest_succeeded_runs(release_ids: Iterable[int]) -> dict[int, ReidentificationRun]:
    """The newest succeeded run of each release (one query)."""
    runs = ReidentificationRun.objects.filter(
        release_id__in=list(release_ids), status=ReidentificationRun.Status.SUCCEEDED
    ).order_by("release_id", "-created_at", "-id")
    newest: dict[int, ReidentificationRun] = {}
    for run in runs.only("id", "release_id", "attacker", "results", "created_at"):
        newest.setdefault(run.release_id, run)
    return newest


def newest_run(release: Release) -> ReidentificationRun | None:
    return release.reidentification_runs.select_related("created_by").order_by("-created_at", "-id").first()


def has_background(release: Release) -> bool:
    collection = release.corpus.background_collection
    return bool(collection) and BackgroundDocument.objects.filter(collection=collection).exists()


def source_layers(release: Release, document_ids: Iterable[int]) -> dict[int, int]:
    """The layer each document's release used (a layer source's rule, as
    ``release_sources.source_layer`` applies it), by document id; none for a release of
    pre-annotations. One query."""
    if release.source == Release.Source.PREANNOTATION:
        return {}
    layers = AnnotationLayer.objects.filter(document_id__in=list(document_ids), status__in=FINISHED_LAYER_STATUSES)
    if release.source == Release.Source.ANNOTATOR:
        layers = layers.filter(annotator_id=release.annotator_id)
    chosen: dict[int, tuple] = {}
    for pk, document_id, status, position in layers.values_list("pk", "document_id", "status", "position"):
        rank = (STATUS_PREFERENCE[status], position, pk)
        if document_id not in chosen or rank < chosen[document_id]:
            chosen[document_id] = rank
    return {document_id: rank[2] for document_id, rank in chosen.items()}
