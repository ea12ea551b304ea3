"""Membership changes revoke access at once: after removal from a corpus, or after the
account is deactivated, every endpoint and page of that corpus answers 404 (or, for a
session of a deactivated account, treats the user as logged out), while the manager
still sees the layers of the member who left."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotation.enums import LayerStatus
from annotation.models import AuditEvent, ReviewThread
from annotation.services import team
from tests.conftest import version


@pytest.fixture
def world(scenario):
    """ann's layer (with her mention) under review by rita, with a note rita opened."""
    layer = scenario["ann_layer"]
    type(layer).objects.filter(pk=layer.pk).update(status=LayerStatus.UNDER_REVIEW)
    layer.review_assignments.update(masked_read_at="2024-01-01T00:00:00Z")
    thread = ReviewThread.objects.create(
        layer=layer, mention=scenario["ann_mention"], anchor="the application number", opened_by=scenario["rita"]
    )
    audit = AuditEvent.objects.filter(layer=layer).order_by("id").first()
    return {**scenario, "thread": thread, "audit": audit}


# (method, url template, body): each reaches ann's layer, its document or its corpus.
API_ENDPOINTS = [
    ("get", "/api/corpora/{corpus}/", None),
    ("get", "/api/documents/{document}/", None),
    ("get", "/api/layers/{layer}/", None),
    ("post", "/api/layers/{layer}/status/", {"status": "confirmed", "layer_version": "{version}"}),
    ("get", "/api/mentions/{mention}/", None),
    ("patch", "/api/mentions/{mention}/", {"entity_type": "MISC", "layer_version": "{version}"}),
    ("delete", "/api/mentions/{mention}/?layer_version={version}", None),
    ("get", "/api/entities/{entity}/", None),
    ("patch", "/api/entities/{entity}/", {"identifier_type": "DIRECT", "layer_version": "{version}"}),
    ("get", "/api/audit-events/{audit}/", None),
    ("get", "/api/layer-reviews/{layer}/", None),
    ("get", "/api/layer-reviews/{layer}/notes/", None),
    ("post", "/api/layer-reviews/{layer}/notes/", {"body": "again", "mention": "{mention}"}),
    ("post", "/api/layer-reviews/{layer}/confirm/", {"layer_version": "{version}"}),
    ("get", "/api/review-notes/{thread}/", None),
    ("post", "/api/review-notes/{thread}/reply/", {"body": "still here?"}),
    ("post", "/api/review-notes/{thread}/settle/", {"status": "kept", "body": ""}),
]
API_LISTS = ["/api/documents/", "/api/layers/", "/api/mentions/", "/api/entities/", "/api/audit-events/"]
PAGES = ["/corpora/{corpus}/", "/documents/{document}/", "/layers/{layer}/", "/layers/{layer}/review/"]


def fill(template, world):
    values = {
        "corpus": world["corpus"].pk,
        "document": world["document"].pk,
        "layer": world["ann_layer"].pk,
        "mention": world["ann_mention"].pk,
        "entity": world["ann_mention"].entity_id,
        "audit": world["audit"].pk,
        "thread": world["thread"].pk,
        "version": version(world["ann_layer"]),
    }
    if isinstance(template, dict):
        return {key: _typed(fill(value, world)) if isinstance(value, str) else value for key, value in template.items()}
    return template.format(**values)


def _typed(value: str):
    return int(value) if value.isdigit() else value


def call(client, method, url, body):
    return getattr(client, method)(url, body, format="json") if body is not None else getattr(client, method)(url)


def reachable_before(world, who: str):
    """The endpoints the user reached before the change (so the test proves a change)."""
    client = APIClient()
    client.force_authenticate(world[who])
    assert client.get(fill("/api/layers/{layer}/", world)).status_code == 200
    assert client.get(fill("/api/review-notes/{thread}/", world)).status_code == 200


@pytest.mark.parametrize(("method", "url", "body"), API_ENDPOINTS)
@pytest.mark.parametrize("who", ["ann", "rita"])
def test_a_removed_member_gets_404_on_every_endpoint_of_the_corpus(world, who, method, url, body):
    reachable_before(world, who)
    team.remove_member(world["corpus"], world[who], actor=world["manager"])
    client = APIClient()
    client.force_authenticate(world[who])
    response = call(client, method, fill(url, world), fill(body, world) if body else None)
    assert response.status_code == 404, (method, url, response.status_code, response.content[:200])


@pytest.mark.parametrize(("method", "url", "body"), API_ENDPOINTS)
@pytest.mark.parametrize("who", ["ann", "rita"])
def test_a_deactivated_account_gets_404_on_every_endpoint(world, who, method, url, body):
    reachable_before(world, who)
    team.deactivate_account(world["corpus"], world[who], actor=world["manager"])
    world[who].refresh_from_db()
    client = APIClient()
    client.force_authenticate(world[who])  # a token or session still held
    response = call(client, method, fill(url, world), fill(body, world) if body else None)
    assert response.status_code == 404, (method, url, response.status_code, response.content[:200])


@pytest.mark.parametrize("how", ["removed", "deactivated"])
def test_lists_of_the_api_show_nothing_of_the_corpus_afterwards(world, how):
    ann = world["ann"]
    if how == "removed":
        team.remove_member(world["corpus"], ann, actor=world["manager"])
    else:
        team.deactivate_account(world["corpus"], ann, actor=world["manager"])
        ann.refresh_from_db()
    client = APIClient()
    client.force_authenticate(ann)
    for url in API_LISTS:
        response = client.get(url)
        assert response.status_code == 200 and response.json()["results"] == [], url
    assert client.get("/api/corpora/").json()["results"] == []


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("who", ["ann", "rita"])
def test_a_removed_member_gets_404_on_the_pages_of_the_corpus(world, who, page):
    client = Client()
    client.force_login(world[who])
    url = fill(page, world)
    before = client.get(url)
    # Reached before (the author is told the review page is not theirs: 403, not 404).
    assert before.status_code in (200, 302, 403), before.status_code
    team.remove_member(world["corpus"], world[who], actor=world["manager"])
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("page", PAGES)
def test_a_deactivated_accounts_session_ends_on_every_page(world, page):
    client = Client()
    client.force_login(world["ann"])
    team.deactivate_account(world["corpus"], world["ann"], actor=world["manager"])
    response = client.get(fill(page, world))
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_a_deactivated_accounts_session_is_refused_by_the_api(world):
    client = APIClient()
    client.force_login(world["ann"])
    assert client.get(fill("/api/layers/{layer}/", world)).status_code == 200
    team.deactivate_account(world["corpus"], world["ann"], actor=world["manager"])
    assert client.get(fill("/api/layers/{layer}/", world)).status_code == 403


def test_a_removed_member_no_longer_lists_the_layers_on_home_and_my_work(world):
    client = Client()
    client.force_login(world["ann"])
    doc_id = world["document"].doc_id
    assert doc_id in client.get("/work/?status=all").content.decode()
    team.remove_member(world["corpus"], world["ann"], actor=world["manager"])
    for url in ("/", "/work/?status=all"):
        assert doc_id not in client.get(url).content.decode(), url


def test_the_manager_still_sees_and_handles_the_removed_members_layer(world):
    team.remove_member(world["corpus"], world["ann"], actor=world["manager"])
    client = APIClient()
    client.force_authenticate(world["manager"])
    layer = client.get(fill("/api/layers/{layer}/", world))
    assert layer.status_code == 200 and layer.json()["annotator"] == "ann_annotator"
    assert client.get(fill("/api/mentions/{mention}/", world)).status_code == 200
    page = Client()
    page.force_login(world["manager"])
    assert page.get(fill("/layers/{layer}/", world)).status_code == 200


def test_other_members_keep_their_access(world):
    team.remove_member(world["corpus"], world["ann"], actor=world["manager"])
    client = APIClient()
    client.force_authenticate(world["bob"])
    assert client.get(f"/api/layers/{world['bob_layer'].pk}/").status_code == 200


def test_an_annotator_who_loses_only_the_annotator_role_loses_their_layers(world):
    # ann stays a member (as reviewer) but no longer annotates: her layer is shut to her.
    team.set_roles(world["corpus"], world["ann"], ["reviewer"], actor=world["manager"])
    client = APIClient()
    client.force_authenticate(world["ann"])
    assert client.get(fill("/api/layers/{layer}/", world)).status_code == 404
    assert client.get(fill("/api/corpora/{corpus}/", world)).status_code == 200  # still a member
