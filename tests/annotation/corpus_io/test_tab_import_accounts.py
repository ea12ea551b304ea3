"""Annotator names of an imported file become accounts; layers keep their status and
imported entities whose mentions disagree are flagged."""

from collections import defaultdict

import pytest
from django.contrib.auth import get_user_model

from annotation.corpus_io.errors import TabImportError
from annotation.enums import LayerStatus, Role
from annotation.models import AnnotationLayer, CorpusMembership
from tests.conftest import make_user


def test_missing_annotators_become_inactive_members_and_an_existing_member_is_reused(
    corpus, people, pick, import_documents
):
    # annotator1 already reviews in this corpus: the import reuses the account and makes
    # them an annotator too; annotator10 is a new, inactive account.
    existing = make_user("annotator1")
    CorpusMembership.objects.create(corpus=corpus, user=existing, role=Role.REVIEWER)
    summary = import_documents(corpus, pick("001-83927"))
    assert summary.created_annotators == ["annotator10"]
    users = {user.username: user for user in get_user_model().objects.filter(username__startswith="annotator")}
    assert users["annotator1"].pk == existing.pk and users["annotator1"].is_active
    assert not users["annotator10"].is_active and not users["annotator10"].has_usable_password()
    roles = set(CorpusMembership.objects.filter(corpus=corpus).values_list("user__username", "role"))
    assert {(name, role) for name, role in roles if name.startswith("annotator")} == {
        ("annotator1", Role.REVIEWER),
        ("annotator1", Role.ANNOTATOR),
        ("annotator10", Role.ANNOTATOR),
    }


def test_an_existing_account_of_another_corpus_is_refused_naming_annotator_and_document(
    corpus, people, pick, import_documents
):
    # annotator10 is an account of the other corpus only: importing a file that names
    # them must not give them access to this corpus.
    outsider = make_user("annotator10")
    CorpusMembership.objects.create(corpus=people["other_corpus"], user=outsider, role=Role.ANNOTATOR)
    with pytest.raises(TabImportError) as refused:
        import_documents(corpus, pick("001-83927"))
    (problem,) = refused.value.problems
    assert (problem.document, problem.annotator) == ("001-83927", "annotator10")
    assert "not a member of corpus ECHR test" in problem.message
    # All or nothing: no document, no layer, no new account, no membership.
    assert not corpus.documents.exists()
    assert not CorpusMembership.objects.filter(corpus=corpus, user=outsider).exists()
    assert not get_user_model().objects.filter(username="annotator1").exists()


def test_an_outsider_is_refused_even_when_inactive_and_the_message_reaches_the_api(
    corpus, people, pick, api, write_tab, eager_tasks, django_capture_on_commit_callbacks
):
    make_user("annotator1", active=False)  # e.g. created by another corpus's import
    client = api(people["manager"])
    with write_tab(pick("001-79436")).open("rb") as stream, django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/corpora/{corpus.pk}/imports/", {"file": stream}, format="multipart")
    job = client.get(f"/api/import-jobs/{response.json()['id']}/").json()
    assert job["status"] == "failed"
    assert "document 001-79436, annotator annotator1: annotator1 is an existing account" in job["error"]
    assert not corpus.documents.exists()


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
