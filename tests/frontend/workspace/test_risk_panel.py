"""The workspace's risk meter panel (layers/<pk>/risk/): shown to whoever may see the
layer, for the layer as it is now; absent without a background."""

import pytest

from annotation.models import Corpus, Entity
from annotation.tasks import compute_layer_risk
from tests.support.risk_layer import harrowgate_layer

pytestmark = pytest.mark.django_db


def test_the_annotator_reads_the_rank_and_the_mask_button(
    corpus, people, client_for, django_capture_on_commit_callbacks
):
    layer = harrowgate_layer(corpus, people["ann"])
    client = client_for(people["ann"])
    page = client.get(f"/layers/{layer.pk}/").content.decode()
    assert f'hx-get="/layers/{layer.pk}/risk/"' in page and 'data-side-tab="risk"' in page
    with django_capture_on_commit_callbacks() as enqueued:
        pending = client.get(f"/layers/{layer.pk}/risk/").content.decode()
    assert 'data-state="pending"' in pending and "every 2s" in pending
    assert len(enqueued) == 1
    compute_layer_risk(layer.pk, layer.version)  # the task, run here
    ready = client.get(f"/layers/{layer.pk}/risk/", {"version": layer.version}).content.decode()
    assert 'data-state="ready"' in ready and "every 2s" not in ready
    assert "rank 1 of 5" in ready and "named: the attacker's first guess" in ready
    entity = Entity.objects.get(layer=layer)
    assert f'data-action="decision" data-entity="{entity.pk}" data-field="identifier_type" data-value="QUASI"' in ready


def test_another_annotators_layer_is_not_found(corpus, people, client_for):
    layer = harrowgate_layer(corpus, people["ann"])
    assert client_for(people["bob"]).get(f"/layers/{layer.pk}/risk/").status_code == 404
    assert client_for(people["outsider"]).get(f"/layers/{layer.pk}/risk/").status_code == 404


def test_without_background_the_page_has_no_meter(corpus, people, client_for):
    layer = harrowgate_layer(corpus, people["ann"])
    Corpus.objects.filter(pk=corpus.pk).update(background_collection="")
    client = client_for(people["ann"])
    assert "risk-panel" not in client.get(f"/layers/{layer.pk}/").content.decode()
    assert client.get(f"/layers/{layer.pk}/risk/").content.decode() == '<section id="risk-panel" hidden></section>'
