"""Two worker hosts and a web host that share no disk: an upload sent to the web host is
imported by a worker that reads it from the object store (and deletes it there), and a
model trained on worker A is used by worker B, which fetches its archive into its own
cache. The proof that B used it is a prediction only the trained model makes."""

import json
import shutil

import pytest
import requests

from annotation.models import Document, ImportJob, PreannotationRun, Prediction, TrainedModel
from tests.multihost.conftest import bucket_keys, files_under
from tests.multihost.corpora import ORG, org_corpus

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def two_workers(cluster):
    """Worker A trains (queues default, training), worker B pre-annotates (default,
    preannotation): a training can only run on A and a pre-annotation only on B."""
    workers = cluster.workers({"A": ["default", "training"], "B": ["default", "preannotation"]})
    yield workers
    for worker in workers.values():
        worker.stop()


def _finished(job, timeout: float, cluster, what: str):
    def check():
        job.refresh_from_db()
        return job.finished

    cluster.wait_for(check, what, timeout)
    return job


def test_an_upload_to_the_web_host_is_imported_by_a_worker_from_the_object_store_then_deleted(
    here, two_workers, corpus, people, pick
):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=people["manager"])
    documents = pick("001-79436", "001-83927")
    response = requests.post(
        f"{here.web_url}/api/corpora/{corpus.pk}/imports/",
        # As the TLS-terminating proxy in front of gunicorn would (production redirects plain HTTP).
        headers={"Authorization": f"Token {token.key}", "X-Forwarded-Proto": "https"},
        files={"file": ("two.json", json.dumps(documents).encode(), "application/json")},
        timeout=30,
    )
    assert response.status_code == 202, response.text
    job = ImportJob.objects.get(pk=response.json()["id"])
    key = job.file.name
    assert key.startswith("imports/") and key.endswith(".json"), key
    _finished(job, 60, here, f"import job {job.pk}")
    assert job.status == ImportJob.Status.SUCCEEDED, f"{job.error}\n{here.report()}"
    assert list(corpus.documents.order_by("position").values_list("doc_id", flat=True)) == ["001-79436", "001-83927"]
    # The web host stored the upload in the bucket, a worker read it from there: no host
    # ever had it on its disk. Once imported it is deleted (raw corpora are not kept).
    assert ("PUT", f"/{here.s3.bucket}/{key}") in here.s3.requests
    assert here.s3.gets(key) >= 1, "no worker read the upload from the object store"
    assert key not in bucket_keys(here.s3), "the imported upload is still in the bucket"
    for host in ("web", "worker-A", "worker-B"):
        assert not files_under(here.folders(host)["media"]), f"{host} has files in its media root"
    importer = [name for name in ("A", "B") if f"run_import_job[{job.task_id}] succeeded" in two_workers[name].log()]
    assert len(importer) == 1, f"no worker logged the import's task {job.task_id}\n{here.report()}"


def test_a_model_trained_on_worker_a_is_fetched_and_used_by_worker_b(
    here, two_workers, corpus, people, import_documents
):
    from annotation.services.training import promote
    from annotation.tasks import submit_preannotation, submit_training
    from sanitize_app.engine.preannotation import EngineConfig, PreannotationEngine

    import_documents(corpus, org_corpus())
    model = submit_training(corpus, "recognizer", actor=people["manager"])
    _finished(model, 120, here, f"training {model.label} on worker A")
    assert model.status == TrainedModel.Status.SUCCEEDED, f"{model.error}\n{here.report()}"
    assert f"Task annotation.tasks.train_model[{model.task_id}] succeeded" in two_workers["A"].log()
    assert "Task annotation.tasks.train_model[" not in two_workers["B"].log()
    assert model.archive and len(model.checksum) == 64, (model.archive, model.checksum)
    assert model.archive in bucket_keys(here.s3)
    promote(model, actor=people["manager"], reason="Multi-host test: the archive travels to worker B.")
    # What A wrote while training is gone: B cannot have read it from a shared folder.
    shutil.rmtree(here.folders("worker-A")["models"], ignore_errors=True)

    text = f"Mrs Ada Lind joined {ORG} last year as a clerk."
    Document.objects.create(corpus=corpus, doc_id="new", text=text, person_to_protect="Ada Lind", position=99)
    run = submit_preannotation(corpus, documents=["new"], actor=people["manager"])
    _finished(run, 60, here, f"pre-annotation run {run.pk} on worker B")
    assert run.status == PreannotationRun.Status.SUCCEEDED, f"{run.error}\n{here.report()}"
    assert "recognizer v1" in run.model_version
    assert "Task annotation.tasks.preannotate_documents[" in two_workers["B"].log()
    assert "Task annotation.tasks.preannotate_documents[" not in two_workers["A"].log()
    found = set(Prediction.objects.filter(run=run).values_list("span_text", "entity_type"))
    assert (ORG, "ORG") in found, f"B's predictions: {sorted(found)}\n{here.report()}"
    # The rules alone (what B would have run without the model) do not make it.
    rules = PreannotationEngine(EngineConfig(spacy_pipeline=None, encoder=None)).annotate(text, "Ada Lind")
    assert ORG in {m.text for e in rules.entities for m in e.mentions}
    assert (ORG, "ORG") not in {(m.text, m.entity_type) for e in rules.entities for m in e.mentions}
    # B fetched the archive from the bucket (A's folder is gone) into its own cache,
    # unpacked under the archive's checksum.
    assert (here.folders("worker-B")["cache"] / model.checksum).is_dir(), files_under(here.folders("worker-B")["cache"])
