"""Heavy reports computed as jobs (``models.ReportJob``), never in a request: the
evaluation of one masking source, the comparison of all sources and the
inter-annotator agreement.

A page asks for a report by kind and ``params`` (what its query asks). The report's
``data_key`` digests them with the state of the data the report reads (the corpus's
layers, its finished pre-annotations, the masked LM configured), so a page shows the
newest succeeded report whose key still matches and starts a job when there is none:
one job per corpus, kind and key at a time. ``run_report`` is what the worker runs
(``annotation.tasks.run_report``); the result is stored as JSON that the page and the
CSV downloads read back."""

import hashlib
import json
import logging

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, Max

from ..models import Corpus, ReportJob, RunDocument
from ..models.job import ERROR_LIMIT, JobStatus
from ..models.job import UNFINISHED_JOB_STATUSES as UNFINISHED
from ..selectors import layers_state
from . import job_sweeper, jobs
from .agreement import agreement_data, corpus_agreement
from .errors import DomainError
from .evaluation import compare_sources, evaluate_source
from .evaluation_dashboard import comparison_data, evaluation_data

logger = logging.getLogger(__name__)

Kind = ReportJob.Kind


def data_key(corpus: Corpus, kind: str, params: dict) -> str:
    """A digest of ``params`` and of the state of what the report reads: it changes when
    a layer is added, edited or removed, when a pre-annotation run finishes a document
    (evaluations) or the masked LM changes (evaluation's WP). Two cheap queries."""
    parts = [kind, json.dumps(params, sort_keys=True), layers_state(corpus)]
    if kind != Kind.AGREEMENT:
        runs = RunDocument.objects.filter(document__corpus=corpus, status=RunDocument.Status.DONE).aggregate(
            n=Count("id"), last=Max("id")
        )
        parts += [f"{runs['n']}:{runs['last']}", settings.SANITIZE_ENGINE.get("masked_lm") or ""]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def _reports(corpus: Corpus, kind: str, key: str):
    return ReportJob.objects.filter(corpus=corpus, kind=kind, data_key=key).order_by("-created_at", "-id")


def current_report(corpus: Corpus, kind: str, params: dict, *, key: str | None = None) -> ReportJob | None:
    """The newest succeeded report of ``params`` on the data as it is now, or None."""
    key = key or data_key(corpus, kind, params)
    return _reports(corpus, kind, key).filter(status=JobStatus.SUCCEEDED).first()


def report_for_page(
    corpus: Corpus,
    kind: str,
    params: dict,
    *,
    actor: AbstractBaseUser | None = None,
    start: bool = True,
    retry: bool = False,
) -> ReportJob | None:
    """What a page shows for a report: the current one; else the one being computed;
    else the newest that failed on this data (its error shown; ``retry`` starts another
    instead, so a failing report is not started again by every poll); else a new job
    (when ``start``; None otherwise)."""
    job_sweeper.recover_embedded("report")  # embedded: a report whose thread died is not awaited forever
    key = data_key(corpus, kind, params)
    done = current_report(corpus, kind, params, key=key)
    if done:
        return done
    latest = _reports(corpus, kind, key).first()
    if latest and (not latest.finished or not retry):
        return latest
    return start_report(corpus, kind, params, actor, key=key) if start else None


def start_report(
    corpus: Corpus, kind: str, params: dict, actor: AbstractBaseUser | None = None, *, key: str | None = None
) -> ReportJob:
    """A pending or running report of ``params`` on this data, or a new one sent to a
    worker once it is committed. Returned as it is after the commit (embedded without a
    thread, the report was computed meanwhile)."""
    if kind not in Kind.values:
        raise DomainError(f"No kind of report {kind!r}: use {', '.join(Kind.values)}.")
    key = key or data_key(corpus, kind, params)
    with transaction.atomic():
        # Two requests starting the same report one after the other, not side by side.
        Corpus.objects.select_for_update().filter(pk=corpus.pk).first()
        job = _reports(corpus, kind, key).filter(status__in=UNFINISHED).first()
        if job is not None:
            return job
        job = ReportJob.objects.create(
            corpus=corpus, kind=kind, params=params, data_key=key, created_by=actor, stage="waiting for a worker"
        )
        transaction.on_commit(lambda: _enqueue(job))
    job.refresh_from_db()
    return job


def _enqueue(job: ReportJob) -> None:
    from .. import tasks  # the tasks module imports this one

    if tasks.embedded_thread(settings.SANITIZE_REPORTS):
        # Embedded: no worker; a thread keeps the page answering while it computes.
        return tasks.in_thread(f"report-{job.pk}", tasks.run_report, job.pk)
    tasks.send(tasks.run_report, job)


def run_report(job_id: int) -> dict:
    """Compute one report (a worker's work): claimed once, kept alive by a heartbeat,
    its result stored with its end. A ``DomainError`` (nothing to evaluate, an unknown
    annotator) is the report's answer, stored as ``{"error": message}``; any other
    exception fails the job with its message."""
    job = jobs.claim(ReportJob, job_id)
    if job is None:
        return {"report": job_id, "status": "not taken"}
    try:
        with jobs.Heartbeat(job):
            jobs.report(job, stage=f"computing the {job.get_kind_display().lower()}", log="started")
            try:
                result = _compute(job)
            except DomainError as exc:
                result = {"error": exc.message}
    except Exception as exc:  # noqa: BLE001 - the job says why it failed
        logger.exception("Report %s failed", job_id)
        jobs.finish(job, JobStatus.FAILED, error=f"{type(exc).__name__}: {exc}"[:ERROR_LIMIT], stage="")
        return {"report": job_id, "status": JobStatus.FAILED}
    if jobs.finish(job, JobStatus.SUCCEEDED, result=result, stage=""):
        _forget_older(job)
    return {"report": job_id, "status": job.status}


def _forget_older(job: ReportJob) -> None:
    """The finished reports of the same question that this one replaces are deleted: a
    stale report is never shown again, and an evaluation holds the text of the mentions it
    missed (not kept longer than needed)."""
    ReportJob.objects.filter(
        corpus_id=job.corpus_id, kind=job.kind, status__in=[JobStatus.SUCCEEDED, JobStatus.FAILED], pk__lt=job.pk
    ).filter(params=job.params).delete()


def _compute(job: ReportJob) -> dict:
    corpus, params = job.corpus, job.params
    if job.kind == Kind.EVALUATION:
        result = evaluate_source(
            corpus,
            params["source"],
            annotators=params.get("annotators") or None,
            finished_only=params.get("finished_only", True),
        )
        return {"evaluation": evaluation_data(result)}
    if job.kind == Kind.COMPARISON:

        def progress(done: int, total: int) -> None:
            jobs.report(job, done=done, total=total)

        rows = compare_sources(corpus, finished_only=params.get("finished_only", True), progress=progress)
        return {"rows": comparison_data(rows)}
    return {"agreement": agreement_data(corpus_agreement(corpus))}
