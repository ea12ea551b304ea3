"""Object-level permissions through the API, for every role, negative cases included."""

import json

import pytest
from rest_framework.test import APIClient

from annotation.enums import LayerStatus
from annotation.models import Mention
from tests.conftest import mask_person, version


def ids(response) -> set[int]:
    assert response.status_code == 200, response.content
    return {item["id"] for item in response.json()["results"]}


# --- anonymous -------------------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["/api/corpora/", "/api/documents/", "/api/layers/", "/api/mentions/", "/api/audit-events/"]
)
def test_anonymous_users_get_nothing(scenario, url):
    assert APIClient().get(url).status_code == 403


# --- annotator -------------------------------------------------------------------


def test_annotator_sees_only_her_own_layer(scenario, api):
    client = api(scenario["ann"])
    assert ids(client.get("/api/layers/")) == {scenario["ann_layer"].pk}
    for layer in (scenario["bob_layer"], scenario["imported_layer"]):
        assert client.get(f"/api/layers/{layer.pk}/").status_code == 404


def test_annotator_cannot_read_or_change_another_annotators_mentions(scenario, api):
    client = api(scenario["ann"])
    bob_mention = scenario["bob_mention"]
    bob_version = version(scenario["bob_layer"])
    assert ids(client.get("/api/mentions/")) == {scenario["ann_mention"].pk}
    assert client.get(f"/api/mentions/{bob_mention.pk}/").status_code == 404
    change = {"entity_type": "MISC", "layer_version": bob_version}
    assert client.patch(f"/api/mentions/{bob_mention.pk}/", change, format="json").status_code == 404
    assert client.delete(f"/api/mentions/{bob_mention.pk}/?layer_version={bob_version}").status_code == 404
    assert (
        client.patch(
            f"/api/entities/{bob_mention.entity_id}/",
            {"identifier_type": "NO_MASK", "layer_version": bob_version},
            format="json",
        ).status_code
        == 404
    )
    created = client.post(
        "/api/mentions/",
        {
            "layer": scenario["bob_layer"].pk,
            "start_offset": 0,
            "end_offset": 9,
            "entity_type": "MISC",
            "layer_version": bob_version,
        },
        format="json",
    )
    assert created.status_code == 404
    bob_mention.refresh_from_db()
    assert bob_mention.entity_type == "CODE" and bob_mention.identifier_type is None
    assert Mention.objects.filter(layer=scenario["bob_layer"]).count() == 1


def test_annotator_sees_only_documents_she_has_a_layer_on(scenario, api):
    client = api(scenario["ann"])
    assert ids(client.get("/api/documents/")) == {scenario["document"].pk}
    assert client.get(f"/api/documents/{scenario['other_document'].pk}/").status_code == 404


def test_annotator_changes_her_own_layer(scenario, api):
    client = api(scenario["ann"])
    layer = scenario["ann_layer"]
    response = client.post(
        "/api/mentions/",
        {
            "layer": layer.pk,
            "start_offset": 0,
            "end_offset": 9,
            "entity_type": "MISC",
            "layer_version": layer.version,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["span_text"] == scenario["document"].text[0:9].strip()
    assert body["layer_version"] == layer.version + 1
    decision = client.patch(
        f"/api/entities/{scenario['ann_mention'].entity_id}/",
        {
            "identifier_type": "DIRECT",
            "layer_version": body["layer_version"],
        },
        format="json",
    )
    assert decision.status_code == 200, decision.content
    assert decision.json()["identifier_type"] == "DIRECT"


def test_a_stale_edit_gets_409_with_the_current_version(scenario, api):
    client = api(scenario["ann"])
    layer = scenario["ann_layer"]
    response = client.patch(
        f"/api/mentions/{scenario['ann_mention'].pk}/",
        {"entity_type": "MISC", "layer_version": layer.version - 1},
        format="json",
    )
    assert response.status_code == 409
    assert response.json()["current_version"] == layer.version
    assert "changed by someone else" in response.json()["detail"]


def test_annotator_cannot_manage(scenario, api):
    client = api(scenario["ann"])
    corpus = scenario["corpus"]
    assert client.get(f"/api/corpora/{corpus.pk}/export/tab/").status_code == 403
    assert client.get(f"/api/corpora/{corpus.pk}/export/masks/", {"annotator": "annotator1"}).status_code == 403
    assert (
        client.post(
            "/api/layers/", {"document": scenario["document"].pk, "annotator": "bob_annotator"}, format="json"
        ).status_code
        == 403
    )
    assert (
        client.post(
            "/api/memberships/", {"corpus": corpus.pk, "user": "oscar_outsider", "role": "manager"}, format="json"
        ).status_code
        == 403
    )
    assert client.patch(f"/api/corpora/{corpus.pk}/", {"name": "mine"}, format="json").status_code == 403
    assert client.post("/api/corpora/", {"name": "new"}, format="json").status_code == 403


def test_annotator_reads_the_audit_trail_of_her_layer_only(scenario, api):
    events = api(scenario["ann"]).get("/api/audit-events/", {"page_size": 1000}).json()["results"]
    assert events and {event["layer"] for event in events} == {scenario["ann_layer"].pk}


def test_annotator_may_confirm_but_not_review_her_layer(scenario, api):
    client = api(scenario["ann"])
    layer = scenario["ann_layer"]
    mask_person(layer, scenario["ann"])
    decided = client.patch(
        f"/api/entities/{scenario['ann_mention'].entity_id}/",
        {"identifier_type": "DIRECT", "layer_version": version(layer)},
        format="json",
    )
    assert decided.status_code == 200
    reviewed = {"status": "reviewed", "layer_version": version(layer)}
    assert client.post(f"/api/layers/{layer.pk}/status/", reviewed, format="json").status_code == 403
    confirmed = {"status": "confirmed", "layer_version": version(layer)}
    response = client.post(f"/api/layers/{layer.pk}/status/", confirmed, format="json")
    assert response.status_code == 200 and response.json()["status"] == "confirmed"


# --- reviewer --------------------------------------------------------------------


def test_reviewer_sees_only_the_layers_she_is_paired_on(scenario, api):
    client = api(scenario["rita"])
    assert ids(client.get("/api/layers/")) == {scenario["ann_layer"].pk}
    assert client.get(f"/api/layers/{scenario['bob_layer'].pk}/").status_code == 404
    assert client.get(f"/api/mentions/{scenario['bob_mention'].pk}/").status_code == 404


def test_reviewer_corrects_only_once_confirmed_and_read_masked(scenario, api):
    client = api(scenario["rita"])
    layer, mention = scenario["ann_layer"], scenario["ann_mention"]
    mask_person(layer, scenario["ann"])

    def correct():
        return client.patch(
            f"/api/mentions/{mention.pk}/", {"entity_type": "MISC", "layer_version": version(layer)}, format="json"
        )

    refused = correct()
    assert refused.status_code == 403 and "masked document" in refused.json()["detail"]
    api(scenario["ann"]).patch(
        f"/api/entities/{mention.entity_id}/",
        {"identifier_type": "DIRECT", "layer_version": version(layer)},
        format="json",
    )
    confirmed = {"status": "confirmed", "layer_version": version(layer)}
    assert api(scenario["ann"]).post(f"/api/layers/{layer.pk}/status/", confirmed, format="json").status_code == 200
    # Confirmed, but the review order holds: the annotations stay hidden, writes are refused with the reason.
    assert client.get(f"/api/mentions/{mention.pk}/").status_code == 404
    assert client.get("/api/entities/", {"layer": layer.pk}).json()["results"] == []
    refused = correct()
    assert refused.status_code == 403 and "masked document" in refused.json()["detail"]
    reading = client.post(f"/api/layer-reviews/{layer.pk}/masked-reading/", {"reidentifiable": "no"}, format="json")
    assert reading.status_code == 200 and reading.json()["status"] == LayerStatus.UNDER_REVIEW
    assert client.get(f"/api/mentions/{mention.pk}/").status_code == 200
    response = correct()
    assert response.status_code == 200 and response.json()["entity_type"] == "MISC"
    events = api(scenario["ann"]).get("/api/audit-events/", {"action": "mention.update"}).json()["results"]
    assert [event["actor"] for event in events] == ["rita_reviewer"]  # the author sees who corrected


# --- manager ---------------------------------------------------------------------


def test_manager_sees_every_layer_of_her_corpus_but_nothing_else(scenario, api):
    client = api(scenario["manager"])
    assert ids(client.get("/api/layers/")) == {
        scenario["ann_layer"].pk,
        scenario["bob_layer"].pk,
        scenario["imported_layer"].pk,
    }
    assert client.get(f"/api/documents/{scenario['other_document'].pk}/").status_code == 404
    assert ids(client.get("/api/corpora/")) == {scenario["corpus"].pk}


def test_manager_changes_any_open_layer_and_reopens_a_reviewed_one_first(scenario, api):
    client = api(scenario["manager"])
    response = client.patch(
        f"/api/entities/{scenario['bob_mention'].entity_id}/",
        {"identifier_type": "QUASI", "layer_version": version(scenario["bob_layer"])},
        format="json",
    )
    assert response.status_code == 200
    imported = scenario["imported_layer"]
    assert imported.status == LayerStatus.REVIEWED
    mention = imported.mentions.first()

    def retype():
        change = {"entity_type": "MISC", "layer_version": version(imported)}
        return client.patch(f"/api/mentions/{mention.pk}/", change, format="json")

    refused = retype()
    assert refused.status_code == 403 and "reviewed" in refused.json()["detail"]
    reopened = client.post(
        f"/api/layers/{imported.pk}/status/",
        {"status": "under_review", "layer_version": version(imported)},
        format="json",
    )
    assert reopened.status_code == 200 and reopened.json()["status"] == "under_review"
    assert retype().status_code == 200


def test_manager_exports_assigns_and_adds_members(scenario, api):
    client = api(scenario["manager"])
    corpus = scenario["corpus"]
    export = client.get(f"/api/corpora/{corpus.pk}/export/tab/", {"layers": "all"})  # ann and bob are unfinished
    assert export.status_code == 200
    documents = json.loads(b"".join(export.streaming_content))
    assert [d["doc_id"] for d in documents] == ["001-79436"]
    assert set(documents[0]["annotations"]) == {"annotator1", "ann_annotator", "bob_annotator"}
    masks = client.get(f"/api/corpora/{corpus.pk}/export/masks/", {"annotator": "annotator1"})
    assert masks.status_code == 200 and [54, 62] in masks.json()["001-79436"]
    member = client.post(
        "/api/memberships/", {"corpus": corpus.pk, "user": "oscar_outsider", "role": "annotator"}, format="json"
    )
    assert member.status_code == 201
    layer = client.post(
        "/api/layers/", {"document": scenario["document"].pk, "annotator": "oscar_outsider"}, format="json"
    )
    assert layer.status_code == 201 and layer.json()["status"] == "assigned"


def test_a_manager_of_another_corpus_cannot_reach_this_one(scenario, api):
    client = api(scenario["outsider"])
    corpus = scenario["corpus"]
    assert client.get(f"/api/corpora/{corpus.pk}/").status_code == 404
    assert client.get(f"/api/corpora/{corpus.pk}/export/tab/").status_code == 404
    assert client.get(f"/api/layers/{scenario['ann_layer'].pk}/").status_code == 404
    assert (
        client.post(
            "/api/layers/", {"document": scenario["document"].pk, "annotator": "oscar_outsider"}, format="json"
        ).status_code
        == 404
    )
    # A corpus out of reach in a command is refused like one that does not exist (400
    # naming the field), not with a 403 that would confirm it exists.
    joining = client.post(
        "/api/memberships/", {"corpus": corpus.pk, "user": "oscar_outsider", "role": "manager"}, format="json"
    )
    assert joining.status_code == 400 and list(joining.json()) == ["corpus"]


def test_manager_with_the_site_permission_creates_a_corpus_and_manages_it(scenario, api):
    response = api(scenario["manager"]).post("/api/corpora/", {"name": "New cases"}, format="json")
    assert response.status_code == 201, response.content
    roles = api(scenario["manager"]).get("/api/memberships/", {"corpus": response.json()["id"]}).json()["results"]
    assert [(m["user"], m["role"]) for m in roles] == [("mia_manager", "manager")]
