"""Celery tasks: thin wrappers around the domain services."""

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from celery import Task, shared_task
from celery.exceptions import TimeLimitExceeded
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.core.files.uploadedfile import UploadedFile
from django.db import connection, transaction

from .models import (
    AnnotationLayer,
    Corpus,
    ImportJob,
    PreannotationRun,
    ReidentificationRun,
    Release,
    ReleaseDocument,
    ReportJob,
    RunDocument,
    TrainedModel,
)
from .services import (
    import_jobs,
    job_sweeper,
    jobs,
    masked_review,
    model_store,
    preannotation,
    reidentification,
    releases,
    reports,
    risk_meter,
    training,
    training_schedule,
    training_time_limit,
)

logger = logging.getLogger(__name__)


@shared_task(name="annotation.tasks.run_import_job", acks_late=True)
def run_import_job(job_id: int) -> dict:
    """Import an uploaded corpus file. Safe to redeliver: the import is all-or-nothing
    and a finished job is not run twice."""
    return import_jobs.run_import_job(job_id)


@shared_task(name="annotation.tasks.render_masked_review", acks_late=True)
def render_masked_review(layer_id: int) -> dict:
    """Render the masked review of a layer. Idempotent: an up-to-date rendering is kept."""
    layer = AnnotationLayer.objects.select_related("document__corpus", "annotator").get(pk=layer_id)
    review = masked_review.render_masked_review(layer)
    return {"layer": layer_id, "layer_version": review.layer_version, "masked_mentions": review.masked_mentions}


def request_masked_review(layer: AnnotationLayer) -> None:
    """Enqueue the rendering once the current transaction (the confirmation) commits;
    a page polling for the result does not enqueue the same layer version twice."""
    if cache.add(f"masked-review-requested:{layer.pk}:{layer.version}", True, timeout=120):
        layer_id = layer.pk
        transaction.on_commit(lambda: render_masked_review.delay(layer_id))


def rerender_after_change(sender, layer: AnnotationLayer, status_change: bool = False, **kwargs) -> None:
    """Receiver of ``layer_changed``: a confirmed (or reviewed) layer that changes gets
    its masked review rendered again; open layers have none to keep current.

    Embedded (no worker), enqueueing means rendering inside the request. That is wanted
    on confirmation (its author is sent to the masked document next) but not on every
    correction under review: there the masked page renders it when it is next opened
    (``frontend.workspace.confirm_views.current_masked_review``)."""
    if layer.status not in masked_review.FINISHED:
        return
    if status_change or not jobs.embedded():
        request_masked_review(layer)


def submit_import_job(corpus: Corpus, upload: UploadedFile, *, actor: AbstractBaseUser | None) -> ImportJob:
    """Create the job and enqueue its import once the job row is committed."""
    job = import_jobs.create_import_job(corpus, upload, actor=actor)

    def enqueue():
        job.task_id = send(run_import_job, job)

    transaction.on_commit(enqueue)
    return job


def send(task, job) -> str:
    """Send a single job's task to a worker and record the task's id on the job (what
    runs it last: the sweeper sends a job again through here too). The one way a job is
    sent: every ``submit_*`` here and ``services.reports`` use it. Returns the id."""
    task_id = task.delay(job.pk).id or ""
    type(job).objects.filter(pk=job.pk).update(task_id=task_id)
    return task_id


@shared_task(name="annotation.tasks.preannotate_documents", acks_late=True)
def preannotate_documents(run_id: int, document_ids: list[int]) -> dict:
    """Pre-annotate one batch of a run. Safe to redeliver: finished documents are skipped."""
    return preannotation.run_batch(run_id, document_ids)


def submit_preannotation(
    corpus: Corpus, *, documents: list[str] | None = None, actor: AbstractBaseUser | None = None
) -> PreannotationRun:
    """Create a run and enqueue its batches once the run is committed."""
    run = preannotation.start_run(corpus, documents=documents, actor=actor)
    transaction.on_commit(lambda: enqueue_preannotation(run))
    return run


def enqueue_preannotation(run: PreannotationRun, *, after_each=None) -> int:
    """Send the run's pending documents to the workers in batches (in-process when
    embedded, where ``after_each`` sees each batch finish). Returns the batch count."""
    ids = list(
        RunDocument.objects.filter(run=run, status=RunDocument.Status.PENDING)
        .order_by("document__position", "document_id")
        .values_list("document_id", flat=True)
    )
    size = max(1, settings.SANITIZE_PREANNOTATION_BATCH)
    batches = [ids[i : i + size] for i in range(0, len(ids), size)]
    for batch in batches:
        preannotate_documents.delay(run.pk, batch)
        if after_each:
            after_each()
    return len(batches)


@shared_task(name="annotation.tasks.sanitize_release_documents", acks_late=True)
def sanitize_release_documents(release_id: int, document_ids: list[int]) -> dict:
    """Sanitize one batch of a release. Safe to redeliver: finished documents are skipped."""
    return releases.run_batch(release_id, document_ids)


def embedded_thread(work_settings: dict) -> bool:
    """Whether long work runs in a thread of this process: embedded (no broker, tasks
    eager) and the work's settings say ``in_thread``."""
    return bool(work_settings.get("in_thread")) and jobs.embedded()


def in_thread(name: str, work: Callable, *args, on: ThreadPoolExecutor | None = None) -> None:
    """``work(*args)`` in a daemon thread named ``name`` (or queued ``on`` an executor),
    closing the thread's database connection when it ends."""

    def run() -> None:
        try:
            work(*args)
        finally:
            connection.close()

    if on is not None:
        on.submit(run)
    else:
        threading.Thread(target=run, daemon=True, name=name).start()


def submit_release(
    corpus: Corpus,
    *,
    source: str,
    annotator: AbstractBaseUser | str | None = None,
    strategy: str,
    actor: AbstractBaseUser | None = None,
    attack_guided_top_k: int | None = None,
) -> Release:
    """Create a release and enqueue its batches once it is committed."""
    release = releases.start_release(
        corpus,
        source=source,
        annotator=annotator,
        strategy=strategy,
        actor=actor,
        attack_guided_top_k=attack_guided_top_k,
    )

    def enqueue():
        if embedded_thread(settings.SANITIZE_RELEASE):
            # Embedded: no worker, and a corpus takes a minute or more; a thread keeps the
            # page answering (and its progress bar moving) while the batches run.
            return in_thread(f"release-{release.pk}", _run_release_now, release.pk)
        enqueue_release(release)

    transaction.on_commit(enqueue)
    return release


def _run_release_now(release_id: int) -> None:
    for batch in release_batches(Release.objects.get(pk=release_id)):
        releases.run_batch(release_id, batch)


def release_batches(release: Release) -> list[list[int]]:
    """The release's pending documents (ids, in corpus order) in batches of
    ``SANITIZE_RELEASE["batch"]``."""
    ids = list(
        ReleaseDocument.objects.filter(release=release, status=ReleaseDocument.Status.PENDING)
        .order_by("document__position", "document_id")
        .values_list("document_id", flat=True)
    )
    size = max(1, settings.SANITIZE_RELEASE.get("batch", 5))
    return [ids[i : i + size] for i in range(0, len(ids), size)]


def enqueue_release(release: Release) -> int:
    """Send the release's pending documents to the workers in batches. Returns the batch count."""
    batches = release_batches(release)
    for batch in batches:
        sanitize_release_documents.delay(release.pk, batch)
    return len(batches)


@shared_task(name="annotation.tasks.reidentify_release_run", acks_late=True)
def reidentify_release_run(run_id: int) -> dict:
    """Attack one release (fit on the background, then attack). Safe to redeliver: a
    finished run is left as it is, and outcomes are written once, all together."""
    return reidentification.run_attack(run_id)


def submit_release_attack(
    release: Release, *, attacker: str = "", actor: AbstractBaseUser | None = None
) -> ReidentificationRun:
    """Create a re-identification run of ``release`` and send it to a worker once it is
    committed (embedded: a thread of this process, as releases do)."""
    run = reidentification.start_release_attack(release, attacker=attacker, user=actor)

    def enqueue():
        if embedded_thread(settings.SANITIZE_REIDENTIFICATION):
            # Embedded: pretreating a background takes minutes the first time; the page
            # keeps answering (and shows the stage) while the thread works.
            return in_thread(f"reidentify-{run.pk}", reidentification.run_attack, run.pk)
        send(reidentify_release_run, run)

    transaction.on_commit(enqueue)
    return run


class _TrainingTask(Task):
    def on_failure(self, exc, task_id, args, kwargs, einfo):
        # Killed at its hard time limit: failed, not left to look like a lost worker.
        if isinstance(exc, TimeLimitExceeded):
            training_time_limit.fail_at_time_limit(args[0], task_id)


@shared_task(
    name="annotation.tasks.train_model",
    base=_TrainingTask,
    acks_late=True,
    time_limit=training_time_limit.task_time_limit_s(),
    soft_time_limit=training_time_limit.task_time_limit_s() - 30,  # ends it failed, saying so
)
def train_model(model_id: int) -> dict:
    """Train one queued model of the registry. Safe to redeliver: a model no longer
    queued is left as it is."""
    model = training.run_training(model_id)
    return {"model": model.pk, "status": model.status, "error": model.error[:200]}


def submit_training(
    corpus: Corpus, kind: str, *, actor: AbstractBaseUser | None = None, trigger: str = "manual"
) -> TrainedModel:
    """Queue a training and send it to the training worker once the row is committed."""
    model = training.start_training(corpus, kind, actor=actor, trigger=trigger)

    def enqueue():
        if embedded_thread(settings.SANITIZE_TRAINING):
            # Embedded: no worker, and a training takes minutes; a thread keeps the
            # page answering (and showing progress) while it trains.
            return in_thread(f"train-{model.pk}", training.run_training, model.pk)
        send(train_model, model)

    transaction.on_commit(enqueue)
    return model


@shared_task(name="annotation.tasks.retrain_due_models")
def retrain_due_models() -> list[str]:
    """Celery beat: start the trainings that enough newly finished layers made due. With
    SANITIZE_TRAINING["auto_promote"], each is promoted at its end only when it needs no
    written reason (``services.promotion.auto_promote``): never a model that is worse.
    A corpus whose check fails is logged and skipped: the others are still trained."""
    started = []
    for corpus in Corpus.objects.all():
        try:
            for kind in training_schedule.due_trainings(corpus):
                model = submit_training(corpus, kind, trigger="schedule")
                started.append(f"{corpus.name}: {model.label}")
        except Exception:  # noqa: BLE001 - one corpus must not stop the tick for the others
            logger.exception("Scheduled retraining of corpus %s failed", corpus.pk)
            started.append(f"{corpus.name}: failed, see the worker's log")
    return started


@shared_task(name="annotation.tasks.sweep_stalled_jobs")
def sweep_stalled_jobs() -> list[str]:
    """Celery beat: send again (or fail) the jobs whose worker was lost. One sweep at a
    time across hosts (``services.job_sweeper.sweep_stalled`` holds a lock in the shared cache)."""
    return job_sweeper.sweep_stalled()


def _send_batches(task, job, document_ids: list[int], size: int) -> None:
    """Send a batched job's documents again in batches of the usual size (several
    workers share them, as the first time)."""
    size = max(1, size)
    for start in range(0, len(document_ids), size):
        task.delay(job.pk, document_ids[start : start + size])


def _register_job_kinds() -> None:
    """How the sweeper sends each kind of job again (``services.jobs``)."""
    jobs.register(
        jobs.JobKind("import", ImportJob, lambda job: send(run_import_job, job), on_failed=import_jobs.delete_upload)
    )
    jobs.register(
        jobs.JobKind(
            "training", TrainedModel, lambda job: send(train_model, job), on_failed=model_store.discard_unreferenced
        )
    )
    jobs.register(jobs.JobKind("reidentification", ReidentificationRun, lambda job: send(reidentify_release_run, job)))
    jobs.register(jobs.JobKind("report", ReportJob, lambda job: send(run_report, job)))
    jobs.register(
        jobs.JobKind(
            "preannotation",
            PreannotationRun,
            lambda run, ids: _send_batches(preannotate_documents, run, ids, settings.SANITIZE_PREANNOTATION_BATCH),
            step_model=RunDocument,
            steps="run",
            settle=preannotation.finish_if_complete,
        )
    )
    jobs.register(
        jobs.JobKind(
            "release",
            Release,
            lambda release, ids: _send_batches(
                sanitize_release_documents, release, ids, settings.SANITIZE_RELEASE.get("batch", 5)
            ),
            step_model=ReleaseDocument,
            steps="release",
            settle=releases.finish_if_complete,
        )
    )


@shared_task(name="annotation.tasks.run_report", acks_late=True)
def run_report(job_id: int) -> dict:
    """Compute one report (evaluation, comparison, agreement). Safe to redeliver: a
    report job is claimed once (``services.jobs.claim``)."""
    return reports.run_report(job_id)


@shared_task(name="annotation.tasks.compute_layer_risk", acks_late=True)
def compute_layer_risk(layer_id: int, version: int) -> dict:
    """The workspace's risk meter reading of a layer at ``version`` (see
    ``services.risk_meter``). Safe to redeliver: it only writes the cache."""
    reading = risk_meter.compute_layer_risk(layer_id, version)
    return {"layer": layer_id, "version": version, "state": reading.state if reading else "obsolete"}


# Embedded: one thread for every layer's readings, one at a time, so quick edits queue
# readings instead of starting attacks that compete with requests; a reading whose layer
# has moved on ends at once (compute_layer_risk checks the version first).
_RISK_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="risk")


def enqueue_layer_risk(layer_id: int, version: int) -> None:
    """After the current transaction commits: to a worker, or (embedded, with
    ``SANITIZE_REIDENTIFICATION["in_thread"]``) to a thread of this process, as releases do."""

    def enqueue():
        if embedded_thread(settings.SANITIZE_REIDENTIFICATION):
            return in_thread(f"risk-{layer_id}", risk_meter.compute_layer_risk, layer_id, version, on=_RISK_THREAD)
        compute_layer_risk.delay(layer_id, version)

    transaction.on_commit(enqueue)


_register_job_kinds()
