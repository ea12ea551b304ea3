"""Uploaded imports run by a Celery task, with progress a browser can poll.

The job's final status is written in the same transaction as the imported data, so a
job marked succeeded always has its documents, and a worker killed half-way leaves
nothing behind: the redelivered task simply runs the import again. Whatever goes wrong
during an import ends the job as failed, with the reason, never leaves it running."""

import logging

from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from ..corpus_io.errors import TabImportError
from ..models import Corpus, ImportJob
from .corpus_import import import_tab
from .errors import DomainError

logger = logging.getLogger(__name__)


def progress_key(job_id: int) -> str:
    return f"import-job:{job_id}:documents"


def done(job: ImportJob) -> int:
    """Documents parsed so far (live while running, final afterwards)."""
    if job.status == ImportJob.Status.RUNNING:
        return cache.get(progress_key(job.pk), 0)
    return job.done


def create_import_job(corpus: Corpus, upload: UploadedFile, *, actor: AbstractBaseUser | None) -> ImportJob:
    """Store the upload as a pending job (``annotation.tasks.submit_import_job`` also
    enqueues it)."""
    if not upload.name.lower().endswith(".json"):
        raise DomainError(f"{upload.name} is not a .json file: upload a TAB JSON corpus.", field="file")
    return ImportJob.objects.create(corpus=corpus, file=upload, original_name=upload.name[:300], created_by=actor)


def run_import_job(job_id: int) -> dict:
    """Import the job's file. Idempotent: a finished job is not run again."""
    job = ImportJob.objects.select_related("corpus", "created_by").get(pk=job_id)
    if job.status in (ImportJob.Status.SUCCEEDED, ImportJob.Status.FAILED):
        return {"status": job.status, "summary": job.summary, "error": job.error}
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.RUNNING)
    key = progress_key(job.pk)
    try:
        with transaction.atomic(), job.file.open("rb") as stream:
            summary = import_tab(
                stream,
                job.corpus,
                actor=job.created_by,
                source=job.original_name,
                progress=lambda done: cache.set(key, done, timeout=3600),
            )
            job.status, job.summary, job.done = (
                ImportJob.Status.SUCCEEDED,
                summary.as_dict(),
                summary.documents,
            )
            job.finished_at = timezone.now()
            job.save(update_fields=["status", "summary", "done", "finished_at"])
    except TabImportError as exc:
        _fail(job, str(exc))
    except Exception as exc:  # a bug or a broken file store: the job must still end
        logger.exception("Import job %s failed unexpectedly", job.pk)
        _fail(job, f"The import failed unexpectedly, nothing was stored ({type(exc).__name__}: {str(exc)[:500]}).")
    finally:
        cache.delete(key)
    return {"status": job.status, "summary": job.summary, "error": job.error}


def _fail(job: ImportJob, error: str) -> None:
    job.status, job.error, job.finished_at = ImportJob.Status.FAILED, error, timezone.now()
    job.save(update_fields=["status", "error", "finished_at"])
