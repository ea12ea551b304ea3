"""Celery tasks: thin wrappers around the domain services."""

from celery import shared_task
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from .models import AnnotationLayer, Corpus, ImportJob
from .services import import_jobs, masked_review


@shared_task(name="annotation.tasks.run_import_job", acks_late=True)
def run_import_job(job_id: int) -> dict:
    """Import an uploaded corpus file. Safe to redeliver: the import is all-or-nothing
    and a finished job is not run twice."""
    return import_jobs.run_import_job(job_id)


@shared_task(name="annotation.tasks.render_masked_review", acks_late=True)
def render_masked_review(layer_id: int) -> dict:
    """Render the masked review of a layer. Idempotent: an up-to-date rendering is kept."""
    layer = AnnotationLayer.objects.select_related("document").get(pk=layer_id)
    review = masked_review.render_masked_review(layer)
    return {"layer": layer_id, "layer_version": review.layer_version, "masked_mentions": review.masked_mentions}


def request_masked_review(layer: AnnotationLayer) -> None:
    """Enqueue the rendering once the current transaction (the confirmation) commits;
    a page polling for the result does not enqueue the same layer version twice."""
    if cache.add(f"masked-review-requested:{layer.pk}:{layer.version}", True, timeout=120):
        transaction.on_commit(lambda: render_masked_review.delay(layer.pk))


def submit_import_job(corpus: Corpus, upload: UploadedFile, *, actor: AbstractBaseUser | None) -> ImportJob:
    """Create the job and enqueue its import once the job row is committed."""
    job = import_jobs.create_import_job(corpus, upload, actor=actor)

    def enqueue():
        result = run_import_job.delay(job.pk)
        ImportJob.objects.filter(pk=job.pk).update(task_id=result.id)
        job.task_id = result.id

    transaction.on_commit(enqueue)
    return job
