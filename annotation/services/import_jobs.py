"""Uploaded imports run by a Celery task, with progress a browser can poll.

An import is a job of the one job mechanism (``services.jobs``): a worker claims it,
keeps its heartbeat fresh while it reads, reports the documents read, and ends it in the
same transaction as the imported data, so a job marked succeeded always has its
documents, and a worker killed half-way leaves nothing behind: the sweeper sends the job
again and the next worker imports the whole file. Whatever goes wrong during an import
ends the job as failed, with the reason, never leaves it running.

The uploaded file is read through the storage API (no disk shared with the web host)
and deleted from storage once the job has ended for good: a privacy tool keeps no raw
corpus it no longer needs. The original name stays on the job; its summary says the
upload was deleted."""

import logging

from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from ..corpus_io.errors import TabImportError
from ..models import Corpus, ImportJob
from . import job_sweeper, jobs
from .corpus_import import import_tab
from .errors import DomainError

logger = logging.getLogger(__name__)

UPLOAD_DELETED = "deleted once the import ended"


class _Lost(Exception):
    """This attempt no longer owns the job: its import is rolled back."""


def create_import_job(corpus: Corpus, upload: UploadedFile, *, actor: AbstractBaseUser | None) -> ImportJob:
    """Store the upload as a pending job (``annotation.tasks.submit_import_job`` also
    enqueues it)."""
    if not upload.name.lower().endswith(".json"):
        raise DomainError(f"{upload.name} is not a .json file: upload a TAB JSON corpus.", field="file")
    job_sweeper.recover_embedded("import")  # an import whose thread died is failed, its upload deleted
    return ImportJob.objects.create(corpus=corpus, file=upload, original_name=upload.name[:300], created_by=actor)


def run_import_job(job_id: int) -> dict:
    """Import the job's file. Idempotent: a finished job, or one another worker holds,
    is left as it is."""
    job = jobs.claim(ImportJob, job_id)
    if job is None:
        job = ImportJob.objects.get(pk=job_id)
        if job.finished:  # the sweeper may have failed it for good: its upload goes too
            delete_upload(job)
        return _outcome(job)
    try:
        with jobs.Heartbeat(job) as heartbeat:
            _import(job, heartbeat)
    except _Lost:
        logger.warning("Import job %s was taken over by another worker; this import was rolled back", job.pk)
        return _outcome(ImportJob.objects.get(pk=job_id))
    except TabImportError as exc:
        _fail(job, str(exc))
    except Exception as exc:  # a bug or a broken file store: the job must still end
        logger.exception("Import job %s failed unexpectedly", job.pk)
        _fail(job, f"The import failed unexpectedly, nothing was stored ({type(exc).__name__}: {str(exc)[:500]}).")
    if job.finished:
        delete_upload(job)
    return _outcome(job)


def _import(job: ImportJob, heartbeat: jobs.Heartbeat) -> None:
    """The import and the job's end, all or nothing."""
    with transaction.atomic():
        with job.file.open("rb") as stream:
            summary = import_tab(
                stream,
                job.corpus,
                actor=job.created_by,
                source=job.original_name,
                progress=lambda done: heartbeat.report(done=done),
            )
        if not jobs.finish(job, ImportJob.Status.SUCCEEDED, summary=summary.as_dict(), done=summary.documents):
            raise _Lost


def _fail(job: ImportJob, error: str) -> None:
    if not jobs.finish(job, ImportJob.Status.FAILED, error=error):
        logger.warning("Import job %s failed (%s) after another worker took it over", job.pk, error[:200])


def delete_upload(job: ImportJob) -> None:
    """Delete the uploaded file from storage (the job has ended for good: never one that
    will be sent again). The summary says so; a storage that fails is logged, and the
    name kept so that the file can still be found."""
    if not job.file:
        return
    try:
        job.file.storage.delete(job.file.name)
    except Exception:  # noqa: BLE001 - the import's outcome stands; the file is left to tidy by hand
        logger.exception("The upload %s of import job %s could not be deleted", job.file.name, job.pk)
        return
    job.summary = {**job.summary, "upload": UPLOAD_DELETED}
    job.file = ""
    ImportJob.objects.filter(pk=job.pk).update(file="", summary=job.summary)


def _outcome(job: ImportJob) -> dict:
    return {"status": job.status, "summary": job.summary, "error": job.error}
