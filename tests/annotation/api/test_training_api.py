"""The model registry over the API: managers only, a training queued at once, promotion
refused for a model that is not trained."""

import pytest

from annotation.models import TrainedModel


@pytest.fixture
def corpus_with_layers(corpus, pick, import_documents):
    import_documents(corpus, pick("001-79436"))
    return corpus


def test_managers_queue_list_and_promote(corpus_with_layers, people, api):
    corpus = corpus_with_layers
    refused = api(people["ann"]).post("/api/trained-models/", {"corpus": corpus.pk, "kind": "masking"}, format="json")
    assert refused.status_code == 403
    mia = api(people["manager"])
    queued = mia.post("/api/trained-models/", {"corpus": corpus.pk, "kind": "masking"}, format="json")
    assert queued.status_code == 202 and queued.json()["status"] == "queued" and queued.json()["version"] == 1
    twice = mia.post("/api/trained-models/", {"corpus": corpus.pk, "kind": "masking"}, format="json")
    assert twice.status_code == 400 and "one at a time" in twice.json()["detail"]
    assert [m["kind"] for m in mia.get(f"/api/trained-models/?corpus={corpus.pk}").json()["results"]] == ["masking"]
    assert api(people["outsider"]).get(f"/api/trained-models/{queued.json()['id']}/").status_code == 404
    not_trained = mia.post(f"/api/trained-models/{queued.json()['id']}/promote/")
    assert not_trained.status_code == 400 and "only a trained model is used" in not_trained.json()["detail"]
    TrainedModel.objects.filter(pk=queued.json()["id"]).update(status="succeeded", path="x")
    assert mia.post(f"/api/trained-models/{queued.json()['id']}/promote/").json()["is_active"] is True
