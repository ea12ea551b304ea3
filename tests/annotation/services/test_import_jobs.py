"""An import job always ends: succeeded, or failed with the reason; never left running."""

import logging

from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Document, ImportJob
from annotation.services import import_jobs

SURROGATE_FILE = (
    b'[{"doc_id": "d1", "text": "Ann went home.", "annotations": {"annotator1": {"entity_mentions": '
    b'[{"entity_mention_id": "m1", "entity_id": "e1", "entity_type": "PERSON", "start_offset": 0, '
    b'"end_offset": 3, "span_text": "\\udc00"}]}}}]'
)


def job_for(corpus, content: bytes, user) -> ImportJob:
    upload = SimpleUploadedFile("corpus.json", content, content_type="application/json")
    return import_jobs.create_import_job(corpus, upload, actor=user)


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
