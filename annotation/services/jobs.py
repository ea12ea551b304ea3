"""The one job mechanism: how a worker takes a job up, keeps it alive, reports its
progress and ends it (``job_sweeper`` finds the jobs whose worker was lost).

Every long task is a row built on ``models.job.Job``:

- **Single jobs** (an import, a training, a re-identification run, a report) are taken
  up with ``claim``: only a pending job, or a running one whose heartbeat is stale, is
  taken, and taking it bumps ``attempts``. That number is a fencing token: ``report``,
  ``finish`` and the heartbeat write only while the job is still this attempt's, so a
  worker declared lost that wakes up again cannot flip a job another worker finished.
- **Batched jobs** (a pre-annotation run, a release) are worked through by several
  batch tasks at once; each takes its documents (``JobStep`` rows) up with
  ``job_steps.take_steps`` and keeps *their* heartbeat fresh. A pending step with a stale
  heartbeat was taken by a worker that is gone, and only it is sent again.

While a task works, ``Heartbeat`` touches the row from a thread every
``SANITIZE_JOBS["heartbeat_s"]``: a long epoch or a long document is not mistaken for a
lost worker, and a killed worker (its threads die with it) goes silent at once.

``job_sweeper.sweep_stalled`` (Celery beat) sends a stalled job again, or fails it
after ``max_attempts`` tries, saying so. How a kind of job is sent again is registered
by ``annotation.tasks`` (``register``): this module knows no task."""

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.db.models import Model
from django.utils import timezone

from ..models.job import FINISHED_JOB_STATUSES, Job, JobStatus, JobStep, StepStatus

logger = logging.getLogger(__name__)

LOG_LIMIT = 20_000
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
            fail_lost(job, now)
            return None
        job.status, job.attempts, job.heartbeat_at = JobStatus.RUNNING, job.attempts + 1, now
        job.started_at = job.started_at or now
        # The task that runs this attempt (not the last one sent: the sweeper may have sent
        # a duplicate meanwhile), so that its time limit fails this attempt.
        job.task_id = _current_task_id() or job.task_id
        if job.attempts > 1:
            job.log = logged(job.log, f"taken up again (attempt {job.attempts})", now)
        job.save(update_fields=["status", "attempts", "heartbeat_at", "started_at", "task_id", "log"])
    return job


def _current_task_id() -> str:
    from celery import current_task

    return (current_task.request.id or "") if current_task else ""


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
        job.log = changes["log"] = logged(job.log, log, now)
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
        _WORKED_ON_HERE.add(_key(self.job))
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        _WORKED_ON_HERE.discard(_key(self.job))

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


# The jobs a thread of this process is working on. Embedded, the sweeper runs in the
# process that runs the jobs: a stale heartbeat there may only mean SQLite's one writer
# was busy (a long import), not that the thread died.
_WORKED_ON_HERE: set[tuple[str, int]] = set()


def _key(job: Job) -> tuple[str, int]:
    return (type(job)._meta.label, job.pk)


def worked_on_here(job: Job) -> bool:
    return _key(job) in _WORKED_ON_HERE


def _short_sqlite_wait() -> None:
    """SQLite has one writer: while the work holds a long write, the heartbeat's thread
    gives up at once (and tries again next time) instead of waiting out the busy timeout.
    Set before each write: the thread's connection is its own, and cheap to tell again."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_WAIT_MS}")


# --- Helpers --------------------------------------------------------------------------


def fail_lost(job: Job, now: datetime) -> None:
    """End the (locked) job failed: its worker was lost once too often, or (embedded)
    the process running it stopped."""
    # Which worker: its task (the id to look for in the workers' logs) and when it was
    # last heard of.
    last = f"last heard of {_ago(job.heartbeat_at, now)}" + (f", task {job.task_id}" if job.task_id else "")
    job.status, job.finished_at, job.heartbeat_at = JobStatus.FAILED, now, now
    job.error = (
        f"The process running it stopped (killed, out of memory or restarted) before it finished ({last})."
        if embedded()
        else f"Its worker was lost {job.attempts} times (killed, out of memory or restarted; {last}); "
        "it was not sent again."
    )
    job.save(update_fields=["status", "finished_at", "heartbeat_at", "error"])


# A running job silent for longer than this many heartbeats may have lost its worker
# (the sweeper decides after SANITIZE_JOBS["stall_s"]).
SILENT_HEARTBEATS = 2


def silent_seconds(job: Job, now: datetime) -> int | None:
    """Seconds since a running job was last heard of, once that is longer than a live
    worker's heartbeats would allow (its worker may be lost); None otherwise."""
    if job.status != JobStatus.RUNNING or job.heartbeat_at is None:
        return None
    silent = (now - job.heartbeat_at).total_seconds()
    return int(silent) if silent > SILENT_HEARTBEATS * job_settings()["heartbeat_s"] else None


def embedded() -> bool:
    """No broker: nothing to send a job to again (the process that ran it is gone)."""
    from sanitize_app.celery import app

    return bool(app.conf.task_always_eager)


def logged(log: str, line: str, now: datetime) -> str:
    return (log + f"{now:%H:%M:%S} {line}\n")[-LOG_LIMIT:]


def _ago(moment: datetime | None, now: datetime) -> str:
    return "never" if moment is None else f"{(now - moment).total_seconds():.0f} s ago"
