"""Two people merging or splitting the same entities at the same moment: one change is
applied, the other is answered 409 with the layer's current version and the current
state of the entities concerned, never a server error. Real threads on the real
database (PostgreSQL in the services pass), each with its own connection."""

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from annotation.models import Entity, Mention
from annotation.services.coreference import merge_entities, split_mention
from annotation.services.errors import StaleLayerVersion
from annotation.services.mentions import create_mention
from tests.conftest import version

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def at_once(*requests):
    """Send each (user, method, url, body) from its own thread, released together;
    returns the responses in the same order."""
    barrier = threading.Barrier(len(requests))
    answers: list = [None] * len(requests)

    def send(index, user, method, url, body):
        client = APIClient()
        client.force_authenticate(user)
        try:
            barrier.wait(timeout=10)
            answers[index] = getattr(client, method)(url, body, format="json")
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(i, *request)) for i, request in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


@pytest.fixture
def two_entities(scenario):
    """ann's layer with two entities: "Turkey"-like code A (the scenario's mention) and a
    second span B of another string."""
    layer, ann = scenario["ann_layer"], scenario["ann"]
    first = scenario["ann_mention"]
    second = create_mention(layer, actor=ann, start_offset=0, end_offset=4, entity_type="MISC")
    assert first.entity_id != second.entity_id
    return {**scenario, "a": first.entity_id, "b": second.entity_id, "a_mention": first, "b_mention": second}


def test_merging_a_into_b_and_b_into_a_at_once_applies_one_and_answers_409_with_the_state(two_entities):
    layer, ann = two_entities["ann_layer"], two_entities["ann"]
    a, b, seen = two_entities["a"], two_entities["b"], version(layer)
    answers = at_once(
        (ann, "post", f"/api/entities/{a}/merge/", {"source": b, "layer_version": seen}),
        (ann, "post", f"/api/entities/{b}/merge/", {"source": a, "layer_version": seen}),
    )
    codes = sorted(answer.status_code for answer in answers)
    assert codes == [200, 409], [answer.content for answer in answers]
    applied = next(answer for answer in answers if answer.status_code == 200)
    refused = next(answer for answer in answers if answer.status_code == 409).json()
    survivor = applied.json()["id"]
    gone = b if survivor == a else a
    assert refused["current_version"] == version(layer) == seen + 1
    assert refused["layer"] == layer.pk
    states = {state["id"]: state for state in refused["entities"]}
    assert states[survivor]["mention_count"] == 2 and states[survivor]["exists"] is True
    assert states[gone] == {"id": gone, "exists": False}
    assert Entity.objects.filter(pk__in=[a, b]).count() == 1
    assert Mention.objects.filter(entity=survivor).count() == 2


def test_split_and_merge_of_the_same_entity_at_once_answer_200_and_409(two_entities):
    layer, ann = two_entities["ann_layer"], two_entities["ann"]
    a, b = two_entities["a"], two_entities["b"]
    merge_entities(Entity.objects.get(pk=a), Entity.objects.get(pk=b), actor=ann)
    seen = version(layer)
    answers = at_once(
        (ann, "post", f"/api/mentions/{two_entities['b_mention'].pk}/split/", {"layer_version": seen}),
        (ann, "post", f"/api/mentions/{two_entities['a_mention'].pk}/split/", {"layer_version": seen}),
    )
    codes = sorted(answer.status_code for answer in answers)
    assert codes == [201, 409], [answer.content for answer in answers]
    refused = next(answer for answer in answers if answer.status_code == 409).json()
    assert refused["current_version"] == version(layer) == seen + 1
    # The entity the refused split would have taken its mention out of, as it is now.
    assert refused["entities"] == [
        {"id": a, "exists": True, "entity_id": Entity.objects.get(pk=a).tab_entity_id, "mention_count": 1}
    ]


def test_a_merge_without_a_version_whose_entity_was_merged_away_meanwhile_is_a_conflict(two_entities):
    """The system path (no version): the entities are read again under the layer lock,
    so a merge into an entity that no longer exists is refused, not half-applied."""
    ann = two_entities["ann"]
    a, b = Entity.objects.get(pk=two_entities["a"]), Entity.objects.get(pk=two_entities["b"])
    merge_entities(a, b, actor=ann)
    with pytest.raises(StaleLayerVersion) as refused:
        merge_entities(b, a, actor=ann)
    assert {state["id"]: state["exists"] for state in refused.value.entities} == {a.pk: True, b.pk: False}
    assert Mention.objects.filter(entity=a).count() == 2


def test_splitting_a_mention_deleted_meanwhile_is_a_conflict(two_entities):
    from annotation.services.mentions import delete_mention

    ann, mention = two_entities["ann"], two_entities["b_mention"]
    delete_mention(Mention.objects.get(pk=mention.pk), actor=ann)
    with pytest.raises(StaleLayerVersion) as refused:
        split_mention(mention, actor=ann)
    assert refused.value.entities == [{"id": two_entities["b"], "exists": False}]
