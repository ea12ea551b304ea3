"""Confirming from the workspace, the masked review, reopening; and My work."""

from django.test import Client

from annotation.enums import LayerStatus
from annotation.models import AuditEvent, MaskedReview
from annotation.services.mentions import create_mention
from tests.conftest import version

from .conftest import TEXT, at


def mask(layer, actor, text, occurrence=0, **kwargs):
    start, end = at(text, occurrence)
    kwargs.setdefault("identifier_type", "DIRECT")
    return create_mention(layer, actor=actor, start_offset=start, end_offset=end, entity_type="PERSON", **kwargs)


def test_the_dialog_lists_what_blocks_confirmation(layer, people, client_for):
    mask(layer, people["ann"], "Izmir", identifier_type=None)
    dialog = client_for(people["ann"]).get(f"/layers/{layer.pk}/confirm/").content.decode()
    assert "1 entity has no masking decision yet: “Izmir”" in dialog
    assert "“Galip Yalman”, is readable at 2 place(s)" in dialog
    assert 'id="confirm-submit" disabled' in dialog


def test_confirming_renders_the_masked_review(
    layer, people, client_for, eager_tasks, django_capture_on_commit_callbacks
):
    ann = people["ann"]
    mask(layer, ann, "Galip Yalman")
    mask(layer, ann, "Galip Yalman", occurrence=1)
    mask(layer, ann, "Izmir", identifier_type="QUASI")  # the second Izmir stays readable: a warning
    client = client_for(ann)
    layer.refresh_from_db()
    refused = client.post(f"/layers/{layer.pk}/confirm/do/", {"layer_version": layer.version})
    assert refused.status_code == 422 and "“Izmir” is masked but appears 1 more time(s)" in refused.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/layers/{layer.pk}/confirm/do/", {"layer_version": layer.version, "accept_warnings": "1"}
        )
    assert response.status_code == 204 and response["HX-Redirect"] == f"/layers/{layer.pk}/masked/"
    layer.refresh_from_db()
    assert layer.status == LayerStatus.CONFIRMED
    review = MaskedReview.objects.get(layer=layer)
    expected = TEXT
    for text, occurrence in (("Galip Yalman", 0), ("Galip Yalman", 1), ("Izmir", 0)):
        start, end = at(text, occurrence)
        expected = expected[:start] + "*" * (end - start) + expected[end:]
    assert review.masked_text == expected
    page_client = Client()
    page_client.force_login(ann)
    page = page_client.get(f"/layers/{layer.pk}/masked/").content.decode()
    assert "************" in page and "Galip" not in page.split('id="masked-review"')[1].split("</article>")[0]
    assert "Reopen to correct" in page


def test_reopening_returns_to_the_workspace(layer, people, client_for, eager_tasks):
    ann = people["ann"]
    mask(layer, ann, "Galip Yalman")
    mask(layer, ann, "Galip Yalman", occurrence=1)
    client = client_for(ann)
    assert client.post(f"/layers/{layer.pk}/confirm/do/", {"accept_warnings": "1"}).status_code == 400
    seen = {"accept_warnings": "1", "layer_version": version(layer)}
    confirmed = client.post(f"/layers/{layer.pk}/confirm/do/", seen)
    assert confirmed.status_code == 204
    page = client.get(f"/layers/{layer.pk}/").content.decode()
    assert 'data-editable="0"' in page and 'id="btn-reopen"' in page and "confirmed, so it is read-only" in page
    assert client.post(f"/layers/{layer.pk}/reopen/").status_code == 400  # no version: nothing happens
    response = client.post(f"/layers/{layer.pk}/reopen/", {"layer_version": version(layer)})
    assert response.status_code == 302 and response["Location"] == f"/layers/{layer.pk}/"
    layer.refresh_from_db()
    assert layer.status == LayerStatus.IN_PROGRESS
    assert AuditEvent.objects.filter(
        layer=layer, action="layer.status", changes__before="confirmed", changes__after="in_progress"
    ).exists()


def test_my_work_shows_progress_and_filters(layer, people, client_for):
    ann = people["ann"]
    mask(layer, ann, "Galip Yalman")
    mask(layer, ann, "Izmir", identifier_type=None)
    page = client_for(ann).get("/work/").content.decode()
    assert "ws-1" in page and "Galip Yalman" in page and "1 / 2" in page
    assert "ws-1" not in client_for(ann).get("/work/", {"status": "confirmed"}).content.decode()
    assert "ws-1" not in client_for(people["bob"]).get("/work/").content.decode()
