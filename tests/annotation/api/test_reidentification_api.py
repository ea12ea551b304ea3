"""Re-identification runs in the REST API: a manager starts one on a release (202) and
reads its results and outcomes; nobody else sees runs or may start one, and a manager
removed from the corpus loses them at the next request."""

import pytest

from annotation.enums import Role
from annotation.models import CorpusMembership, ReidentificationRun
from tests.conftest import make_user
from tests.support.five_people import EXPECTED_TRIR
from tests.support.five_people_corpus import COLLECTION, background_release

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]


@pytest.fixture
def release(corpus, people):
    return background_release(corpus)


def start(client, release, capture, **extra):
    with capture(execute=True):
        return client.post("/api/reidentification-runs/", {"release": release.pk, **extra}, format="json")


def test_a_manager_starts_a_run_and_reads_its_outcomes(release, people, api, django_capture_on_commit_callbacks):
    client = api(people["manager"])
    response = start(client, release, django_capture_on_commit_callbacks, attacker="tfidf-svc")
    assert response.status_code == 202, response.content
    body = response.json()
    assert (body["status"], body["attacker"], body["release"], body["source"]) == (
        "pending", "tfidf-svc", release.pk, "release",
    )  # fmt: skip
    run = client.get(f"/api/reidentification-runs/{body['id']}/").json()
    assert run["status"] == "succeeded" and run["results"]["TRIR"] == pytest.approx(EXPECTED_TRIR)
    assert run["background_collection"] == COLLECTION and run["created_by"] == people["manager"].username
    ranks = {outcome["doc_id"]: outcome["rank"] for outcome in run["outcomes"]}
    assert len(ranks) == 5 and ranks["doc-ada"] == 1 and ranks["doc-dora"] > 1
    listed = client.get("/api/reidentification-runs/", {"release": release.pk}).json()
    assert [item["id"] for item in listed["results"]] == [body["id"]] and "outcomes" not in listed["results"][0]


def test_a_release_without_background_is_refused_naming_the_field(
    release, people, api, django_capture_on_commit_callbacks
):
    release.corpus.background_collection = ""
    release.corpus.save()
    response = start(api(people["manager"]), release, django_capture_on_commit_callbacks)
    assert response.status_code == 400
    assert response.json()["field"] == "background_collection"
    assert not ReidentificationRun.objects.exists()


def test_members_who_do_not_manage_and_outsiders_neither_see_nor_start_runs(
    release, people, api, django_capture_on_commit_callbacks
):
    start(api(people["manager"]), release, django_capture_on_commit_callbacks)
    run = ReidentificationRun.objects.get()
    for name in ("ann", "rita", "outsider"):
        client = api(people[name])
        assert client.get("/api/reidentification-runs/").json()["results"] == [], name
        assert client.get(f"/api/reidentification-runs/{run.pk}/").status_code == 404, name
        response = start(client, release, django_capture_on_commit_callbacks)
        assert response.status_code == 400 and "release" in response.json(), name
    assert ReidentificationRun.objects.count() == 1


def test_a_removed_manager_loses_the_runs_at_the_next_request(release, people, api, django_capture_on_commit_callbacks):
    removed = make_user("rémi_removed")
    membership = CorpusMembership.objects.create(corpus=release.corpus, user=removed, role=Role.MANAGER)
    client = api(removed)
    response = start(client, release, django_capture_on_commit_callbacks)
    assert response.status_code == 202
    assert client.get(f"/api/reidentification-runs/{response.json()['id']}/").status_code == 200
    membership.delete()
    assert client.get(f"/api/reidentification-runs/{response.json()['id']}/").status_code == 404
    assert client.get("/api/reidentification-runs/").json()["results"] == []
