"""The one job mechanism: how a worker takes a job up, keeps it alive, reports its
progress and ends it, and how the sweeper finds the jobs whose worker was lost.

Every long task is a row built on ``models.job.Job``:

- **Single jobs** (an import, a training, a re-identification run, a report) are taken
  up with ``claim``: only a pending job, or a running one whose heartbeat is stale, is
  taken, and taking it bumps ``attempts``. That number is a fencing token: ``report``,
  ``finish`` and the heartbeat write only while the job is still this attempt's, so a
  worker declared lost that wakes up again cannot flip a job another worker finished.
- **Batched jobs** (a pre-annotation run, a release) are worked through by several
  batch tasks at once; each takes its documents (``JobStep`` rows) up with
  ``take_steps`` and keeps *their* heartbeat fresh. A pending step with a stale
  heartbeat was taken by a worker that is gone, and only it is sent again.

While a task works, ``Heartbeat`` touches the row from a thread every
``SANITIZE_JOBS["heartbeat_s"]``: a long epoch or a long document is not mistaken for a
lost worker, and a killed worker (its threads die with it) goes silent at once.

``sweep_stalled`` (Celery beat, under a lock in the shared cache) sends a stalled job
again, or fails it after ``max_attempts`` tries, saying so. How a kind of job is sent
again is registered by ``annotation.tasks`` (``register``): this module knows no task."""

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import OperationalError, connection, transaction
from django.db.models import F, Model, Q
from django.utils import timezone

from ..models.job import FINISHED_JOB_STATUSES, Job, JobStatus, JobStep, StepStatus

logger = logging.getLogger(__name__)

LOG_LIMIT = 20_000
SWEEP_LOCK = "jobs:sweep-lock"
REPORT_EVERY_S = 0.5  # progress handed to a Heartbeat is written at most this often
SQLITE_WAIT_MS = 200


def job_settings() -> dict:
    return settings.SANITIZE_JOBS


def stall_cutoff(now: datetime | None = None) -> datetime:
    """Heartbeats older than this mean a lost worker."""
    return (now or timezone.now()) - timedelta(seconds=job_settings()["stall_s"])


# --- The registry of kinds ------------------------------------------------------------


@dataclass(frozen=True)
class JobKind:
    """How the sweeper handles one kind of job.

    ``resend(job)`` sends a single job to a worker again; for a batched kind
    ``resend(job, step_ids)`` sends those steps, ``steps`` names the step model's
    foreign key to the job (``RunDocument.run``) and ``settle(job)`` ends the job once no
    step is pending. ``on_failed(job)`` tidies up after the sweeper failed a job."""

    name: str
    model: type[Job]
    resend: Callable
    step_model: type[JobStep] | None = None
    steps: str = ""
    settle: Callable[[Job], None] | None = None
    on_failed: Callable[[Job], None] | None = None


KINDS: dict[str, JobKind] = {}


def register(kind: JobKind) -> None:
    KINDS[kind.name] = kind


def kind_of(model: type[Model]) -> JobKind:
    for kind in KINDS.values():
        if kind.model is model:
            return kind
    raise LookupError(f"{model.__name__} is not a registered kind of job.")


# --- Single jobs ----------------------------------------------------------------------


def claim(model: type[Job], pk: int) -> Job | None:
    """Take the job up for this worker: pending, or running with a stale heartbeat.
    Returns it (its ``attempts`` is now this worker's token), or None when it finished,
    another worker holds it, or it was lost too often (then it is failed, saying so)."""
    now = timezone.now()
    with transaction.atomic():
        job = model.objects.select_for_update().get(pk=pk)
        if job.status in FINISHED_JOB_STATUSES:
            return None
        if job.status == JobStatus.RUNNING and job.heartbeat_at and job.heartbeat_at >= stall_cutoff(now):
            return None
        if job.attempts >= job_settings()["max_attempts"]:
            _fail_lost(job, now)
            return None
        job.status, job.attempts, job.heartbeat_at = JobStatus.RUNNING, job.attempts + 1, now
        job.started_at = job.started_at or now
        if job.attempts > 1:
            job.log = _logged(job.log, f"taken up again (attempt {job.attempts})", now)
        job.save(update_fields=["status", "attempts", "heartbeat_at", "started_at", "log"])
    return job


def mine(job: Job) -> dict:
    """The filter that matches the job only while it is still this attempt's."""
    return {"pk": job.pk, "attempts": job.attempts, "status": JobStatus.RUNNING}


def report(job: Job, *, stage: str | None = None, done: int | None = None, total: int | None = None, log: str = ""):
    """Write progress (and a log line) to the row, if the job is still this attempt's.
    Returns whether it was written."""
    now = timezone.now()
    changes: dict = {"heartbeat_at": now}
    for name, value in (("stage", stage), ("done", done), ("total", total)):
        if value is not None:
            setattr(job, name, value)
            changes[name] = value
    if log:
        job.log = changes["log"] = _logged(job.log, log, now)
    return bool(type(job).objects.filter(**mine(job)).update(**changes))


def finish(job: Job, status: str, *, error: str = "", **fields) -> bool:
    """End the job (``fields`` are written with it) if it is still this attempt's:
    a worker declared lost never overwrites what the sweeper or a newer attempt did.
    Call it inside the transaction that stores the job's result, and roll back when it
    returns False."""
    now = timezone.now()
    values = {"status": status, "error": error, "finished_at": now, "heartbeat_at": now, **fields}
    if status == JobStatus.SUCCEEDED and "done" not in fields and job.total:
        values["done"] = job.total
    written = bool(type(job).objects.filter(**mine(job)).update(**values))
    if written:
        for name, value in values.items():
            setattr(job, name, value)
    return written


# --- Batched jobs ---------------------------------------------------------------------


def start_batch(job: Job) -> None:
    """A batch task begins: the job is running (its first batch starts it)."""
    now = timezone.now()
    type(job).objects.filter(pk=job.pk, status=JobStatus.PENDING).update(
        status=JobStatus.RUNNING, started_at=now, heartbeat_at=now
    )
    type(job).objects.filter(pk=job.pk, status=JobStatus.RUNNING).update(heartbeat_at=now)


def take_steps(step_model: type[JobStep], steps: str, job: Job, document_ids: Iterable[int]) -> list[int]:
    """Take the batch's pending steps up (their heartbeat now this worker's); returns
    their document ids. Steps another live worker holds are left to it."""
    now = timezone.now()
    pending = step_model.objects.filter(**{steps: job}, document_id__in=list(document_ids), status=StepStatus.PENDING)
    free = pending.exclude(heartbeat_at__gte=stall_cutoff(now))
    ids = list(free.values_list("document_id", flat=True))
    step_model.objects.filter(**{steps: job}, document_id__in=ids).update(heartbeat_at=now, attempts=F("attempts") + 1)
    return ids


def count_steps(step_model: type[JobStep], steps: str, job: Job) -> None:
    """The batched job's progress: ``done`` is how many of its steps are finished (done
    or failed), counted again each time, so that batches running at once, a redelivered
    one and the sweeper's failures all leave the right number."""
    finished = step_model.objects.filter(**{steps: job}).exclude(status=StepStatus.PENDING).count()
    type(job).objects.filter(pk=job.pk, status=JobStatus.RUNNING).update(done=finished)
    job.done = finished


# --- Heartbeat ------------------------------------------------------------------------


class Heartbeat:
    """While inside, a thread touches the job's heartbeat (and its steps', for a batch)
    every ``heartbeat_s``. A single job is touched only while it is this attempt's:
    ``lost`` then says another worker took it over.

    ``report(stage=, done=, total=)`` hands progress to that thread, which writes it
    (``report`` of this module) at most every ``REPORT_EVERY_S`` on its own connection:
    work inside one long transaction (an import) would otherwise write progress nobody
    sees before it commits, and hold the job's row locked against its own heartbeat."""

    def __init__(self, job: Job, *, single: bool = True, steps=None):
        self.job, self.single, self.steps = job, single, steps
        self.lost = False
        self._progress: dict = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name=f"heartbeat-{type(job).__name__}-{job.pk}")

    def __enter__(self) -> "Heartbeat":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def report(self, *, stage: str | None = None, done: int | None = None, total: int | None = None) -> None:
        fields = {"stage": stage, "done": done, "total": total}
        with self._lock:
            self._progress.update({name: value for name, value in fields.items() if value is not None})

    def _run(self) -> None:
        last_beat = time.monotonic()
        try:
            while not self._stop.wait(min(REPORT_EVERY_S, job_settings()["heartbeat_s"])):
                with self._lock:
                    progress, self._progress = self._progress, {}
                if progress:
                    self.write(progress)
                elif time.monotonic() - last_beat >= job_settings()["heartbeat_s"]:
                    self.beat()
                else:
                    continue
                last_beat = time.monotonic()
        finally:
            connection.close()

    def write(self, progress: dict) -> None:
        """Write progress (with the heartbeat), while the job is this attempt's."""
        try:
            _short_sqlite_wait()
            self.lost = not report(self.job, **progress)
        except OperationalError:  # SQLite busy under the work's long write: written next time
            with self._lock:
                self._progress = {**progress, **self._progress}

    def beat(self) -> None:
        now = timezone.now()
        model = type(self.job)
        try:
            _short_sqlite_wait()
            if self.single:
                self.lost = not model.objects.filter(**mine(self.job)).update(heartbeat_at=now)
            else:
                model.objects.filter(pk=self.job.pk, status=JobStatus.RUNNING).update(heartbeat_at=now)
            if self.steps is not None:
                self.steps.filter(status=StepStatus.PENDING).update(heartbeat_at=now)
        except OperationalError:  # SQLite busy under a long write: the next beat will do
            logger.warning("Heartbeat of %s %s skipped: the database is busy", model.__name__, self.job.pk)


def _short_sqlite_wait() -> None:
    """SQLite has one writer: while the work holds a long write, the heartbeat's thread
    gives up at once (and tries again next time) instead of waiting out the busy timeout.
    Set before each write: the thread's connection is its own, and cheap to tell again."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_WAIT_MS}")


# --- The sweeper ----------------------------------------------------------------------


def sweep_stalled() -> list[str]:
    """Send again (or fail) every job whose worker was lost; one call at a time across
    all hosts (a lock in the shared cache). Returns what it did, in words. One failing
    job does not stop the sweep of the others."""
    if not cache.add(SWEEP_LOCK, timezone.now().isoformat(), timeout=max(60, 3 * job_settings()["sweep_s"])):
        return []
    try:
        done: list[str] = []
        for kind in list(KINDS.values()):
            done += sweep_kind(kind)
        return done
    finally:
        cache.delete(SWEEP_LOCK)


def sweep_kind(kind: JobKind) -> list[str]:
    sweep = _sweep_steps if kind.step_model is not None else _sweep_jobs
    return sweep(kind)


def _sweep_jobs(kind: JobKind) -> list[str]:
    done = []
    now = timezone.now()
    stalled = kind.model.objects.filter(status=JobStatus.RUNNING, heartbeat_at__lt=stall_cutoff(now))
    for pk in stalled.values_list("pk", flat=True):
        try:
            done.append(_recover_job(kind, pk, now))
        except Exception:  # noqa: BLE001 - one job must not stop the sweep
            logger.exception("Could not recover %s %s", kind.name, pk)
    return [line for line in done if line]


def _recover_job(kind: JobKind, pk: int, now: datetime) -> str:
    with transaction.atomic():
        job = kind.model.objects.select_for_update().get(pk=pk)
        if job.status != JobStatus.RUNNING or (job.heartbeat_at and job.heartbeat_at >= stall_cutoff(now)):
            return ""
        if job.attempts >= job_settings()["max_attempts"] or _embedded():
            _fail_lost(job, now)
            failed = True
        else:
            job.status = JobStatus.PENDING
            job.log = _logged(
                job.log, f"its worker was lost (last heard of {_ago(job.heartbeat_at, now)}); sent again", now
            )
            job.heartbeat_at = now
            job.save(update_fields=["status", "log", "heartbeat_at"])
            failed = False
    if failed:
        if kind.on_failed:
            kind.on_failed(job)
        return f"{kind.name} {pk}: failed, its worker was lost"
    transaction.on_commit(lambda: kind.resend(job))
    return f"{kind.name} {pk}: sent again"


def _sweep_steps(kind: JobKind) -> list[str]:
    now = timezone.now()
    cutoff = stall_cutoff(now)
    job = kind.steps
    pending = kind.step_model.objects.filter(
        status=StepStatus.PENDING, **{f"{job}__status__in": [JobStatus.PENDING, JobStatus.RUNNING]}
    )
    # A step whose worker went silent; and a step no worker took up while its whole job
    # has been silent (no batch of it alive) for stall_s: its batch was lost before it
    # started (received by a worker that was killed, which the broker gives back only
    # after its visibility timeout). A batch merely queued behind others is sent twice
    # at worst, once per stall_s: the first to take a step does it, the other skips it.
    silent_job = Q(**{f"{job}__heartbeat_at__lt": cutoff}) | Q(
        **{f"{job}__heartbeat_at__isnull": True, f"{job}__created_at__lt": cutoff}
    )
    stalled = pending.filter(Q(heartbeat_at__lt=cutoff) | (Q(heartbeat_at__isnull=True) & silent_job))
    by_job: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for job_id, document_id, attempts in stalled.values_list(f"{job}_id", "document_id", "attempts"):
        by_job[job_id].append((document_id, attempts))
    done = []
    for job_id, steps in by_job.items():
        try:
            done.append(_recover_steps(kind, job_id, steps, now))
        except Exception:  # noqa: BLE001 - one job must not stop the sweep
            logger.exception("Could not recover %s %s", kind.name, job_id)
    return done


def _recover_steps(kind: JobKind, job_id: int, steps: list[tuple[int, int]], now: datetime) -> str:
    job = kind.model.objects.get(pk=job_id)
    rows = kind.step_model.objects.filter(**{kind.steps: job}, status=StepStatus.PENDING)
    limit = job_settings()["max_attempts"]
    lost = {document for document, attempts in steps if attempts >= limit or _embedded()}
    again = [document for document, _ in steps if document not in lost]
    if lost:
        rows.filter(document_id__in=lost).update(
            status=StepStatus.FAILED,
            error="The process running it stopped before this document was done."
            if _embedded()
            else f"Its worker was lost {limit} times while on this document.",
            heartbeat_at=now,
        )
    if again:
        rows.filter(document_id__in=again).update(heartbeat_at=None)
        kind.resend(job, again)
    # The job's heartbeat, too: what was sent again has stall_s to be taken up.
    type(job).objects.filter(pk=job.pk).update(
        heartbeat_at=now,
        log=_logged(job.log, f"worker lost: {len(again)} documents sent again, {len(lost)} failed", now),
    )
    if kind.settle:
        kind.settle(job)
    return f"{kind.name} {job_id}: {len(again)} documents sent again, {len(lost)} failed"


# --- Helpers --------------------------------------------------------------------------


def _fail_lost(job: Job, now: datetime) -> None:
    # Which worker: its task (the id to look for in the workers' logs) and when it was
    # last heard of.
    last = f"last heard of {_ago(job.heartbeat_at, now)}" + (f", task {job.task_id}" if job.task_id else "")
    job.status, job.finished_at, job.heartbeat_at = JobStatus.FAILED, now, now
    job.error = (
        f"The process running it stopped (killed, out of memory or restarted) before it finished ({last})."
        if _embedded()
        else f"Its worker was lost {job.attempts} times (killed, out of memory or restarted; {last}); "
        "it was not sent again."
    )
    job.save(update_fields=["status", "finished_at", "heartbeat_at", "error"])


def _embedded() -> bool:
    """No broker: nothing to send a job to again (the process that ran it is gone)."""
    from sanitize_app.celery import app

    return bool(app.conf.task_always_eager)


def _logged(log: str, line: str, now: datetime) -> str:
    return (log + f"{now:%H:%M:%S} {line}\n")[-LOG_LIMIT:]


def _ago(moment: datetime | None, now: datetime) -> str:
    return "never" if moment is None else f"{(now - moment).total_seconds():.0f} s ago"
