"""The sweeper: finds the jobs whose worker was lost and sends them again, or fails them
after ``max_attempts`` tries, saying so (``services.jobs`` has the job mechanism).

What it looks for, per kind of job (``jobs.KINDS``):

- **A running single job** (import, training, report, re-identification) whose
  heartbeat is older than ``stall_s``: its worker died. It goes back to pending and is
  sent again; one lost ``max_attempts`` times is failed.
- **A pending single job** nobody took up: its message was lost (the broker was down
  when it was sent) or received by a worker killed before it began (the broker gives it
  back only after its visibility timeout). It is sent again after ``stall_s``, then
  after waits that double (``stall_s``, then as long again as it has waited in all), so
  a job merely queued behind long work adds a duplicate message only now and then; the
  duplicate finds it claimed and ends at once.
- **A batched job** (pre-annotation run, release): a pending step (document) whose
  heartbeat is stale was taken by a worker that is gone: it is sent again, or failed
  once ``max_attempts`` workers were lost on it. Steps nobody took up are sent again
  when the whole job has been silent (no batch of it alive) with the same doubling
  back-off, counted in the job's ``attempts`` (which taking a step resets). A job with
  no pending step left that nobody ended (its last worker died between its last document
  and the end) is settled.

Embedded (no broker), nothing can be sent again: the thread that ran the job died with
its process, so what is stalled is failed (``recover_embedded``, called where a new job
of the kind starts).

``sweep_stalled`` runs from Celery beat, one sweep at a time across hosts (a lock in
the shared cache, released only by the sweep that took it)."""

import logging
import uuid
from datetime import datetime, timedelta

from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ..models.job import UNFINISHED_JOB_STATUSES as UNFINISHED
from ..models.job import Job, JobStatus, StepStatus
from .jobs import KINDS, JobKind, embedded, fail_lost, job_settings, logged, stall_cutoff, worked_on_here

logger = logging.getLogger(__name__)

SWEEP_LOCK = "jobs:sweep-lock"


def sweep_stalled() -> list[str]:
    """Send again (or fail) every job whose worker was lost. Returns what it did, in
    words. One kind or job that fails to recover does not stop the others."""
    token = uuid.uuid4().hex
    if not cache.add(SWEEP_LOCK, token, timeout=max(60, 3 * job_settings()["sweep_s"])):
        return []
    try:
        done: list[str] = []
        for kind in list(KINDS.values()):
            try:
                done += sweep_kind(kind)
            except Exception:  # noqa: BLE001 - one kind must not stop the sweep
                logger.exception("Sweeping %s jobs failed", kind.name)
        return done
    finally:
        if cache.get(SWEEP_LOCK) == token:  # not a lock another sweep took after ours expired
            cache.delete(SWEEP_LOCK)


def recover_embedded(name: str) -> list[str]:
    """Embedded: fail the jobs of kind ``name`` whose thread died with its process, so
    that a new one may start. Nothing to do with a broker (beat sweeps)."""
    return sweep_kind(KINDS[name]) if embedded() and name in KINDS else []


def sweep_kind(kind: JobKind) -> list[str]:
    if kind.step_model is not None:
        return _sweep_steps(kind) + _settle_forgotten(kind)
    return _sweep_running(kind) + _sweep_pending(kind)


def _each(kind: JobKind, ids, recover) -> list[str]:
    done = []
    for pk in ids:
        try:
            done.append(recover(pk))
        except Exception:  # noqa: BLE001 - one job must not stop the sweep
            logger.exception("Could not recover %s %s", kind.name, pk)
    return [line for line in done if line]


def _silent(cutoff: datetime, prefix: str = "") -> Q:
    """Heartbeat older than ``cutoff``, or none since it was created before it."""
    return Q(**{f"{prefix}heartbeat_at__lt": cutoff}) | Q(
        **{f"{prefix}heartbeat_at__isnull": True, f"{prefix}created_at__lt": cutoff}
    )


# --- Single jobs ----------------------------------------------------------------------


def _sweep_running(kind: JobKind) -> list[str]:
    now = timezone.now()
    stalled = kind.model.objects.filter(_silent(stall_cutoff(now)), status=JobStatus.RUNNING)
    return _each(kind, stalled.values_list("pk", flat=True), lambda pk: _recover_running(kind, pk, now))


def _recover_running(kind: JobKind, pk: int, now: datetime) -> str:
    with transaction.atomic():
        job = kind.model.objects.select_for_update().get(pk=pk)
        if job.status != JobStatus.RUNNING or (job.heartbeat_at and job.heartbeat_at >= stall_cutoff(now)):
            return ""
        if embedded() and worked_on_here(job):
            return ""  # its thread is alive (its heartbeat waited for SQLite)
        if job.attempts >= job_settings()["max_attempts"] or embedded():
            fail_lost(job, now)
        else:
            last = "never" if job.heartbeat_at is None else f"{(now - job.heartbeat_at).total_seconds():.0f} s ago"
            job.status, job.heartbeat_at = JobStatus.PENDING, now
            job.log = logged(job.log, f"its worker was lost (last heard of {last}); sent again", now)
            job.save(update_fields=["status", "log", "heartbeat_at"])
            transaction.on_commit(lambda: kind.resend(job))
            return f"{kind.name} {pk}: sent again"
    if kind.on_failed:
        kind.on_failed(job)
    return f"{kind.name} {pk}: failed, its worker was lost"


def _sweep_pending(kind: JobKind) -> list[str]:
    now = timezone.now()
    waiting = kind.model.objects.filter(_silent(stall_cutoff(now)), status=JobStatus.PENDING)
    return _each(kind, waiting.values_list("pk", flat=True), lambda pk: _recover_pending(kind, pk, now))


def _recover_pending(kind: JobKind, pk: int, now: datetime) -> str:
    with transaction.atomic():
        job = kind.model.objects.select_for_update().get(pk=pk)
        # heartbeat_at of a pending job: when it was last sent again (none: never).
        sent = job.heartbeat_at or job.created_at
        if job.status != JobStatus.PENDING or not _due(sent, job.created_at, now):
            return ""
        if embedded():
            fail_lost(job, now)
        else:
            waited = (now - job.created_at).total_seconds()
            job.heartbeat_at = now
            job.log = logged(job.log, f"not taken up by a worker in {waited:.0f} s; sent again", now)
            job.save(update_fields=["heartbeat_at", "log"])
            transaction.on_commit(lambda: kind.resend(job))
            return f"{kind.name} {pk}: not taken up, sent again"
    if kind.on_failed:
        kind.on_failed(job)
    return f"{kind.name} {pk}: failed, its process stopped"


# The longest wait between two sends of a job nobody takes up: a job sent again after
# its worker was lost (or waiting since before an upgrade) is not left for hours.
MAX_WAIT_STALLS = 10


def _due(last: datetime, first: datetime, now: datetime, *, doublings: int | None = None) -> bool:
    """Whether a job waiting since ``first``, last sent at ``last``, is due to be sent
    again: after stall_s, then after as long as it has waited in all (the waits double);
    or, given ``doublings``, after stall_s * 2 ** doublings; never after more than
    MAX_WAIT_STALLS * stall_s."""
    stall = timedelta(seconds=job_settings()["stall_s"])
    wait = stall * 2 ** min(doublings, 10) if doublings is not None else max(stall, last - first)
    return now - last >= min(wait, stall * MAX_WAIT_STALLS)


# --- Batched jobs ---------------------------------------------------------------------


def _sweep_steps(kind: JobKind) -> list[str]:
    now = timezone.now()
    cutoff = stall_cutoff(now)
    pending = kind.step_model.objects.filter(status=StepStatus.PENDING, **{f"{kind.steps}__status__in": UNFINISHED})
    # Taken by a worker now silent; or never taken while the whole job is silent.
    stalled = pending.filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True) & _silent(cutoff, f"{kind.steps}__")
    )
    jobs_with_stalled = set(stalled.values_list(f"{kind.steps}_id", flat=True))
    return _each(kind, sorted(jobs_with_stalled), lambda pk: _recover_steps(kind, pk, now))


def _recover_steps(kind: JobKind, pk: int, now: datetime) -> str:
    cutoff = stall_cutoff(now)
    with transaction.atomic():
        job = kind.model.objects.select_for_update().get(pk=pk)
        if job.status not in UNFINISHED or (embedded() and worked_on_here(job)):
            return ""
        pending = kind.step_model.objects.filter(**{kind.steps: job}, status=StepStatus.PENDING)
        taken = pending.filter(heartbeat_at__lt=cutoff)
        untaken = pending.filter(heartbeat_at__isnull=True)
        silent = (job.heartbeat_at or job.created_at) < cutoff
        if not (silent and _due(job.heartbeat_at or job.created_at, job.created_at, now, doublings=job.attempts)):
            untaken = untaken.none()
        lost, again, never_taken = _lost_and_again(taken, untaken)
        if not lost and not again:
            return ""
        _fail_steps(kind, job, lost, now)
        taken.filter(document_id__in=again).update(heartbeat_at=None)
        if never_taken:
            job.attempts += 1  # one more back-off for the steps nobody takes up
        job.heartbeat_at = now  # what was sent again has stall_s to be taken up
        job.log = logged(job.log, f"worker lost: {len(again)} documents sent again, {len(lost)} failed", now)
        job.save(update_fields=["attempts", "heartbeat_at", "log"])
        if again:
            transaction.on_commit(lambda: kind.resend(job, again))
    if kind.settle:
        kind.settle(job)
    return f"{kind.name} {pk}: {len(again)} documents sent again, {len(lost)} failed"


def _lost_and_again(taken, untaken) -> tuple[list[int], list[int], bool]:
    """Stalled documents to fail (lost too often, or embedded: nothing to send them to),
    those to send again, and whether any of them was never taken up."""
    limit = job_settings()["max_attempts"]
    never_taken = _documents(untaken)
    if embedded():
        return _documents(taken) + never_taken, [], False
    lost = _documents(taken.filter(attempts__gte=limit))
    return lost, _documents(taken.filter(attempts__lt=limit)) + never_taken, bool(never_taken)


def _documents(steps) -> list[int]:
    return list(steps.values_list("document_id", flat=True))


def _fail_steps(kind: JobKind, job: Job, documents: list[int], now: datetime) -> None:
    if not documents:
        return
    error = (
        "The process running it stopped before this document was done."
        if embedded()
        else f"Its worker was lost {job_settings()['max_attempts']} times while on this document."
    )
    kind.step_model.objects.filter(**{kind.steps: job}, document_id__in=documents, status=StepStatus.PENDING).update(
        status=StepStatus.FAILED, error=error, heartbeat_at=now
    )


def _settle_forgotten(kind: JobKind) -> list[str]:
    """Unfinished jobs with no pending step left and nobody alive on them: the worker
    that finished their last document died before ending the job."""
    if kind.settle is None:
        return []
    now = timezone.now()
    pending_steps = kind.step_model.objects.filter(status=StepStatus.PENDING).values(f"{kind.steps}_id")
    forgotten = kind.model.objects.filter(_silent(stall_cutoff(now)), status__in=UNFINISHED).exclude(
        pk__in=pending_steps
    )

    def settle(pk: int) -> str:
        kind.settle(kind.model.objects.get(pk=pk))
        return f"{kind.name} {pk}: settled"

    return _each(kind, forgotten.values_list("pk", flat=True), settle)
