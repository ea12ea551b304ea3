"""An import job always ends: succeeded, or failed with the reason; never left running.
Its upload is deleted from storage once it has ended for good, never before; a worker
that lost the job to another stores nothing."""

import json
import logging
from datetime import timedelta

from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Document, ImportJob
from annotation.services import import_jobs, job_sweeper, jobs

SURROGATE_FILE = (
    b'[{"doc_id": "d1", "text": "Ann went home.", "annotations": {"annotator1": {"entity_mentions": '
    b'[{"entity_mention_id": "m1", "entity_id": "e1", "entity_type": "PERSON", "start_offset": 0, '
    b'"end_offset": 3, "span_text": "\\udc00"}]}}}]'
)


def job_for(corpus, content: bytes, user) -> ImportJob:
    upload = SimpleUploadedFile("corpus.json", content, content_type="application/json")
    return import_jobs.create_import_job(corpus, upload, actor=user)


def assert_upload_deleted(job: ImportJob, stored_name: str) -> None:
    job.refresh_from_db()
    assert stored_name.startswith("imports/") and not default_storage.exists(stored_name)
    assert not job.file and job.original_name == "corpus.json"
    assert job.summary["upload"] == import_jobs.UPLOAD_DELETED


def stall(job: ImportJob) -> None:
    """Its worker went silent: the heartbeat is older than stall_s."""
    ImportJob.objects.filter(pk=job.pk).update(heartbeat_at=jobs.stall_cutoff() - timedelta(seconds=1))


def test_a_lone_surrogate_file_fails_the_job_naming_the_field(scenario):
    job = job_for(scenario["corpus"], SURROGATE_FILE, scenario["manager"])
    result = import_jobs.run_import_job(job.pk)
    job.refresh_from_db()
    assert result["status"] == job.status == ImportJob.Status.FAILED
    assert "lone surrogate escape (\\udc00)" in job.error and "field span_text" in job.error
    assert job.finished_at is not None
    assert not Document.objects.filter(doc_id="d1").exists()


def test_an_unexpected_error_fails_the_job_with_its_message_and_logs_it(scenario, monkeypatch, caplog):
    def broken_import(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(import_jobs, "import_tab", broken_import)
    job = job_for(scenario["corpus"], b"[]", scenario["manager"])
    with caplog.at_level(logging.ERROR, logger="annotation.services.import_jobs"):
        result = import_jobs.run_import_job(job.pk)
    job.refresh_from_db()
    assert result["status"] == job.status == ImportJob.Status.FAILED
    assert "RuntimeError: disk on fire" in job.error and "nothing was stored" in job.error
    assert f"Import job {job.pk} failed unexpectedly" in caplog.text and "Traceback" in caplog.text


def test_a_job_ended_by_an_unexpected_error_is_failed_and_its_upload_deleted(scenario, monkeypatch):
    def broken_import(*args, **kwargs):
        raise OSError("storage unreachable")

    monkeypatch.setattr(import_jobs, "import_tab", broken_import)
    job = job_for(scenario["corpus"], b"[]", scenario["manager"])
    stored_name = job.file.name
    assert default_storage.exists(stored_name)
    import_jobs.run_import_job(job.pk)
    assert_upload_deleted(job, stored_name)
    assert job.status == ImportJob.Status.FAILED and "OSError: storage unreachable" in job.error


def test_a_succeeded_import_counts_its_documents_and_deletes_its_upload(corpus, people, pick):
    job = job_for(corpus, json.dumps(pick("001-79436", "001-83927")).encode(), people["manager"])
    stored_name = job.file.name
    result = import_jobs.run_import_job(job.pk)
    assert_upload_deleted(job, stored_name)
    assert result["status"] == job.status == ImportJob.Status.SUCCEEDED
    assert job.done == job.summary["documents"] == 2 and job.attempts == 1
    assert corpus.documents.count() == 2


def test_an_import_whose_job_another_worker_took_over_stores_nothing_and_keeps_the_upload(
    corpus, people, pick, monkeypatch
):
    """This worker went silent after taking the job up, was declared lost and another
    took the job over (attempt 2): its import, run all the same, is rolled back; the
    documents and the upload are the newer attempt's."""
    real_claim = jobs.claim

    def claim_then_lose(model, pk):
        mine = real_claim(model, pk)
        stall(mine)
        assert real_claim(model, pk).attempts == 2  # the other worker
        return mine

    monkeypatch.setattr(jobs, "claim", claim_then_lose)
    job = job_for(corpus, json.dumps(pick("001-79436")).encode(), people["manager"])
    result = import_jobs.run_import_job(job.pk)
    job.refresh_from_db()
    assert result["status"] == job.status == ImportJob.Status.RUNNING and job.attempts == 2
    assert not corpus.documents.exists() and default_storage.exists(job.file.name)


def test_a_job_another_live_worker_holds_is_left_to_it(scenario):
    job = job_for(scenario["corpus"], b"[]", scenario["manager"])
    jobs.claim(ImportJob, job.pk)
    assert import_jobs.run_import_job(job.pk)["status"] == ImportJob.Status.RUNNING
    job.refresh_from_db()
    assert job.attempts == 1 and default_storage.exists(job.file.name)


def test_an_import_the_sweeper_fails_for_good_has_its_upload_deleted(scenario, settings):
    job = job_for(scenario["corpus"], b"[]", scenario["manager"])
    stored_name = job.file.name
    jobs.claim(ImportJob, job.pk)
    ImportJob.objects.filter(pk=job.pk).update(attempts=settings.SANITIZE_JOBS["max_attempts"])
    stall(job)
    assert job_sweeper.sweep_stalled() == [f"import {job.pk}: failed, its worker was lost"]
    assert_upload_deleted(job, stored_name)
    assert job.status == ImportJob.Status.FAILED


def test_the_import_endpoint_answers_202_for_a_surrogate_file_and_the_job_fails(
    scenario, api, eager_tasks, django_capture_on_commit_callbacks
):
    upload = SimpleUploadedFile("corpus.json", SURROGATE_FILE, content_type="application/json")
    with django_capture_on_commit_callbacks(execute=True):
        response = api(scenario["manager"]).post(
            f"/api/corpora/{scenario['corpus'].pk}/imports/", {"file": upload}, format="multipart"
        )
    assert response.status_code == 202, response.content
    job = ImportJob.objects.get(pk=response.json()["id"])
    assert job.status == ImportJob.Status.FAILED and "lone surrogate" in job.error
