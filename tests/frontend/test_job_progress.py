"""The one progress display of every job and its endpoint: managers of the job's corpus
only, every kind of job, polling that stops once the job is finished (the poll that
finds it finished triggers ``job-finished`` for the page), a lost worker said, and the
error of a failed job escaped."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import (
    Document,
    ImportJob,
    PreannotationRun,
    ReidentificationRun,
    Release,
    ReleaseDocument,
    ReportJob,
    RunDocument,
    TrainedModel,
)

from .conftest import client_for

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def url(kind: str, job) -> str:
    return f"/jobs/{kind}/{job.pk}/progress/"


def two_documents(corpus) -> list[Document]:
    return [Document.objects.create(corpus=corpus, doc_id=f"doc-{n}", text="Some text.") for n in (1, 2)]


def import_job(corpus):
    return ImportJob.objects.create(corpus=corpus, original_name="more.json", status="running", done=3)


def preannotation_run(corpus):
    run = PreannotationRun.objects.create(corpus=corpus, status="running", done=1, total=2)
    first, second = two_documents(corpus)
    RunDocument.objects.create(run=run, document=first, status="done")
    RunDocument.objects.create(run=run, document=second)
    return run


def training(corpus):
    return TrainedModel.objects.create(
        corpus=corpus, kind="recognizer", version=1, status="running", stage="epoch 2 of 5", done=37, total=100
    )


def release(corpus, status="running"):
    return Release.objects.create(corpus=corpus, source="reviewed", strategy="label", status=status, done=1, total=2)


def release_with_documents(corpus):
    job = release(corpus)
    first, second = two_documents(corpus)
    ReleaseDocument.objects.create(release=job, document=first, status="failed", error="bad span")
    ReleaseDocument.objects.create(release=job, document=second)
    return job


def reidentification(corpus):
    return ReidentificationRun.objects.create(
        corpus=corpus, release=release(corpus, "succeeded"), source="release", background_collection="wiki",
        status="running", stage="attacking", done=2, total=5,
    )  # fmt: skip


def report(corpus):
    return ReportJob.objects.create(
        corpus=corpus, kind="evaluation", data_key="k", status="running", stage="scoring", done=1, total=4
    )


# Each kind: how it is made, and what its display says of how far it is (by hand).
KINDS = {
    "import": (import_job, "3 documents read"),
    "preannotation": (preannotation_run, "1 of 2 documents pre-annotated"),
    "training": (training, "37 %"),
    # Its one finished document failed: finished, not sanitized.
    "release": (release_with_documents, '1 of 2 documents finished, <span class="error">1 failed</span>'),
    "reidentification": (reidentification, "2 of 5"),
    "report": (report, "1 of 4"),
}


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_of_job_shows_its_progress_to_a_manager_of_its_corpus(kind, corpus, people):
    make, progress = KINDS[kind]
    job = make(corpus)
    response = client_for(people["manager"]).get(url(kind, job), headers=HTMX)
    partial = response.content.decode()
    assert response.status_code == 200 and "<html" not in partial
    assert f'id="job-progress-{kind}-{job.pk}"' in partial
    assert '<span class="status status-running">Running</span>' in partial
    assert progress in partial
    assert f'hx-get="{url(kind, job)}" hx-trigger="every 1s" hx-swap="outerHTML"' in partial  # it polls itself
    assert "HX-Trigger" not in response  # unfinished: nothing for the page to reload yet


def test_only_the_managers_of_the_jobs_corpus_reach_it(corpus, people):
    job = import_job(corpus)
    assert client_for(people["ann"]).get(url("import", job)).status_code == 404  # a member, not a manager
    assert client_for(people["outsider"]).get(url("import", job)).status_code == 404  # manages another corpus
    manager = client_for(people["manager"])
    assert manager.get(f"/jobs/export/{job.pk}/progress/").status_code == 404  # no such kind of job
    assert manager.get(f"/jobs/import/{job.pk + 1}/progress/").status_code == 404
    assert manager.get(url("import", job)).status_code == 200


def test_polling_stops_once_the_job_is_finished_and_that_poll_tells_the_page(corpus, people):
    job = preannotation_run(corpus)
    manager = client_for(people["manager"])
    assert "hx-get" in manager.get(url("preannotation", job), headers=HTMX).content.decode()
    RunDocument.objects.filter(run=job).update(status="done")
    PreannotationRun.objects.filter(pk=job.pk).update(status="succeeded", done=2, finished_at=timezone.now())
    response = manager.get(url("preannotation", job), headers=HTMX)
    partial = response.content.decode()
    assert "hx-get" not in partial and "hx-trigger" not in partial and "spinner" not in partial
    assert "Succeeded" in partial and "2 of 2 documents pre-annotated" in partial
    finished = {"job-finished": {"kind": "preannotation", "pk": job.pk, "status": "succeeded"}}
    assert json.loads(response["HX-Trigger"]) == finished
    # A plain request (not the display's poll) is not the moment the job ended.
    assert "HX-Trigger" not in manager.get(url("preannotation", job))


def test_a_run_with_a_failed_document_says_its_documents_finished_not_pre_annotated(corpus, people):
    job = preannotation_run(corpus)
    RunDocument.objects.filter(run=job, status="pending").update(status="failed", error="engine crashed")
    PreannotationRun.objects.filter(pk=job.pk).update(status="succeeded", done=2, finished_at=timezone.now())
    partial = client_for(people["manager"]).get(url("preannotation", job)).content.decode()
    # done = 2 counts the failed document too: 1 pre-annotated + 1 failed.
    assert '2 of 2 documents finished, <span class="error">1 failed</span>' in partial
    assert "pre-annotated" not in partial


def test_a_failed_jobs_error_is_shown_escaped(corpus, people):
    job = training(corpus)
    TrainedModel.objects.filter(pk=job.pk).update(status="failed", error="TrainingError: <script>alert(1)</script>")
    partial = client_for(people["manager"]).get(url("training", job)).content.decode()
    assert '<pre class="problems job-error">TrainingError: &lt;script&gt;alert(1)&lt;/script&gt;</pre>' in partial
    assert "<script>" not in partial and "Failed" in partial


def test_a_job_taken_up_again_or_silent_too_long_says_so(corpus, people, settings):
    settings.SANITIZE_JOBS = {**settings.SANITIZE_JOBS, "heartbeat_s": 10}
    job = training(corpus)
    manager = client_for(people["manager"])
    TrainedModel.objects.filter(pk=job.pk).update(attempts=2, heartbeat_at=timezone.now() - timedelta(seconds=15))
    partial = manager.get(url("training", job)).content.decode()
    assert "Taken up again after a worker was lost (attempt 2)." in partial
    assert "Last heard of" not in partial  # 15 s: within two heartbeats
    TrainedModel.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=45))
    partial = manager.get(url("training", job)).content.decode()
    assert "Last heard of 45 s ago" in partial or "Last heard of 46 s ago" in partial
