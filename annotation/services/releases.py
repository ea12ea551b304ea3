"""Sanitized releases: a strategy applied to the spans of one source over a corpus.

A release is a batched job of the one job mechanism (``services.jobs``; its batches run
by ``services.job_steps``): it is created with one ``ReleaseDocument`` (a step) per
document its source can release; Celery tasks (or the ``release`` command, in-process)
sanitize them in batches. Each document is done once: it is computed outside any
transaction, then its row is locked and its text, spans, decisions, TPS and status are
written in one transaction, so a redelivered task or a killed worker never leaves a
document half written or written twice; a batch leaves the documents another live
worker holds to it, and the sweeper sends those of a lost worker again. ``done`` counts
the documents finished (done or failed). When no document is pending the release is
closed with its metrics."""

import math
import statistics
import time
from collections.abc import Callable

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count

from sanitize_app.engine.release.engine import ReleaseEngine
from sanitize_app.engine.release.types import PATHS

from ..models import Corpus, Release, ReleaseDecision, ReleaseDocument
from ..models.job import ERROR_LIMIT
from . import job_steps, job_sweeper, release_guided, release_metrics
from .audit import record_event
from .document_counts import COUNTED, count_expressions, document_counts, with_percent
from .errors import DomainError
from .release_engine import engine_description, release_engine
from .release_sources import REVIEWED_RULE, plan_source, release_input, resolve_annotator


def start_release(
    corpus: Corpus,
    *,
    source: str,
    annotator: AbstractBaseUser | str | None = None,
    strategy: str,
    actor: AbstractBaseUser | None,
    attack_guided_top_k: int | None = None,
) -> Release:
    """Create a release of ``corpus`` (``annotator``: an account or a username, for the
    source "annotator" only; ``attack_guided_top_k``: attack-guided masking's k, None for
    off). Refused, naming the field, when a value is unknown, when attack-guided masking
    has no background, or when the source leaves no document to release."""
    annotator = checked_choice(corpus, source, annotator, strategy)
    guided = release_guided.attack_guided_settings(corpus, attack_guided_top_k)
    plan = plan_source(corpus, source, annotator)
    if not plan.document_ids:
        reasons = sorted({item["reason"] for item in plan.skipped}) or ["the corpus has no documents"]
        raise DomainError(
            f"Corpus {corpus.name} has no document to release from source {source!r} ({'; '.join(reasons)}).",
            field="source",
        )
    described = described_engine(strategy, corpus)
    described.update(source_description(source, annotator))
    if guided:
        described["attack_guided"] = guided
    job_sweeper.recover_embedded("release")  # embedded: releases whose thread died end failed
    with transaction.atomic():
        release = Release.objects.create(
            corpus=corpus,
            source=source,
            annotator=annotator,
            strategy=strategy,
            attack_guided_top_k=guided["top_k"] if guided else None,
            settings=described,
            created_by=actor,
            total=len(plan.document_ids),
            metrics={"skipped": plan.skipped},
        )
        ReleaseDocument.objects.bulk_create(
            ReleaseDocument(release=release, document_id=pk) for pk in plan.document_ids
        )
        record_event(
            "release.start",
            actor=actor,
            corpus=corpus,
            target=f"release {release.pk}",
            changes={
                "strategy": strategy,
                "source": source,
                "annotator": annotator.get_username() if annotator else "",
                "documents": len(plan.document_ids),
                "skipped": len(plan.skipped),
                "attack_guided_top_k": guided["top_k"] if guided else None,
            },
        )
    return release


def checked_choice(
    corpus: Corpus, source: str, annotator: AbstractBaseUser | str | None, strategy: str
) -> AbstractBaseUser | None:
    """The annotator of an annotator's release (None otherwise), once the strategy,
    source and annotator are known to be valid."""
    if strategy not in Release.Strategy.values:
        raise DomainError(
            f"Unknown strategy {strategy!r}: one of {', '.join(Release.Strategy.values)}.", field="strategy"
        )
    if source not in Release.Source.values:
        raise DomainError(f"Unknown source {source!r}: one of {', '.join(Release.Source.values)}.", field="source")
    if source == Release.Source.ANNOTATOR:
        if not annotator:
            raise DomainError("The source 'annotator' needs an annotator.", field="annotator")
        annotator = resolve_annotator(corpus, annotator if isinstance(annotator, str) else annotator.get_username())
    elif annotator:
        raise DomainError(
            f"An annotator is chosen only with the source 'annotator', not {source!r}.", field="annotator"
        )
    return annotator


def described_engine(strategy: str, corpus: Corpus) -> dict:
    """What the engine for ``strategy`` uses (building it also proves it can be built).
    Built without the corpus: reading every text for the frequent lemmas is the worker's
    job, not the request's."""
    try:
        return engine_description(release_engine(strategy))
    except Exception as exc:  # noqa: BLE001 - a configuration error, said in the answer rather than a server error
        raise DomainError(
            f"The {strategy} release engine cannot be built here: {exc.__class__.__name__}: {exc}", field="strategy"
        ) from exc


def source_description(source: str, annotator: AbstractBaseUser | None) -> dict:
    described = {"source": source}
    if source == Release.Source.REVIEWED:
        described["source_rule"] = REVIEWED_RULE
    elif source == Release.Source.ANNOTATOR:
        described["annotator"] = annotator.get_username()
    else:
        described["source_rule"] = "the DIRECT and QUASI predictions of the newest run that finished each document"
    return described


def run_batch(release_id: int, document_ids: list[int]) -> dict:
    """Sanitize one batch (the body of the Celery task; ``job_steps.run_steps``): only
    the documents still pending and held by no other live worker (a redelivered or
    duplicated batch skips the rest), their heartbeat kept fresh while it works."""
    release = Release.objects.select_related("corpus", "annotator").get(pk=release_id)
    return job_steps.run_steps(ReleaseDocument, "release", release, document_ids, _sanitizer, finish_if_complete)


def _sanitizer(release: Release) -> Callable[[ReleaseDocument], str]:
    """The batch's engine (and guided masker), built once; one that cannot be built fails
    the batch, naming why. Returns what sanitizes one document (and gives its status)."""
    try:
        engine = release_engine(release.strategy, release.corpus)
    except Exception as exc:  # noqa: BLE001 - a broken configuration fails the documents, naming why
        raise job_steps.CannotStart(f"The release engine could not be built: {exc.__class__.__name__}: {exc}") from exc
    try:
        masker = release_guided.guided_masker(release, engine)
    except Exception as exc:  # noqa: BLE001 - without its attacker, no document is released without the option
        raise job_steps.CannotStart(f"Attack-guided masking could not start: {exc.__class__.__name__}: {exc}") from exc
    return lambda item: sanitize_document(release, item, engine, masker).status


def sanitize_document(
    release: Release, item: ReleaseDocument, engine: ReleaseEngine, masker: release_guided.GuidedMasker | None = None
) -> ReleaseDocument:
    document = item.document
    started = time.perf_counter()
    ranks = None
    try:
        source = release_input(document, release.source, release.annotator)
        sanitized = engine.sanitize(source)
        if masker is not None:
            sanitized, ranks = masker.apply(document, source, sanitized)
        spans = [span.as_dict() for span in sanitized.spans]
        tps = release_metrics.document_tps(release.corpus, document.text, spans, doc_id=document.doc_id)
    except Exception as exc:  # noqa: BLE001 - one bad document must not stop the release
        return job_steps.fail_step(item, exc)
    with transaction.atomic():
        if ranks is not None:
            # The release's row before the document's, in the sweeper's order (job, then
            # steps): taken the other way round, the two could deadlock.
            Release.objects.select_for_update().only("pk").get(pk=release.pk)
        # Locked: a redelivered task running at the same time waits, then sees it done.
        locked = ReleaseDocument.objects.select_for_update().get(pk=item.pk)
        if locked.status != ReleaseDocument.Status.PENDING:
            return locked
        locked.decisions.all().delete()
        ReleaseDecision.objects.bulk_create(
            decision_row(locked, decision, position) for position, decision in enumerate(sanitized.decisions)
        )
        locked.sanitized_text = sanitized.text
        locked.spans = spans
        locked.tps = tps
        locked.seconds = time.perf_counter() - started
        locked.status = ReleaseDocument.Status.DONE
        locked.error = ""
        locked.save(update_fields=["sanitized_text", "spans", "tps", "seconds", "status", "error"])
        if ranks is not None:
            release_guided.record_ranks(release.pk, document.doc_id, ranks)
    return locked


def decision_row(release_document: ReleaseDocument, decision, position: int) -> ReleaseDecision:
    data = decision.as_dict()
    return ReleaseDecision(
        release_document=release_document,
        entity_key=data["entity_key"][:200],
        entity_type=data["entity_type"],
        identifier_type=data["identifier_type"],
        original=decision.entity.original,
        replacement=data["replacement"],
        path=data["path"],
        reason=data["reason"],
        candidate_source=data["candidate_source"][:40],
        candidates=data["candidates"],
        trials=data["trials"],
        mentions=data["mentions"],
        position=position,
    )


def with_counts(releases):
    """``releases`` (a queryset) with their documents counted by status in the same
    query, which ``release_counts`` then reads instead of asking once per release."""
    return releases.annotate(
        **{f"counted_{key}": expression for key, expression in count_expressions("documents__").items()}
    )


def release_counts(release: Release) -> dict:
    if hasattr(release, "counted_total"):
        return with_percent({key: getattr(release, f"counted_{key}") for key in COUNTED})
    return document_counts(ReleaseDocument.objects.filter(release=release))


def finish_if_complete(release: Release) -> None:
    """Count the release's finished documents into ``done``, and settle the release once
    no document is pending: succeeded when any document was sanitized (failed otherwise),
    with its metrics. Run at the end of every batch, and by the job sweeper after it
    failed lost documents."""
    counts = job_steps.count_steps(ReleaseDocument, "release", release)
    if counts["pending"] or release.finished:
        return
    # What the batches recorded since this instance was read (ranks, the attacker).
    release.refresh_from_db(fields=["metrics", "settings"])
    skipped = (release.metrics or {}).get("skipped", [])
    ranks = (release.metrics or {}).get("attack_ranks")
    error = ""
    if counts["done"]:
        status = Release.Status.SUCCEEDED
        try:
            metrics = release_summary(release)
        except Exception as exc:  # noqa: BLE001 - the documents are released; say why the metrics are not
            metrics, error = {}, f"The metrics could not be computed: {exc.__class__.__name__}: {exc}"[:ERROR_LIMIT]
    else:
        status, metrics = Release.Status.FAILED, {}
        error = "No document could be sanitized."
    metrics.update(documents={key: counts[key] for key in ("total", "done", "failed")}, skipped=skipped)
    if release.attack_guided_top_k is not None:
        metrics.update(
            attack_ranks=ranks or {},
            attack_guided=release_guided.ranks_summary(ranks or {}, release.attack_guided_top_k),
        )
    # What TPS was measured with belongs to the record of what the release used, too.
    used = {**release.settings, **{key: metrics[key] for key in ("ic", "embedder") if key in metrics}}
    if job_steps.end(release, counts, status, metrics=metrics, error=error, settings=used):
        release.refresh_from_db()
        record_event(
            "release.finish", actor=None, corpus=release.corpus, target=f"release {release.pk}", changes=counts
        )


def release_summary(release: Release) -> dict:
    """TPS (mean and worst document), what it was measured with, ER of the released
    spans against every finished layer, decisions by path, seconds per document."""
    done = ReleaseDocument.objects.filter(release=release, status=ReleaseDocument.Status.DONE)
    tps, seconds, masked = [], [], {}
    for doc_id, spans, document_tps, document_seconds in done.values_list(
        "document__doc_id", "spans", "tps", "seconds"
    ).iterator():
        masked[doc_id] = [[span["start"], span["end"]] for span in spans]
        seconds.append(document_seconds)
        if document_tps is not None:
            tps.append(document_tps)
    paths = dict.fromkeys(PATHS, 0)
    for path, count in (
        ReleaseDecision.objects.filter(release_document__in=done).values_list("path").annotate(count=Count("id"))
    ):
        paths[path] = count
    er = release_metrics.release_er(release.corpus, masked)
    return {
        "TPS": round(statistics.fmean(tps), 4) if tps else None,
        "TPS_worst": round(min(tps), 4) if tps else None,
        **release_metrics.utility_description(release.corpus),
        "ER_di": er.get("ER_di"),
        "ER_qi": er.get("ER_qi"),
        "er": er,
        "paths": paths,
        "seconds_per_document": {
            "median": round(statistics.median(seconds), 3),
            "p95": round(nearest_rank(seconds, 95), 3),
        },
    }


def nearest_rank(values: list[float], percent: float) -> float:
    """The nearest-rank percentile: the smallest value with at least ``percent`` % of
    the values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(percent / 100 * len(ordered)) - 1)]


def corpus_releases(corpus: Corpus) -> list[dict]:
    """The releases of ``corpus``, newest first, with what the comparison table shows."""
    rows = []
    for release in Release.objects.filter(corpus=corpus).select_related("annotator", "created_by"):
        metrics = release.metrics or {}
        rows.append(
            {
                "release": release,
                "id": release.pk,
                "strategy": release.strategy,
                "source": release.source,
                "annotator": release.annotator.get_username() if release.annotator else "",
                "status": release.status,
                "created_at": release.created_at,
                "created_by": release.created_by.get_username() if release.created_by else "",
                "documents": metrics.get("documents", {"total": release.total}),
                "TPS": metrics.get("TPS"),
                "ER_di": metrics.get("ER_di"),
                "ER_qi": metrics.get("ER_qi"),
                "paths": metrics.get("paths", {}),
                "seconds_per_document": metrics.get("seconds_per_document", {}),
                "skipped": len(metrics.get("skipped", [])),
            }
        )
    return rows
