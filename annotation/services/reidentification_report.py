"""What the release pages show of re-identification runs: the newest run of a release
(its outcomes, and where each leaking term is in the workspace), and the newest
succeeded run of each release of a corpus for the comparison table. Each in a fixed
number of queries, however many releases or documents."""

from collections.abc import Iterable

from ..models import BackgroundDocument, ReidentificationRun, Release
from .release_sources import source_layer_ids


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
    """The layer each document's release used, by document id (one query)."""
    return source_layer_ids(document_ids, release.source, release.annotator_id)
