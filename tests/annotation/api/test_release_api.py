"""Releases in the REST API: managers start, follow, read and download them; nobody else
sees them, and a manager removed from the corpus loses them at the next request."""

import io
import json
import zipfile

import pytest
from rest_framework.test import APIClient

from annotation.enums import Role
from annotation.models import CorpusMembership, Release
from annotation.services.releases import run_batch, start_release

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

POLAT, CANPOLAT = "001-83927", "001-79436"


@pytest.fixture
def documents(corpus, pick, import_documents):
    import_documents(corpus, pick(POLAT, CANPOLAT))
    return {d.doc_id: d for d in corpus.documents.all()}


@pytest.fixture
def release(corpus, people, documents):
    """A succeeded placeholder release of both documents."""
    release = start_release(corpus, source="reviewed", strategy="placeholder", actor=people["manager"])
    run_batch(release.pk, [d.pk for d in documents.values()])
    release.refresh_from_db()
    assert release.status == "succeeded"
    return release


def test_a_manager_starts_a_release_and_follows_it(corpus, people, documents, api, django_capture_on_commit_callbacks):
    client = api(people["manager"])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/releases/", {"corpus": corpus.pk, "source": "reviewed", "strategy": "label"}, format="json"
        )
    assert response.status_code == 202, response.content
    body = response.json()
    assert (body["status"], body["total"], body["strategy"], body["source"]) == (
        "pending",
        2,
        "label",
        "reviewed",
    )
    assert body["created_by"] == people["manager"].username and body["annotator"] is None
    assert body["documents_total"] == 2  # the count's old name, kept for existing clients

    followed = client.get(f"/api/releases/{body['id']}/").json()
    assert followed["status"] == "succeeded"
    assert followed["progress"] == {"total": 2, "done": 2, "failed": 0, "pending": 0, "percent": 100}
    assert followed["metrics"]["ER_di"] == 1.0 and followed["metrics"]["paths"]["fixed"] > 0
    assert followed["settings"]["strategy"] == "label" and followed["settings"]["source"] == "reviewed"
    listed = client.get("/api/releases/", {"corpus": corpus.pk}).json()
    assert [r["id"] for r in listed["results"]] == [body["id"]]


def test_an_annotators_release_names_the_annotator(corpus, people, documents, api):
    response = api(people["manager"]).post(
        "/api/releases/",
        {"corpus": corpus.pk, "source": "annotator", "annotator": "annotator10", "strategy": "suppress"},
        format="json",
    )
    assert response.status_code == 202
    assert response.json()["annotator"] == "annotator10" and response.json()["total"] == 1


@pytest.mark.parametrize(
    "body, field, message",
    [
        ({"source": "annotator", "annotator": "nobody", "strategy": "label"}, "annotator", "no annotator named"),
        ({"source": "annotator", "strategy": "label"}, "annotator", "needs an annotator"),
        ({"source": "reviewed", "annotator": "annotator10", "strategy": "label"}, "annotator", "only with the source"),
        ({"source": "preannotation", "strategy": "label"}, "source", "never pre-annotated"),
    ],
)
def test_refusals_name_the_field(corpus, people, documents, api, body, field, message):
    response = api(people["manager"]).post("/api/releases/", {"corpus": corpus.pk, **body}, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == field and message in response.json()["detail"]
    assert not Release.objects.exists()


def test_attack_guided_masking_is_asked_for_by_k_and_refused_without_a_background(corpus, people, documents, api):
    client = api(people["manager"])
    body = {"corpus": corpus.pk, "source": "reviewed", "strategy": "label"}
    response = client.post("/api/releases/", {**body, "attack_guided_top_k": 0}, format="json")
    assert response.status_code == 400 and set(response.json()) == {"attack_guided_top_k"}
    response = client.post("/api/releases/", {**body, "attack_guided_top_k": 3}, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "attack_guided_top_k" and "has none" in response.json()["detail"]
    assert not Release.objects.exists()
    response = client.post("/api/releases/", {**body, "attack_guided_top_k": None}, format="json")
    assert response.status_code == 202 and response.json()["attack_guided_top_k"] is None


def test_unknown_choices_are_refused_by_the_serializer(corpus, people, documents, api):
    response = api(people["manager"]).post(
        "/api/releases/", {"corpus": corpus.pk, "source": "everyone", "strategy": "blur"}, format="json"
    )
    assert response.status_code == 400 and set(response.json()) == {"source", "strategy"}


def test_only_managers_of_the_corpus_start_or_see_releases(corpus, people, documents, release, api):
    for user in ("ann", "rita"):
        client = api(people[user])
        post = client.post("/api/releases/", {"corpus": corpus.pk, "source": "reviewed", "strategy": "label"})
        assert post.status_code == 403, user
        assert client.get(f"/api/releases/{release.pk}/").status_code == 404
        assert client.get(f"/api/releases/{release.pk}/download/").status_code == 404
        assert client.get("/api/releases/").json()["count"] == 0
        assert client.get("/api/release-documents/", {"release": release.pk}).json()["count"] == 0
        document = release.documents.first()
        assert client.get(f"/api/release-documents/{document.pk}/").status_code == 404
    # Outside the corpus a start is refused as if the corpus did not exist.
    outsider = api(people["outsider"])
    post = outsider.post("/api/releases/", {"corpus": corpus.pk, "source": "reviewed", "strategy": "label"})
    assert post.status_code == 400 and list(post.json()) == ["corpus"]
    assert outsider.get(f"/api/releases/{release.pk}/").status_code == 404
    assert Release.objects.count() == 1


def test_a_manager_removed_from_the_corpus_loses_access_at_once(corpus, people, release, api):
    manager = people["manager"]
    client = api(manager)
    document = release.documents.first()
    assert client.get(f"/api/releases/{release.pk}/").status_code == 200
    assert client.get(f"/api/release-documents/{document.pk}/").status_code == 200

    CorpusMembership.objects.filter(corpus=corpus, user=manager, role=Role.MANAGER).delete()
    CorpusMembership.objects.create(corpus=corpus, user=manager, role=Role.ANNOTATOR)

    assert client.get(f"/api/releases/{release.pk}/").status_code == 404
    assert client.get(f"/api/releases/{release.pk}/download/").status_code == 404
    assert client.get(f"/api/release-documents/{document.pk}/").status_code == 404
    assert client.get("/api/releases/").json()["count"] == 0


def test_release_documents_give_the_sanitized_text_spans_and_decisions(release, api, people):
    client = api(people["manager"])
    listed = client.get("/api/release-documents/", {"release": release.pk}).json()
    assert [d["doc_id"] for d in listed["results"]] == [POLAT, CANPOLAT]
    polat = listed["results"][0]
    assert polat["status"] == "done" and polat["sanitized_text"].startswith("PROCEDURE\n\nThe case originated")
    assert polat["spans"][0]["replacement"] == "CODE_1" and "decisions" not in polat
    detail = client.get(f"/api/release-documents/{polat['id']}/").json()
    code = detail["decisions"][0]
    assert (code["entity_type"], code["original"], code["replacement"], code["path"]) == (
        "CODE",
        "40593/04",
        "CODE_1",
        "fixed",
    )


def test_downloads_in_every_format_hold_no_original(release, api, people):
    client = api(people["manager"])
    for fmt, content_type in (
        ("json", "application/json"),
        ("zip", "application/zip"),
        ("masks", "application/json"),
        ("tri", "application/json"),
    ):
        response = client.get(f"/api/releases/{release.pk}/download/", {"format": fmt})
        assert response.status_code == 200, (fmt, response.content[:300])
        assert response["Content-Type"] == content_type
        assert f'filename="release-{release.pk}-placeholder' in response["Content-Disposition"]
        if fmt == "zip":
            with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
                texts = [archive.read(name).decode() for name in archive.namelist()]
        elif fmt == "tri":
            texts = [row["placeholder_abstract"] for row in json.loads(response.content)]
        else:
            texts = [response.content.decode()]
        for text in texts:
            assert "Cengiz Polat" not in text and "40593/04" not in text and "Aziz Canpolat" not in text
    default = client.get(f"/api/releases/{release.pk}/download/")
    assert [row["doc_id"] for row in default.json()] == [POLAT, CANPOLAT]


def test_a_bad_format_or_an_unfinished_release_is_refused(corpus, release, api, people):
    client = api(people["manager"])
    response = client.get(f"/api/releases/{release.pk}/download/", {"format": "pdf"})
    assert response.status_code == 400 and response.json()["field"] == "format"
    pending = start_release(corpus, source="reviewed", strategy="label", actor=people["manager"])
    response = client.get(f"/api/releases/{pending.pk}/download/", {"format": "json"})
    assert response.status_code == 400 and response.json()["field"] == "release"


def test_a_session_post_needs_the_csrf_token(corpus, people, documents):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(people["manager"])
    response = client.post(
        "/api/releases/", {"corpus": corpus.pk, "source": "reviewed", "strategy": "label"}, format="json"
    )
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]
    assert not Release.objects.exists()


@pytest.mark.parametrize("role", ["manager", "ann"])
def test_release_operations_hold_under_their_schema(corpus, people, release, role):
    """The schema fuzz of ``test_schema_fuzz`` on the release operations, with the path
    ids aimed at this test's release and one of its documents (the shared fuzz corpus
    has no release): no server error, every documented answer matches its schema."""
    import schemathesis
    from django.core.signals import got_request_exception
    from rest_framework.authtoken.models import Token

    from tests.annotation.api.test_schema_fuzz import DjangoApp, _fuzz, api_schema, unthrottled

    ids = {"releases": release.pk, "release-documents": release.documents.first().pk}

    def aim(case):
        kind = case.operation.path.split("/")[2]
        if "id" in case.path_parameters:
            case.path_parameters["id"] = ids[kind]
        if isinstance(case.body, dict) and "corpus" in case.body:
            case.body["corpus"] = corpus.pk
        return case

    app = DjangoApp()
    schema = schemathesis.openapi.from_dict(api_schema())
    schema.app = app
    headers = {"Authorization": f"Token {Token.objects.create(user=people[role]).key}"}
    failures, succeeded, operations = {}, set(), []
    got_request_exception.connect(app.record)
    try:
        with unthrottled():
            for result in schema.get_all_operations():
                operation = result.ok()
                if operation.path.split("/")[2] in ids:
                    operations.append(operation.label)
                    _fuzz(operation, headers, aim, app, failures, succeeded)
    finally:
        got_request_exception.disconnect(app.record)
    assert len(operations) == 6, operations
    if role == "manager":
        # The requests reach the release itself, not only the validation.
        assert {"GET /api/releases/{id}/", "GET /api/releases/{id}/download/", "GET /api/release-documents/{id}/"} <= (
            succeeded
        )
    else:
        assert not succeeded - {"GET /api/releases/", "GET /api/release-documents/"}
    assert not failures, f"{len(failures)} failures:\n\n" + "\n\n".join(failures.values())


def test_listing_releases_counts_their_documents_without_a_query_per_release(
    corpus, people, documents, release, api, django_assert_max_num_queries
):
    # Two more releases: one finished, one left pending with both documents.
    finished = start_release(corpus, source="reviewed", strategy="label", actor=people["manager"])
    run_batch(finished.pk, [d.pk for d in documents.values()])
    start_release(corpus, source="reviewed", strategy="stars", actor=people["manager"])
    client = api(people["manager"])
    client.get("/api/releases/")  # the session and permission caches warmed
    with django_assert_max_num_queries(3):
        listed = client.get("/api/releases/", {"corpus": corpus.pk}).json()
    progress = {r["strategy"]: r["progress"] for r in listed["results"]}
    assert progress["placeholder"] == {"total": 2, "done": 2, "failed": 0, "pending": 0, "percent": 100}
    assert progress["label"] == progress["placeholder"]
    assert progress["stars"] == {"total": 2, "done": 0, "failed": 0, "pending": 2, "percent": 0}
