"""The one job mechanism's fields: every long task (an import, a pre-annotation run, a
training, a release, a re-identification run, a report) is a row of a model built on
``Job``, and the documents a batched job works through are rows built on ``JobStep``.

A job says how far it is (``stage``, ``done`` of ``total``), what it logged, why it
failed, and when its worker was last heard of (``heartbeat_at``). A running job whose
heartbeat is older than ``SANITIZE_JOBS["stall_s"]`` lost its worker: the sweeper
(``annotation.services.job_sweeper.sweep_stalled``) sends it again or, after
``max_attempts`` tries, fails it, saying so. ``attempts`` counts the workers that took
the job up; it is also the fencing token that keeps a worker declared lost from writing
over the job a second worker now owns."""

from django.db import models


class JobStatus(models.TextChoices):
    """The statuses of every job."""

    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


FINISHED_JOB_STATUSES = (JobStatus.SUCCEEDED, JobStatus.FAILED)
UNFINISHED_JOB_STATUSES = (JobStatus.PENDING, JobStatus.RUNNING)
# A job's or a step's error is cut to this many characters.
ERROR_LIMIT = 2000


class StepStatus(models.TextChoices):
    """The statuses of one step (a document) of a batched job."""

    PENDING = "pending", "Pending"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class Job(models.Model):
    Status = JobStatus

    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.PENDING)
    # Progress: the stage in words ("pretreating the background", "epoch 3 of 10") and how
    # far it is (done of total units of the whole job).
    stage = models.CharField(max_length=200, blank=True)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    log = models.TextField(blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="How many workers took the job up.")
    task_id = models.CharField(max_length=100, blank=True, help_text="The Celery task that runs it last.")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def finished(self) -> bool:
        return self.status in FINISHED_JOB_STATUSES

    @property
    def progress(self) -> float:
        """How far the job is, from 0 to 1 (1 once finished)."""
        if self.finished:
            return 1.0
        return min(1.0, self.done / self.total) if self.total else 0.0


class JobStep(models.Model):
    """One document of a batched job: done once (a redelivered batch skips it). A worker
    that takes the step up keeps its ``heartbeat_at`` fresh; a pending step with a stale
    heartbeat was taken by a worker that is gone, and is sent again."""

    Status = StepStatus

    status = models.CharField(max_length=10, choices=StepStatus.choices, default=StepStatus.PENDING)
    error = models.TextField(blank=True)
    seconds = models.FloatField(default=0.0)
    attempts = models.PositiveSmallIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
