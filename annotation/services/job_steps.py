"""Batched jobs (a pre-annotation run, a release): the one skeleton of their batch tasks.

A batched job is created with one step (``models.job.JobStep``) per document. Batch
tasks work through the steps, several at once on several workers; the sweeper
(``job_sweeper``) sends the steps of a lost worker again, and sends a batch nobody took
up again on purpose, so two copies of one batch may run side by side. ``run_steps`` is
what every batch does:

1. the job is running (``start_batch``);
2. the batch takes up its steps still pending that no live worker holds
   (``take_steps``: one transaction, the rows locked, so two copies never both take a
   step);
3. it works through them under a ``jobs.Heartbeat`` that keeps their heartbeat fresh;
   the service's ``work_one`` writes a step's outputs and its status in one transaction,
   so a step leaves pending once and a killed worker leaves it pending, never half done;
4. the job's ``done`` (its finished steps, failed ones included) is counted at most
   every ``COUNT_EVERY_S`` while it works: counting after every document would make a
   large run quadratic;
5. the service's ``settle`` counts again and ends the job once no step is pending (the
   sweeper calls it too, after failing the steps of lost workers)."""

from collections.abc import Callable, Iterable
from time import monotonic

from django.db import transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from ..models.job import ERROR_LIMIT, UNFINISHED_JOB_STATUSES, Job, JobStatus, JobStep, StepStatus
from .document_counts import document_counts
from .jobs import Heartbeat, stall_cutoff

COUNT_EVERY_S = 1.0

WorkOne = Callable[[JobStep], str]


class CannotStart(Exception):
    """Raised by a batch's ``prepare`` when what it needs (an engine) cannot be built:
    the batch's pending steps fail with this message (sent again, they would fail the
    same way)."""


def run_steps(
    step_model: type[JobStep],
    fk_name: str,
    job: Job,
    document_ids: Iterable[int],
    prepare: Callable[[Job], WorkOne],
    settle: Callable[[Job], None],
) -> dict:
    """One batch of ``job`` (``fk_name``: the step model's foreign key to it, also the
    key of the job's id in the answer). ``prepare(job)``, called once when the batch has
    a step to work on, builds what the batch needs and returns ``work_one(step)``, which
    does one step and returns its status afterwards. Returns
    ``{fk_name: id, "done": n, "failed": n}``: what this batch did."""
    outcome = {fk_name: job.pk, "done": 0, "failed": 0}
    if job.finished:
        return outcome
    start_batch(job)
    taken = take_steps(step_model, fk_name, job, document_ids)
    steps = step_model.objects.filter(**{fk_name: job}, document_id__in=taken)
    with Heartbeat(job, single=False, steps=steps):
        pending = list(
            steps.filter(status=StepStatus.PENDING)
            .select_related("document")
            .order_by("document__position", "document_id")
        )
        if pending:
            outcome.update(_work(step_model, fk_name, job, pending, prepare))
        # Still beating: settling (a release's metrics) can outlast stall_s, and the
        # sweeper must not take the job for forgotten and settle it a second time.
        settle(job)
    return outcome


def _work(step_model, fk_name: str, job: Job, pending: list[JobStep], prepare) -> dict:
    try:
        work_one = prepare(job)
    except CannotStart as exc:
        fail_steps(step_model, pending, str(exc))
        return {"done": 0, "failed": len(pending)}
    done = 0
    count_at = monotonic() + COUNT_EVERY_S
    for step in pending:
        done += work_one(step) == StepStatus.DONE
        if monotonic() >= count_at:
            count_steps(step_model, fk_name, job)
            count_at = monotonic() + COUNT_EVERY_S
    return {"done": done, "failed": len(pending) - done}


def start_batch(job: Job) -> None:
    """A batch task begins: the job is running (its first batch starts it)."""
    now = timezone.now()
    type(job).objects.filter(pk=job.pk, status__in=UNFINISHED_JOB_STATUSES).update(
        status=JobStatus.RUNNING, heartbeat_at=now, started_at=Coalesce("started_at", Value(now))
    )


def take_steps(step_model: type[JobStep], fk_name: str, job: Job, document_ids: Iterable[int]) -> list[int]:
    """Take the batch's free steps up (pending, and no heartbeat or a stale one: their
    heartbeat is now this worker's, their ``attempts`` one more); returns their document
    ids. Steps another live worker holds are left to it.

    One transaction: the job's row is locked first (the order the sweeper locks in, so
    the two never deadlock), then the free steps, skipping those another transaction
    holds; a second copy of the batch waits, then finds them held. Taking a step resets
    the job's ``attempts``: for a batched job the sweeper counts there how often it sent
    steps nobody took up again (its back-off), and progress ends that."""
    now = timezone.now()
    with transaction.atomic():
        list(type(job).objects.select_for_update().filter(pk=job.pk).values_list("pk", flat=True))
        free = (
            step_model.objects.select_for_update(skip_locked=True)
            .filter(**{fk_name: job}, document_id__in=list(document_ids), status=StepStatus.PENDING)
            .filter(Q(heartbeat_at__isnull=True) | Q(heartbeat_at__lt=stall_cutoff(now)))
            .order_by("document_id")
        )
        taken = dict(free.values_list("pk", "document_id"))
        if taken:
            step_model.objects.filter(pk__in=taken).update(heartbeat_at=now, attempts=F("attempts") + 1)
            type(job).objects.filter(pk=job.pk).update(attempts=0)
    return list(taken.values())


def fail_step(step: JobStep, exc: Exception) -> JobStep:
    """One step failed (its work raised ``exc``), unless it was no longer pending (another
    worker finished it). Returns the step as it is now."""
    type(step).objects.filter(pk=step.pk, status=StepStatus.PENDING).update(
        status=StepStatus.FAILED, error=f"{exc.__class__.__name__}: {exc}"[:ERROR_LIMIT]
    )
    step.refresh_from_db()
    return step


def fail_steps(step_model: type[JobStep], steps: list[JobStep], error: str) -> None:
    """The steps still pending among ``steps`` failed, all for the same reason."""
    step_model.objects.filter(pk__in=[step.pk for step in steps], status=StepStatus.PENDING).update(
        status=StepStatus.FAILED, error=error[:ERROR_LIMIT]
    )


def count_steps(step_model: type[JobStep], fk_name: str, job: Job) -> dict:
    """Count the job's steps by status (``document_counts``) and write its ``done``: its
    finished steps (done or failed). Counted again rather than added to, so batches
    running at once, a redelivered one and the sweeper's failures all leave the right
    number; never lowered (a step never goes back to pending), so a count read before
    another batch's newer one cannot overwrite it. Returns the counts."""
    counts = document_counts(step_model.objects.filter(**{fk_name: job}))
    finished = counts["done"] + counts["failed"]
    type(job).objects.filter(pk=job.pk, status=JobStatus.RUNNING).update(done=Greatest(F("done"), Value(finished)))
    job.done = max(job.done, finished)
    return counts


def end(job: Job, counts: dict, status: str, **fields) -> bool:
    """Settle a batched job whose steps are all finished (``counts``: ``count_steps``'),
    writing ``fields`` with its end. The batches' counterpart of ``jobs.finish``, which
    is fenced by one worker's attempt: here the last batch or the sweeper settles, and
    the first to do so wins. Returns whether this call ended it."""
    now = timezone.now()
    ended = type(job).objects.filter(pk=job.pk, status__in=UNFINISHED_JOB_STATUSES)
    finished = counts["done"] + counts["failed"]
    return bool(ended.update(status=status, finished_at=now, heartbeat_at=now, done=finished, **fields))


def failed_count(kind, job: Job) -> int:
    """How many steps of ``job`` (a ``jobs.JobKind``'s) failed; 0 for a single job."""
    if kind.step_model is None:
        return 0
    return kind.step_model.objects.filter(**{kind.steps: job}, status=StepStatus.FAILED).count()
