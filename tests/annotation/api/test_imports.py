"""Uploading a TAB file through the API: a job, run by a Celery task."""

import json

from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Document, ImportJob


def upload(documents, name="upload.json") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, json.dumps(documents).encode(), content_type="application/json")


def test_manager_uploads_a_corpus_and_the_task_imports_it(
    scenario, api, pick, eager_tasks, django_capture_on_commit_callbacks
):
    client = api(scenario["manager"])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/api/corpora/{scenario['corpus'].pk}/imports/", {"file": upload(pick("001-83927"))}, format="multipart"
        )
    assert response.status_code == 202, response.content
    job = ImportJob.objects.get(pk=response.json()["id"])
    assert job.status == ImportJob.Status.SUCCEEDED and job.task_id
    assert job.summary["documents"] == 1 and job.summary["mentions"] == 76
    assert Document.objects.filter(corpus=scenario["corpus"], doc_id="001-83927").exists()
    shown = client.get(f"/api/import-jobs/{job.pk}/").json()
    assert shown["status"] == "succeeded" and shown["done"] == 1
    assert shown["documents_done"] == 1  # the count's old name, kept for existing clients


def test_a_rejected_upload_stores_nothing_and_says_why(
    scenario, api, pick, eager_tasks, django_capture_on_commit_callbacks
):
    document = pick("001-83927")[0]
    document["annotations"]["annotator1"]["entity_mentions"][0]["end_offset"] = 10**6
    with django_capture_on_commit_callbacks(execute=True):
        response = api(scenario["manager"]).post(
            f"/api/corpora/{scenario['corpus'].pk}/imports/", {"file": upload([document])}, format="multipart"
        )
    job = ImportJob.objects.get(pk=response.json()["id"])
    assert job.status == ImportJob.Status.FAILED
    assert "document 001-83927" in job.error and "001-83927_a1_em1" in job.error and "outside the text" in job.error
    assert not Document.objects.filter(doc_id="001-83927", corpus=scenario["corpus"]).exists()


def test_only_json_files_and_only_managers(scenario, api, pick):
    corpus = scenario["corpus"]
    text = SimpleUploadedFile("notes.txt", b"hello", content_type="text/plain")
    response = api(scenario["manager"]).post(f"/api/corpora/{corpus.pk}/imports/", {"file": text}, format="multipart")
    assert response.status_code == 400 and response.json()["field"] == "file"
    response = api(scenario["ann"]).post(
        f"/api/corpora/{corpus.pk}/imports/", {"file": upload(pick("001-83927"))}, format="multipart"
    )
    assert response.status_code == 403
    assert ImportJob.objects.count() == 0


def test_the_openapi_schema_is_served(scenario, api):
    response = api(scenario["ann"]).get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    paths = json.loads(response.content)["paths"]
    for path in (
        "/api/mentions/",
        "/api/entities/{id}/merge/",
        "/api/layers/{id}/status/",
        "/api/corpora/{id}/export/tab/",
    ):
        assert path in paths
