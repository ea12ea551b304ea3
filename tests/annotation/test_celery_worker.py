"""A real Celery worker, started by the test, consumes a task sent through the real
Redis broker and writes its result to the real database (PostgreSQL in CI)."""

import json
import time

import pytest
from celery.contrib.testing.worker import start_worker
from celery.result import AsyncResult
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Document, ImportJob, PreannotationRun, RunDocument
from sanitize_app.celery import app as celery_app

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def wait_until(check, timeout: float, pause: float = 0.1):
    """Poll ``check`` until it returns something true (returned) or the time is up (None)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := check():
            return result
        time.sleep(pause)
    return None


@pytest.fixture
def worker():
    assert not celery_app.conf.task_always_eager, "set CELERY_BROKER_URL to a Redis server to run this test"
    assert celery_app.conf.broker_url.startswith("redis://")
    celery_app.control.purge()  # leftovers of earlier runs must not reach this worker
    with start_worker(
        celery_app,
        pool="solo",
        perform_ping_check=False,
        shutdown_timeout=30,
        queues=["default", "preannotation", "training"],
    ) as running:
        yield running


def test_an_uploaded_corpus_is_imported_by_a_real_worker(worker, corpus, people, pick, api):
    documents = pick("001-79436", "001-83927")
    upload = SimpleUploadedFile("two.json", json.dumps(documents).encode(), content_type="application/json")
    response = api(people["manager"]).post(f"/api/corpora/{corpus.pk}/imports/", {"file": upload}, format="multipart")
    assert response.status_code == 202
    job = ImportJob.objects.get(pk=response.json()["id"])
    deadline = time.monotonic() + 10
    while not job.task_id and time.monotonic() < deadline:
        time.sleep(0.05)
        job.refresh_from_db()
    result = AsyncResult(job.task_id, app=celery_app).get(timeout=60)
    assert result["status"] == "succeeded"
    assert result["summary"]["documents"] == 2 and result["summary"]["mentions"] == 37 + 76
    job.refresh_from_db()
    assert job.status == ImportJob.Status.SUCCEEDED
    assert list(corpus.documents.order_by("position").values_list("doc_id", flat=True)) == ["001-79436", "001-83927"]


def test_a_redelivered_task_does_not_import_twice(worker, corpus, people, pick, tmp_path):
    from annotation.tasks import run_import_job

    upload = SimpleUploadedFile("one.json", json.dumps(pick("001-79436")).encode())
    job = ImportJob.objects.create(corpus=corpus, file=upload, original_name="one.json", created_by=people["manager"])
    stored_name = job.file.name
    first = run_import_job.delay(job.pk).get(timeout=60)
    second = run_import_job.delay(job.pk).get(timeout=60)
    assert first["status"] == second["status"] == "succeeded"
    assert Document.objects.filter(corpus=corpus).count() == 1
    job.refresh_from_db()
    assert job.attempts == 1 and job.done == 1
    assert not job.file and not default_storage.exists(stored_name)  # imported: the upload is gone


@pytest.mark.usefixtures("rules_only_engine")
def test_a_preannotation_run_is_done_by_a_real_worker_in_batches(
    worker, corpus, people, pick, import_documents, settings
):
    from annotation.services.layers import assign_layer
    from annotation.tasks import submit_preannotation

    settings.SANITIZE_PREANNOTATION_BATCH = 1  # two documents, two tasks on the preannotation queue
    import_documents(corpus, pick("001-79436", "001-83927"))
    layer = assign_layer(corpus.documents.get(doc_id="001-79436"), people["ann"], actor=people["manager"])
    run = submit_preannotation(corpus, actor=people["manager"])
    wait_until(lambda: run.refresh_from_db() or run.finished, 60)
    assert run.status == PreannotationRun.Status.SUCCEEDED
    assert set(run.run_documents.values_list("status", flat=True)) == {RunDocument.Status.DONE}
    assert (
        layer.mentions.filter(origin="preannotation").count()
        == run.run_documents.get(document=layer.document).predictions
        > 0
    )


def test_the_masked_review_follows_the_layer_through_a_real_worker(worker, corpus, people):
    """Confirming renders the masked document in the worker; a correction made during
    the review renders it again, for the new layer version."""
    from annotation.models import AnnotationLayer, MaskedReview
    from annotation.services.layers import change_layer_status
    from annotation.services.mentions import create_mention

    text = "Mr John Smith was born in 1961 in Oslo."
    document = Document.objects.create(corpus=corpus, doc_id="case-1", text=text, person_to_protect="John Smith")
    layer = AnnotationLayer.objects.create(document=document, annotator=people["ann"])
    create_mention(
        layer, actor=people["ann"], start_offset=0, end_offset=13, entity_type="PERSON", identifier_type="DIRECT"
    )
    change_layer_status(layer, "confirmed", actor=people["ann"])

    def rendered(version: int) -> MaskedReview:
        review = wait_until(lambda: MaskedReview.objects.filter(layer=layer, layer_version=version).first(), 30)
        assert review is not None, f"no masked review of version {version}"
        return review

    assert rendered(layer.version).masked_text == "*" * 13 + text[13:]
    change_layer_status(layer, "under_review", actor=people["manager"])  # confirmed is locked; a review is not
    create_mention(
        layer, actor=people["manager"], start_offset=26, end_offset=30, entity_type="DATETIME", identifier_type="QUASI"
    )
    assert rendered(layer.version).masked_text == "*" * 13 + " was born in **** in Oslo."


@pytest.mark.usefixtures("rules_only_engine")
def test_a_training_runs_on_the_training_queue_of_a_real_worker(
    worker, corpus, people, pick, import_documents, settings
):
    """Queued through the broker, trained in the worker, stored in the registry."""
    from annotation.models import TrainedModel
    from annotation.tasks import submit_training

    settings.SANITIZE_TRAINING = {**settings.SANITIZE_TRAINING, "base_model": "blank", "max_epochs": 1}
    import_documents(corpus, pick("001-79436", "001-83927", "001-95183"))
    model = submit_training(corpus, "recognizer", actor=people["manager"])
    wait_until(lambda: model.refresh_from_db() or model.finished, 120)
    assert model.status == TrainedModel.Status.SUCCEEDED, model.error
    assert model.task_id and model.duration_s > 0 and "entity_type_f1" in model.metrics
