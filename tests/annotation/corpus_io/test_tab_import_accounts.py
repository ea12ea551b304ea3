"""Annotator names of an imported file become accounts; layers keep their status and
imported entities whose mentions disagree are flagged."""

from collections import defaultdict

from django.contrib.auth import get_user_model

from annotation.enums import LayerStatus, Role
from annotation.models import AnnotationLayer, CorpusMembership
from tests.conftest import make_user


def test_missing_annotators_are_created_inactive_and_existing_ones_reused(corpus, pick, import_documents):
    existing = make_user("annotator1")
    summary = import_documents(corpus, pick("001-83927"))
    assert summary.created_annotators == ["annotator10"]
    users = {user.username: user for user in get_user_model().objects.filter(username__startswith="annotator")}
    assert users["annotator1"].pk == existing.pk and users["annotator1"].is_active
    assert not users["annotator10"].is_active and not users["annotator10"].has_usable_password()
    members = set(
        CorpusMembership.objects.filter(corpus=corpus, role=Role.ANNOTATOR).values_list("user__username", flat=True)
    )
    assert members == {"annotator1", "annotator10"}


def test_quality_checked_layers_are_reviewed_the_others_confirmed(corpus, pick, import_documents):
    import_documents(corpus, pick("001-83927"))  # quality_checked: ["annotator10"]
    statuses = dict(AnnotationLayer.objects.values_list("annotator__username", "status"))
    assert statuses == {"annotator1": LayerStatus.CONFIRMED, "annotator10": LayerStatus.REVIEWED}


def test_entities_with_disagreeing_mentions_are_flagged_inconsistent(corpus, people, pick, import_documents, api):
    documents = pick("001-57508")  # 6 layers, several entities with mixed identifier types
    import_documents(corpus, documents)
    # Hand-computed from the file: entities whose mentions differ in entity type,
    # identifier type or confidential status.
    expected = set()
    for annotator, layer in documents[0]["annotations"].items():
        values = defaultdict(set)
        for mention in layer["entity_mentions"]:
            values[mention["entity_id"]].add(
                (mention["entity_type"], mention["identifier_type"], mention["confidential_status"])
            )
        expected |= {(annotator, entity) for entity, seen in values.items() if len(seen) > 1}
    assert expected, "the fixture document should contain inconsistent entities"
    client = api(people["manager"])
    flagged = client.get("/api/entities/", {"inconsistent": "true", "page_size": 1000}).json()["results"]
    layers = dict(AnnotationLayer.objects.values_list("id", "annotator__username"))
    assert {(layers[e["layer"]], e["entity_id"]) for e in flagged} == expected
    assert all(e["inconsistent"] for e in flagged)
    consistent = client.get("/api/entities/", {"inconsistent": "false", "page_size": 1}).json()
    total = sum(
        len({m["entity_id"] for m in layer["entity_mentions"]}) for layer in documents[0]["annotations"].values()
    )
    assert consistent["count"] == total - len(expected)
