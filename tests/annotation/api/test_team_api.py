"""The team and assignment endpoints: managers of the corpus only (404 for non-members,
403 for other members), each operation through the services."""

import json

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from annotation.enums import LayerStatus, Role
from annotation.models import AnnotationLayer, CorpusMembership
from annotation.services.layers import assign_layer
from annotation.services.mentions import create_mention
from tests.conftest import make_user


def url(corpus, tail: str = "") -> str:
    return f"/api/corpora/{corpus.pk}/{tail}"


# --- Who may call them -----------------------------------------------------------------

TEAM_CALLS = [
    ("get", "members/", None),
    ("post", "members/", {"user": "oscar_outsider", "roles": ["annotator"]}),
    ("patch", "members/bob_annotator/", {"roles": ["reviewer"]}),
    ("delete", "members/bob_annotator/", None),
    ("post", "members/bob_annotator/activate/", None),
    ("post", "members/bob_annotator/deactivate/", None),
    ("post", "accounts/", {"username": "newbie", "roles": ["annotator"]}),
    ("post", "accounts/activate/", {}),
    ("post", "assignments/", {"strategy": "round_robin", "documents": [], "annotators": ["bob_annotator"]}),
]


@pytest.mark.parametrize(("method", "tail", "body"), TEAM_CALLS)
def test_non_members_get_404_and_members_who_do_not_manage_get_403(desk, api, method, tail, body):
    for who, expected in (("outsider", 404), ("ann", 403), ("rita", 403)):
        response = getattr(api(desk[who]), method)(url(desk["corpus"], tail), body, format="json")
        assert response.status_code == expected, (who, response.content)
    assert CorpusMembership.objects.filter(corpus=desk["corpus"], user=desk["bob"], role=Role.ANNOTATOR).exists()
    assert not get_user_model().objects.filter(username="newbie").exists()


def test_writes_need_the_csrf_token_with_a_session(desk):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(desk["manager"])
    response = client.post(url(desk["corpus"], "accounts/"), {"username": "newbie", "roles": ["annotator"]})
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]


# --- Members ---------------------------------------------------------------------------


def test_members_lists_the_overview_fields(desk, api):
    assign_layer(desk["docs"][0], desk["ann"], actor=desk["manager"])
    rows = {row["username"]: row for row in api(desk["manager"]).get(url(desk["corpus"], "members/")).json()}
    assert list(rows) == ["ann_annotator", "bob_annotator", "cleo_annotator", "mia_manager", "rita_reviewer"]
    assert rows["ann_annotator"] | {"last_activity": None} == {
        "username": "ann_annotator",
        "first_name": "",
        "last_name": "",
        "email": "",
        "roles": ["annotator"],
        "is_active": True,
        "last_activity": None,
        "assigned": 1,
        "in_progress": 0,
        "finished": 0,
        "in_review": 0,
        "withdrawn": 0,
    }


def test_add_an_existing_account_with_roles(desk, api):
    response = api(desk["manager"]).post(
        url(desk["corpus"], "members/"), {"user": "oscar_outsider", "roles": ["annotator", "reviewer"]}, format="json"
    )
    assert response.status_code == 201 and response.json()["roles"] == ["annotator", "reviewer"]


def test_change_roles_and_the_last_manager_rule(desk, api):
    client = api(desk["manager"])
    changed = client.patch(url(desk["corpus"], "members/bob_annotator/"), {"roles": ["reviewer"]}, format="json")
    assert changed.status_code == 200 and changed.json()["roles"] == ["reviewer"]
    refused = client.patch(url(desk["corpus"], "members/mia_manager/"), {"roles": ["annotator"]}, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == "roles"
    assert "last active manager of corpus ECHR test" in refused.json()["detail"]
    assert client.delete(url(desk["corpus"], "members/mia_manager/")).status_code == 400


def test_removing_one_role_through_memberships_follows_the_same_rules(desk, api):
    client = api(desk["manager"])
    mine = CorpusMembership.objects.get(corpus=desk["corpus"], user=desk["manager"])
    refused = client.delete(f"/api/memberships/{mine.pk}/")
    assert refused.status_code == 400 and "last active manager" in refused.json()["detail"]
    bob = CorpusMembership.objects.get(corpus=desk["corpus"], user=desk["bob"])
    assert client.delete(f"/api/memberships/{bob.pk}/").status_code == 204
    assert not CorpusMembership.objects.filter(corpus=desk["corpus"], user=desk["bob"]).exists()


def test_remove_a_member_and_a_non_member_is_404(desk, api):
    client = api(desk["manager"])
    assert client.delete(url(desk["corpus"], "members/bob_annotator/")).status_code == 204
    assert not CorpusMembership.objects.filter(corpus=desk["corpus"], user=desk["bob"]).exists()
    assert client.delete(url(desk["corpus"], "members/bob_annotator/")).status_code == 404
    assert client.delete(url(desk["corpus"], "members/nobody/")).status_code == 404


def test_create_an_account_answers_an_absolute_one_time_link(desk, api):
    response = api(desk["manager"]).post(
        url(desk["corpus"], "accounts/"),
        {"username": "nora", "first_name": "Nora", "email": "nora@example.org", "roles": ["annotator"]},
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    assert body["username"] == "nora" and body["is_active"] is True
    assert body["set_password_url"].startswith("http://testserver/accounts/set-password/")
    taken = api(desk["manager"]).post(url(desk["corpus"], "accounts/"), {"username": "nora", "roles": ["annotator"]})
    assert taken.status_code == 400 and taken.json() == {"detail": "The username 'nora' is taken: choose another.",
                                                          "field": "username"}  # fmt: skip


def test_activate_one_or_all_and_deactivate(desk, api):
    sleepers = [make_user(name, active=False) for name in ("annotator2", "annotator10", "annotator3")]
    for user in sleepers:
        CorpusMembership.objects.create(corpus=desk["corpus"], user=user, role=Role.ANNOTATOR)
    client = api(desk["manager"])
    one = client.post(url(desk["corpus"], "members/annotator3/activate/"))
    assert one.status_code == 200 and one.json()["username"] == "annotator3" and one.json()["is_active"]
    rest = client.post(url(desk["corpus"], "accounts/activate/"), {}, format="json")
    assert [row["username"] for row in rest.json()] == ["annotator2", "annotator10"]
    assert not get_user_model().objects.filter(username__startswith="annotator", is_active=False).exists()
    assert client.post(url(desk["corpus"], "members/annotator2/deactivate/")).status_code == 204
    assert not get_user_model().objects.get(username="annotator2").is_active
    own = client.post(url(desk["corpus"], "members/mia_manager/deactivate/"))
    assert own.status_code == 400 and "your own account" in own.json()["detail"]


# --- Bulk assignment -------------------------------------------------------------------


def assignment_body(desk, **changes):
    body = {
        "strategy": "balanced",
        "documents": [doc.pk for doc in desk["docs"]],
        "annotators": ["ann_annotator", "bob_annotator", "cleo_annotator"],
        "per_document": 2,
    }
    return body | changes


def test_bulk_assignment_preview_changes_nothing(desk, api):
    response = api(desk["manager"]).post(url(desk["corpus"], "assignments/"), assignment_body(desk), format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["preview"] is True
    a, b, c = "ann_annotator", "bob_annotator", "cleo_annotator"
    assert [(pair["doc_id"], pair["annotator"]) for pair in body["pairs"]] == [
        ("d1", a), ("d1", b), ("d2", a), ("d2", c), ("d3", b), ("d3", c), ("d4", a), ("d4", b), ("d5", a), ("d5", c),
    ]  # fmt: skip
    assert body["loads_before"] == {a: 0, b: 0, c: 0} and body["loads_after"] == {a: 4, b: 3, c: 3}
    assert not AnnotationLayer.objects.exists()


def test_bulk_assignment_applied_creates_the_layers(desk, api):
    response = api(desk["manager"]).post(
        url(desk["corpus"], "assignments/"), assignment_body(desk, preview=False), format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["preview"] is False and len(body["pairs"]) == 10
    created = {(pair["doc_id"], pair["annotator"]): pair["layer"] for pair in body["pairs"]}
    assert set(AnnotationLayer.objects.values_list("id", flat=True)) == set(created.values())
    assert body["loads_after"] == {"ann_annotator": 4, "bob_annotator": 3, "cleo_annotator": 3}
    # Again: every pair exists now; nothing is added and the existing ones are reported.
    again = api(desk["manager"]).post(
        url(desk["corpus"], "assignments/"), assignment_body(desk, preview=False), format="json"
    )
    assert again.json()["pairs"] == [] and len(again.json()["skipped"]) == 10
    assert AnnotationLayer.objects.count() == 10


def test_bulk_assignment_explicit_pairs(desk, api):
    pairs = [{"document": desk["docs"][4].pk, "annotator": "cleo_annotator"}]
    response = api(desk["manager"]).post(
        url(desk["corpus"], "assignments/"), {"strategy": "explicit", "pairs": pairs, "preview": False}, format="json"
    )
    assert response.status_code == 201
    assert list(AnnotationLayer.objects.values_list("document__doc_id", "annotator__username")) == [
        ("d5", "cleo_annotator")
    ]


def test_bulk_assignment_refusals_name_the_field(desk, api):
    client = api(desk["manager"])
    too_many = client.post(url(desk["corpus"], "assignments/"), assignment_body(desk, per_document=4), format="json")
    assert too_many.status_code == 400 and too_many.json()["field"] == "per_document"
    reviewer = client.post(
        url(desk["corpus"], "assignments/"), assignment_body(desk, annotators=["rita_reviewer"]), format="json"
    )
    assert reviewer.status_code == 400 and reviewer.json() == {
        "detail": "rita_reviewer is not an annotator of corpus ECHR test.",
        "field": "annotators",
    }


# --- Withdraw and hand over ---------------------------------------------------------------


def test_withdraw_an_unstarted_and_a_started_layer(desk, api):
    unstarted = assign_layer(desk["docs"][0], desk["ann"], actor=desk["manager"])
    begun = assign_layer(desk["docs"][1], desk["ann"], actor=desk["manager"])
    create_mention(begun, actor=desk["ann"], start_offset=0, end_offset=2, entity_type="MISC")
    client = api(desk["manager"])
    first = client.post(f"/api/layers/{unstarted.pk}/withdraw/")
    assert first.json() == {"result": "deleted", "layer": unstarted.pk}
    second = client.post(f"/api/layers/{begun.pk}/withdraw/")
    assert second.json() == {"result": "withdrawn", "layer": begun.pk}
    shown = client.get(f"/api/layers/{begun.pk}/").json()
    assert shown["status"] == "withdrawn" and shown["mention_count"] == 1
    # The annotator's write is refused: read-only.
    mention = begun.mentions.get()
    edit = api(desk["ann"]).patch(
        f"/api/mentions/{mention.pk}/", {"entity_type": "LOC", "layer_version": shown["version"]}, format="json"
    )
    assert edit.status_code == 403 and "withdrawn" in edit.json()["detail"]


def test_hand_over_a_started_layer(desk, api):
    layer = assign_layer(desk["docs"][0], desk["ann"], actor=desk["manager"])
    create_mention(layer, actor=desk["ann"], start_offset=0, end_offset=2, entity_type="MISC")
    response = api(desk["manager"]).post(
        f"/api/layers/{layer.pk}/hand-over/", {"annotator": "bob_annotator"}, format="json"
    )
    assert response.status_code == 200
    assert (response.json()["annotator"], response.json()["status"]) == ("bob_annotator", LayerStatus.IN_PROGRESS)
    assert api(desk["bob"]).get(f"/api/layers/{layer.pk}/").status_code == 200
    assert api(desk["ann"]).get(f"/api/layers/{layer.pk}/").status_code == 404


def test_only_managers_withdraw_or_hand_over(desk, api):
    layer = assign_layer(desk["docs"][0], desk["ann"], actor=desk["manager"])
    assert api(desk["ann"]).post(f"/api/layers/{layer.pk}/withdraw/").status_code == 403
    assert api(desk["outsider"]).post(f"/api/layers/{layer.pk}/withdraw/").status_code == 404
    handing = {"annotator": "bob_annotator"}
    assert api(desk["ann"]).post(f"/api/layers/{layer.pk}/hand-over/", handing, format="json").status_code == 403
    assert api(desk["bob"]).post(f"/api/layers/{layer.pk}/hand-over/", handing, format="json").status_code == 404
    layer.refresh_from_db()
    assert (layer.annotator, layer.status) == (desk["ann"], LayerStatus.ASSIGNED)


def test_a_withdrawn_layer_never_counts_as_finished(desk, api):
    # A withdrawn layer of cleo next to a confirmed one of bob on the same document: the
    # export of finished layers has bob's only.
    document = desk["docs"][0]
    AnnotationLayer.objects.create(document=document, annotator=desk["bob"], status=LayerStatus.CONFIRMED)
    AnnotationLayer.objects.create(document=document, annotator=desk["cleo"], status=LayerStatus.WITHDRAWN)
    response = api(desk["manager"]).get(url(desk["corpus"], "export/tab/"))
    exported = json.loads(b"".join(response.streaming_content) if response.streaming else response.content)
    annotators = {item["doc_id"]: sorted(item["annotations"]) for item in exported}
    assert annotators == {"d1": ["bob_annotator"], "d2": [], "d3": [], "d4": [], "d5": []}
