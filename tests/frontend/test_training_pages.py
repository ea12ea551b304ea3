"""The manager's model registry page: only managers, versions side by side, and the
buttons (train now, promote, roll back) with their refusals in words."""

import pytest
from django.utils import timezone

from annotation.models import TrainedModel

from .conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def registry(corpus, pick, import_documents):
    import_documents(corpus, pick("001-79436"))
    metrics = {"ER_di": 1.0, "ER_qi": 0.9123, "WP": 0.65, "token_recall": 0.9, "entity_type_f1": 0.777}
    v1 = TrainedModel.objects.create(
        corpus=corpus,
        kind="recognizer",
        version=1,
        status="succeeded",
        path="r/v1",
        metrics=metrics,
        train_documents=["a", "b"],
        heldout_documents=["c"],
        duration_s=12.4,
        is_active=True,
        activated_at=timezone.now(),
    )
    v2 = TrainedModel.objects.create(
        corpus=corpus, kind="recognizer", version=2, status="failed", error="TrainingError: no documents"
    )
    return corpus, v1, v2


def test_only_managers_see_the_registry(registry, people, settings):
    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "encoder": ""}
    corpus = registry[0]
    url = f"/corpora/{corpus.pk}/models/"
    assert client_for(people["ann"]).get(url).status_code == 403
    assert client_for(people["outsider"]).get(url).status_code == 404
    assert client_for(people["ann"]).post(f"{url}train/", {"kind": "masking"}).status_code == 403
    page = client_for(people["manager"]).get(url).content.decode()
    assert "In use: <strong>recognizer v1</strong>" in page
    assert "0.912" in page and "0.777" in page and "2 / 1" in page and "12 s" in page
    assert "TrainingError: no documents" in page
    assert "No masking model trained yet." in page
    assert "A sequence labeller needs a transformer backbone: set SANITIZE_ENCODER" in page


def test_train_now_promote_and_roll_back(registry, people, eager_tasks, settings, tmp_path):
    corpus, v1, v2 = registry
    settings.SANITIZE_MODEL_ROOT = tmp_path
    mia = client_for(people["manager"])
    url = f"/corpora/{corpus.pk}/models/"
    refused = mia.post(f"{url}{v2.pk}/promote/", follow=True).content.decode()
    assert "recognizer v2 is failed: only a trained model is used." in refused
    unknown = mia.post(f"{url}train/", {"kind": "ner"}, follow=True).content.decode()
    assert "Unknown model kind &#x27;ner&#x27;" in unknown
    back = mia.post(f"{url}rollback/", {"kind": "recognizer"}, follow=True).content.decode()
    assert "Rolled back: the configured default is used for pre-annotation." in back
    v1.refresh_from_db()
    assert not v1.is_active
    again = mia.post(f"{url}{v1.pk}/promote/", follow=True).content.decode()
    assert "recognizer v1 is now used for pre-annotation." in again
