"""The corpus page's "Background for re-identification": managers choose a collection
(or none) by a CSRF-protected POST; others cannot."""

import pytest
from django.test import Client

from annotation.models import AuditEvent, BackgroundDocument

pytestmark = pytest.mark.django_db


@pytest.fixture
def collections():
    for i in range(3):
        BackgroundDocument.objects.create(collection="actors", url=f"a:{i}", title=f"Actor {i}", text="An actor.")
    BackgroundDocument.objects.create(collection="judges", url="j:1", title="Judge", text="A judge.")


def client_for(user, **options) -> Client:
    client = Client(**options)
    client.force_login(user)
    return client


def test_managers_see_the_collections_with_their_counts(corpus, people, collections):
    page = client_for(people["manager"]).get(f"/corpora/{corpus.pk}/").content.decode()
    assert "Background for re-identification" in page
    assert '<option value="actors">actors (3 documents)</option>' in page
    assert '<option value="judges">judges (1 document)</option>' in page
    assert "none (no risk meter)" in page
    annotator_page = client_for(people["ann"]).get(f"/corpora/{corpus.pk}/").content.decode()
    assert "Background for re-identification" not in annotator_page


def test_a_manager_chooses_a_collection_and_it_is_audited(corpus, people, collections):
    response = client_for(people["manager"]).post(
        f"/corpora/{corpus.pk}/background/", {"background_collection": "actors"}, follow=True
    )
    corpus.refresh_from_db()
    assert corpus.background_collection == "actors"
    assert "now learns from &#x27;actors&#x27;" in response.content.decode()
    assert '<option value="actors" selected>' in response.content.decode()
    assert AuditEvent.objects.filter(action="corpus.background", actor=people["manager"], target="actors").exists()


def test_an_unknown_collection_is_refused_by_name(corpus, people, collections):
    response = client_for(people["manager"]).post(
        f"/corpora/{corpus.pk}/background/", {"background_collection": "actresses"}, follow=True
    )
    corpus.refresh_from_db()
    assert corpus.background_collection == ""
    assert "no background collection named &#x27;actresses&#x27;" in response.content.decode()


def test_others_cannot_choose(corpus, people, collections):
    url = f"/corpora/{corpus.pk}/background/"
    assert client_for(people["ann"]).post(url, {"background_collection": "actors"}).status_code == 403
    assert client_for(people["outsider"]).post(url, {"background_collection": "actors"}).status_code == 404
    forged = client_for(people["manager"], enforce_csrf_checks=True).post(url, {"background_collection": "actors"})
    assert forged.status_code == 403
    corpus.refresh_from_db()
    assert corpus.background_collection == ""
