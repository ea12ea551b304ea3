"""The pair review over the API: the same rules as the pages, errors that name the
field, and nobody outside the layer's pair (or its managers) sees the notes."""

import pytest

from annotation.enums import LayerStatus
from annotation.models import AnnotationLayer, Document, ReviewPair
from annotation.services.layers import change_layer_status
from annotation.services.mentions import create_mention
from tests.conftest import version

TEXT = "Mr John Smith was born in 1961 in Oslo."


@pytest.fixture
def in_review(corpus, people, api):
    """ann's confirmed layer, paired with bob through the API."""
    document = Document.objects.create(corpus=corpus, doc_id="case-1", text=TEXT, person_to_protect="John Smith")
    layer = AnnotationLayer.objects.create(document=document, annotator=people["ann"])
    create_mention(
        layer, actor=people["ann"], start_offset=0, end_offset=13, entity_type="PERSON", identifier_type="DIRECT"
    )
    change_layer_status(layer, LayerStatus.CONFIRMED, actor=people["ann"])
    created = api(people["manager"]).post(
        "/api/review-pairs/", {"corpus": corpus.pk, "first": "ann_annotator", "second": "bob_annotator"}, format="json"
    )
    assert created.status_code == 201, created.json()
    return layer


def test_pairs_are_made_by_managers_only(corpus, people, api):
    refused = api(people["ann"]).post(
        "/api/review-pairs/", {"corpus": corpus.pk, "first": "ann_annotator", "second": "bob_annotator"}, format="json"
    )
    assert refused.status_code == 403
    same = api(people["manager"]).post(
        "/api/review-pairs/", {"corpus": corpus.pk, "first": "ann_annotator", "second": "ann_annotator"}, format="json"
    )
    assert same.status_code == 400 and "themselves" in same.json()["detail"]
    assert ReviewPair.objects.count() == 0


def test_a_review_over_the_api(in_review, people, api):
    layer, bob, ann = in_review, api(people["bob"]), api(people["ann"])
    assert api(people["rita"]).get(f"/api/layer-reviews/{layer.pk}/").status_code == 404
    reading = bob.post(f"/api/layer-reviews/{layer.pk}/masked-reading/", {"reidentifiable": "no"}, format="json")
    assert reading.status_code == 200 and reading.json()["status"] == LayerStatus.UNDER_REVIEW
    mention = layer.mentions.get()
    empty = bob.post(f"/api/layer-reviews/{layer.pk}/notes/", {"body": "", "mention": mention.pk}, format="json")
    assert empty.status_code == 400 and empty.json()["field"] == "body"
    note = bob.post(f"/api/layer-reviews/{layer.pk}/notes/", {"body": "Title?", "mention": mention.pk}, format="json")
    assert note.status_code == 201 and note.json()["anchor"] == "Mr John Smith"
    note_id = note.json()["id"]
    assert api(people["rita"]).get(f"/api/review-notes/{note_id}/").status_code == 404
    unversioned = bob.post(f"/api/layer-reviews/{layer.pk}/confirm/", format="json")
    assert unversioned.status_code == 400 and "layer_version" in unversioned.json()
    blocked = bob.post(f"/api/layer-reviews/{layer.pk}/confirm/", {"layer_version": version(layer)}, format="json")
    assert blocked.status_code == 400 and blocked.json()["field"] == "notes"
    settled = ann.post(f"/api/review-notes/{note_id}/settle/", {"status": "kept", "body": "TAB keeps titles."})
    assert settled.status_code == 200
    assert [c["body"] for c in settled.json()["comments"]] == ["Title?", "TAB keeps titles."]
    signed = bob.post(f"/api/layer-reviews/{layer.pk}/confirm/", {"layer_version": version(layer)})
    assert signed.json()["reviewers_confirmed"] == ["bob_annotator"]
    done = ann.post(f"/api/layer-reviews/{layer.pk}/confirm/", {"layer_version": version(layer)}).json()
    assert done["quality_checked"] is True and done["status"] == LayerStatus.REVIEWED
    assert api(people["manager"]).get(f"/api/layers/{layer.pk}/").json()["quality_checked"] is True
