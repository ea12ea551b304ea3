"""Every write through the API carries ``layer_version``: without it a change could
overwrite one its client never saw. A missing version is a 400 naming the field, and
nothing changes; a stale one is a 409 with the current version."""

import pytest

from annotation.models import AuditEvent, Mention
from tests.conftest import version


def _writes(scenario):
    layer, mention = scenario["ann_layer"], scenario["ann_mention"]
    return {
        "create a mention": (
            "post",
            "/api/mentions/",
            {"layer": layer.pk, "start_offset": 0, "end_offset": 3, "entity_type": "MISC"},
        ),
        "change a mention": ("patch", f"/api/mentions/{mention.pk}/", {"entity_type": "MISC"}),
        "delete a mention": ("delete", f"/api/mentions/{mention.pk}/", {}),
        "split a mention": ("post", f"/api/mentions/{mention.pk}/split/", {}),
        "decide an entity": ("patch", f"/api/entities/{mention.entity_id}/", {"identifier_type": "QUASI"}),
        "merge entities": ("post", f"/api/entities/{mention.entity_id}/merge/", {"source": mention.entity_id}),
        "change the status": ("post", f"/api/layers/{layer.pk}/status/", {"status": "confirmed"}),
    }


WRITES = [
    "create a mention",
    "change a mention",
    "delete a mention",
    "split a mention",
    "decide an entity",
    "merge entities",
    "change the status",
]


@pytest.mark.parametrize("write", WRITES)
def test_a_write_without_the_layer_version_is_refused_naming_the_field(scenario, api, write):
    method, url, body = _writes(scenario)[write]
    layer = scenario["ann_layer"]
    before = (version(layer), Mention.objects.filter(layer=layer).count(), AuditEvent.objects.count())
    response = getattr(api(scenario["ann"]), method)(url, body, format="json")
    assert response.status_code == 400
    assert "layer_version" in response.json() and "version of the layer you last saw" in str(response.json())
    assert (version(layer), Mention.objects.filter(layer=layer).count(), AuditEvent.objects.count()) == before


def test_twenty_writes_on_one_stale_version_change_the_entity_once(scenario, api):
    """The "last write wins" case: twenty clients decide on the version they all saw;
    one is applied, nineteen are refused with the current version."""
    layer, mention = scenario["ann_layer"], scenario["ann_mention"]
    seen = version(layer)
    client = api(scenario["ann"])
    answers = [
        client.patch(
            f"/api/entities/{mention.entity_id}/",
            {"identifier_type": ["DIRECT", "QUASI", "NO_MASK"][i % 3], "layer_version": seen},
            format="json",
        )
        for i in range(20)
    ]
    assert [answer.status_code for answer in answers] == [200] + [409] * 19
    assert {answer.json()["current_version"] for answer in answers[1:]} == {seen + 1}
    mention.refresh_from_db()
    assert mention.identifier_type == "DIRECT" and version(layer) == seen + 1
