"""The pre-annotation runs of the REST API: managers start and follow them; nobody else
sees them."""

import pytest

from annotation.models import PreannotationRun

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rules_only_engine", "eager_tasks")]


@pytest.fixture
def documents(corpus, pick, import_documents):
    import_documents(corpus, pick("001-79436", "001-83927"))


def test_a_manager_starts_a_run_and_follows_it(corpus, people, documents, api, django_capture_on_commit_callbacks):
    client = api(people["manager"])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/preannotation-runs/", {"corpus": corpus.pk, "documents": ["001-79436"]}, format="json"
        )
    assert response.status_code == 202
    assert response.json()["total"] == 1 and response.json()["status"] == "pending"
    assert response.json()["documents_total"] == 1  # the count's old name, kept for existing clients
    run = client.get(f"/api/preannotation-runs/{response.json()['id']}/").json()
    assert run["status"] == "succeeded"
    assert run["progress"] == {"total": 1, "done": 1, "failed": 0, "pending": 0, "percent": 100}
    assert {i["name"] for i in run["engine"]["indicators"]} >= {"web search", "LM probabilities"}


def test_bad_requests_name_the_problem(corpus, people, documents, api):
    client = api(people["manager"])
    response = client.post("/api/preannotation-runs/", {"corpus": corpus.pk, "documents": ["001-x"]}, format="json")
    assert response.status_code == 400 and "has no document 001-x" in response.json()["detail"]
    assert response.json()["field"] == "documents"
    assert client.post("/api/preannotation-runs/", {}, format="json").json()["corpus"]
    assert not PreannotationRun.objects.exists()


def test_only_managers_of_the_corpus(corpus, people, documents, api):
    for user in ("ann", "rita"):
        response = api(people[user]).post("/api/preannotation-runs/", {"corpus": corpus.pk}, format="json")
        assert response.status_code == 403, user
    # Outside the corpus it is refused as if it did not exist (400 naming the field).
    response = api(people["outsider"]).post("/api/preannotation-runs/", {"corpus": corpus.pk}, format="json")
    assert response.status_code == 400 and list(response.json()) == ["corpus"]
    run = PreannotationRun.objects.create(corpus=corpus, total=2)
    assert api(people["ann"]).get(f"/api/preannotation-runs/{run.pk}/").status_code == 404
    assert api(people["outsider"]).get("/api/preannotation-runs/").json()["count"] == 0
    assert api(people["manager"]).get("/api/preannotation-runs/").json()["count"] == 1
