"""The model registry over the API: managers only, a training queued at once, promotion
refused for a model that is not trained, and for a model worse than the one in use
unless a reason is given (stored and returned)."""

import pytest
from django.utils import timezone

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
    assert queued.status_code == 202 and queued.json()["status"] == "pending" and queued.json()["version"] == 1
    twice = mia.post("/api/trained-models/", {"corpus": corpus.pk, "kind": "masking"}, format="json")
    assert twice.status_code == 400 and "one at a time" in twice.json()["detail"]
    assert [m["kind"] for m in mia.get(f"/api/trained-models/?corpus={corpus.pk}").json()["results"]] == ["masking"]
    assert api(people["outsider"]).get(f"/api/trained-models/{queued.json()['id']}/").status_code == 404
    not_trained = mia.post(f"/api/trained-models/{queued.json()['id']}/promote/")
    assert not_trained.status_code == 400 and "only a trained model is used" in not_trained.json()["detail"]
    no_worse = {"candidate": {"ER_di": 1.0, "ER_qi": 0.9}, "in_use": {"ER_di": 1.0, "ER_qi": 0.9}, "documents": 1}
    TrainedModel.objects.filter(pk=queued.json()["id"]).update(
        status="succeeded", path="x", metrics={"comparison": {**no_worse, "in_use_model": ""}}
    )
    promoted = mia.post(f"/api/trained-models/{queued.json()['id']}/promote/").json()
    assert promoted["is_active"] is True and promoted["promotion_reason"] == ""
    assert promoted["promoted_by"] == "mia_manager"


def test_a_worse_model_is_promoted_over_the_api_only_with_a_reason(corpus_with_layers, people, api):
    corpus = corpus_with_layers
    TrainedModel.objects.create(
        corpus=corpus, kind="recognizer", version=1, status="succeeded", path="r/v1", is_active=True,
        activated_at=timezone.now(),
    )  # fmt: skip
    comparison = {
        "candidate": {"ER_di": 0.75, "ER_qi": 0.95},
        "in_use": {"ER_di": 1.0, "ER_qi": 0.9},
        "in_use_model": "recognizer v1",
        "documents": 5,
    }
    worse = TrainedModel.objects.create(
        corpus=corpus, kind="recognizer", version=2, status="succeeded", path="r/v2", metrics={"comparison": comparison}
    )
    mia = api(people["manager"])
    listed = mia.get(f"/api/trained-models/{worse.pk}/").json()
    assert listed["promotion_needs_reason"] == (
        "recognizer v2 is worse than recognizer v1 on the same 5 held-out documents: ER_di 0.750 against 1.000 in use"
    )
    for body in ({}, {"reason": "  "}):
        refused = mia.post(f"/api/trained-models/{worse.pk}/promote/", body, format="json")
        assert refused.status_code == 400 and refused.json()["field"] == "reason"
        assert "ER_di 0.750 against 1.000 in use. Give a written reason" in refused.json()["detail"]
    assert not TrainedModel.objects.get(pk=worse.pk).is_active
    reason = "The lost code is an application number the rules find; checked by hand."
    promoted = mia.post(f"/api/trained-models/{worse.pk}/promote/", {"reason": reason}, format="json")
    assert promoted.status_code == 200
    assert promoted.json()["is_active"] is True and promoted.json()["promotion_reason"] == reason
    assert promoted.json()["promotion_needs_reason"] == ""  # it is the model in use now
    assert TrainedModel.objects.get(pk=worse.pk).promotion_reason == reason
