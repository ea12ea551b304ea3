"""A training's time limits as its Celery task's: a soft limit that ends it failed,
saying so, and a hard one whose kill is recorded as that failure, not taken for a lost
worker (which the sweeper would send again, as long each time)."""

import shutil

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ..models import TrainedModel
from . import jobs, model_store
from .audit import record_event
from .model_comparison import time_limit_s as comparison_time_limit_s
from .training_scratch import scratch_dir

Status = TrainedModel.Status


def task_time_limit_s() -> float:
    """The hard limit of a training's task: a minute past the training's own limit and
    the comparison's that follows it. Both stop cleanly at theirs; only a training stuck
    beyond them is stopped (``SoftTimeLimitExceeded`` half a minute earlier), then killed."""
    return (settings.SANITIZE_TRAINING.get("time_limit_s") or 1800) + comparison_time_limit_s() + 60


def time_limit_error() -> str:
    return (
        f"The training was stopped at its time limit ({task_time_limit_s():.0f} s): it ran on past the "
        "training's and the comparison's own limits (SANITIZE_TRAINING time_limit_s, comparison_time_limit_s). "
        "It is not sent again."
    )


def fail_at_time_limit(model_id: int, task_id: str) -> bool:
    """The worker killed the training's task at its hard time limit: end it failed,
    saying so, rather than leave it to look like a lost worker (sent again
    ``max_attempts`` times, as long each time). Written while it runs under this task
    (the sweeper may have sent it again under another), whichever attempt it is."""
    error = time_limit_error()
    with transaction.atomic():
        running = TrainedModel.objects.select_for_update().filter(pk=model_id, status=Status.RUNNING)
        model = running.filter(Q(task_id=task_id) | Q(task_id="")).first()
        if model is None:
            return False
        now = timezone.now()
        model.status, model.error, model.finished_at, model.heartbeat_at = Status.FAILED, error, now, now
        model.log = jobs.logged(model.log, "stopped at its time limit", now)
        model.save(update_fields=["status", "error", "finished_at", "heartbeat_at", "log"])
        record_event("model.failed", actor=None, corpus=model.corpus, target=model.label, changes={"error": error})
    shutil.rmtree(scratch_dir(model), ignore_errors=True)  # the killed process was on this host
    model_store.discard_unreferenced(model)
    return True
