"""The workspace's re-identification risk meter (services.risk_meter) on the five-person
background: a reading per layer version, computed once, and what it says when it cannot
be computed. See tests/support/risk_layer.py for the document and why its ranks are
what they are."""

import pytest
from django.core.cache import cache

from annotation.models import AuditEvent, BackgroundDocument, Corpus, Entity
from annotation.services.corpora import set_background_collection
from annotation.services.decisions import set_entity_decision
from annotation.services.errors import DomainError
from annotation.services.layer_attack import attacked_document, to_original
from annotation.services.risk_meter import NAMED, PENDING, READY, UNAVAILABLE, layer_risk, reading_key
from annotation.tasks import compute_layer_risk
from tests.support.risk_layer import COLLECTION, HARBOUR, TOWN, TOWN_AGAIN, harrowgate_layer

pytestmark = pytest.mark.django_db


def read_now(layer, capture):
    """The reading of ``layer``: asked once (pending, its computation enqueued once the
    request commits), computed by the task run here, then read again."""
    with capture() as enqueued:
        assert layer_risk(layer).state == PENDING
    assert len(enqueued) == 1
    compute_layer_risk(layer.pk, layer.version)
    return layer_risk(layer)


def test_the_unmasked_town_names_the_person_first(corpus, people, django_capture_on_commit_callbacks):
    layer = harrowgate_layer(corpus, people["ann"])
    reading = read_now(layer, django_capture_on_commit_callbacks)
    assert reading.state == READY
    assert (reading.rank, reading.people, reading.level, reading.attacker) == (1, 5, NAMED, "tfidf-svc")
    town = reading.terms[0]
    entity = Entity.objects.get(layer=layer)
    # The leading term, at (one of) its places in the original text, listed once, under the
    # undecided Harrowgate entity.
    assert town["text"] == "Harrowgate" and town["start"] in (TOWN, TOWN_AGAIN)
    assert town["end"] == town["start"] + 10
    assert [term["text"] for term in reading.terms].count("Harrowgate") == 1
    assert (town["entity_id"], town["entity_type"], town["decision"]) == (entity.pk, "LOC", "")
    assert any(term["start"] == HARBOUR and term["entity_id"] is None for term in reading.terms)


def test_masking_the_town_gives_the_new_version_its_own_reading_with_a_lower_rank(
    corpus, people, django_capture_on_commit_callbacks
):
    layer = harrowgate_layer(corpus, people["ann"])
    before = read_now(layer, django_capture_on_commit_callbacks)
    old_key = reading_key(layer)
    set_entity_decision(Entity.objects.get(layer=layer), actor=people["ann"], identifier_type="QUASI")
    layer.refresh_from_db()
    assert reading_key(layer) != old_key
    after = read_now(layer, django_capture_on_commit_callbacks)
    assert before.rank == 1 and after.rank > 1
    assert after.layer_version == layer.version
    assert all(term["text"] != "Harrowgate" for term in after.terms)
    assert cache.get(old_key)["rank"] == 1  # the old version's reading is kept apart


def test_a_reading_is_requested_once_per_version(corpus, people, django_capture_on_commit_callbacks):
    layer = harrowgate_layer(corpus, people["ann"])
    with django_capture_on_commit_callbacks() as enqueued:
        assert layer_risk(layer).state == PENDING
        assert layer_risk(layer).state == PENDING
    assert len(enqueued) == 1


def test_the_attacked_text_has_labels_and_offsets_map_back_to_the_original(corpus, people):
    layer = harrowgate_layer(corpus, people["ann"])
    set_entity_decision(Entity.objects.get(layer=layer), actor=people["ann"], identifier_type="QUASI")
    sanitized = attacked_document(layer)
    assert sanitized.text == "The applicant lives in [LOC] and works in the [LOC] harbour."
    harbour = sanitized.text.index("harbour")
    # Each "[LOC]" is 5 characters shorter than "Harrowgate": 10 characters before "harbour".
    assert harbour == HARBOUR - 10
    assert to_original(harbour, harbour + 7, sanitized.spans) == (HARBOUR, HARBOUR + 7)
    assert to_original(0, 3, sanitized.spans) == (0, 3)
    label = sanitized.text.index("[LOC]")
    assert to_original(label + 1, label + 4, sanitized.spans) is None  # inside a replacement


def test_a_corpus_without_background_has_no_meter(corpus, people):
    layer = harrowgate_layer(corpus, people["ann"])
    Corpus.objects.filter(pk=corpus.pk).update(background_collection="")
    layer.document.corpus.refresh_from_db()
    assert layer_risk(layer) is None


def test_a_person_absent_from_the_background_is_said_so(corpus, people, django_capture_on_commit_callbacks):
    layer = harrowgate_layer(corpus, people["ann"], person="Zoe Unknown")
    reading = read_now(layer, django_capture_on_commit_callbacks)
    assert reading.state == UNAVAILABLE
    assert "Zoe Unknown is not among the 5 people" in reading.reason and COLLECTION in reading.reason


def test_a_document_without_person_to_protect_is_said_so_without_an_attack(
    corpus, people, django_capture_on_commit_callbacks
):
    layer = harrowgate_layer(corpus, people["ann"], person="")
    with django_capture_on_commit_callbacks() as enqueued:
        reading = layer_risk(layer)
    assert (reading.state, reading.reason, enqueued) == (UNAVAILABLE, "This document names no person to protect.", [])


def test_a_tab_document_whose_person_is_only_in_its_task_is_attacked(
    corpus, people, django_capture_on_commit_callbacks
):
    """TAB files name the person in the task string; the meter reads it as the release
    report does (Document.protected_person)."""
    from annotation.models import Document

    layer = harrowgate_layer(corpus, people["ann"], person="")
    Document.objects.filter(pk=layer.document_id).update(task=Document.task_for("Ada Quist"))
    layer.document.refresh_from_db()
    reading = read_now(layer, django_capture_on_commit_callbacks)
    assert (reading.state, reading.rank, reading.person) == (READY, 1, "Ada Quist")


def test_a_reimported_background_gives_new_readings(corpus, people):
    """The reading's key names the background's state: a changed collection is not read
    from readings of the old one."""
    layer = harrowgate_layer(corpus, people["ann"])
    before = reading_key(layer)
    BackgroundDocument.objects.create(collection=COLLECTION, url="five:extra", title="Fay Extra", text="Fay knits.")
    assert reading_key(layer) != before


def test_the_background_setting_is_audited_and_refuses_an_unknown_collection(corpus, people):
    BackgroundDocument.objects.create(collection="actors", url="a:1", title="A", text="A is an actor.")
    set_background_collection(corpus, "actors", actor=people["manager"])
    corpus.refresh_from_db()
    assert corpus.background_collection == "actors"
    event = AuditEvent.objects.get(action="corpus.background")
    assert event.changes == {"before": {"background_collection": ""}, "after": {"background_collection": "actors"}}
    with pytest.raises(DomainError, match="no background collection named 'actresses'"):
        set_background_collection(corpus, "actresses", actor=people["manager"])
    set_background_collection(corpus, "", actor=people["manager"])
    corpus.refresh_from_db()
    assert corpus.background_collection == ""


def test_an_unknown_attacker_in_the_settings_is_said_instead_of_a_gauge(corpus, people, settings):
    layer = harrowgate_layer(corpus, people["ann"])
    settings.SANITIZE_REIDENTIFICATION = {**settings.SANITIZE_REIDENTIFICATION, "attacker": "crystal-ball"}
    reading = layer_risk(layer)
    assert reading.state == UNAVAILABLE and "Unknown attacker 'crystal-ball'" in reading.reason


def test_mask_offers_the_engines_proposal_and_quasi_otherwise(corpus, people):
    """The meter's "Mask" button sets what the engine proposed for the entity (the protected
    person's name: DIRECT), and QUASI for an entity the engine never proposed."""
    from annotation.models import Mention, PreannotationRun, Prediction
    from annotation.services.layer_attack import EntityCover

    layer = harrowgate_layer(corpus, people["ann"])
    run = PreannotationRun.objects.create(corpus=corpus, status="succeeded")
    first, second = Mention.objects.filter(layer=layer).order_by("start_offset")
    prediction = Prediction.objects.create(
        run=run, document=layer.document, entity_key=1, start_offset=TOWN, end_offset=TOWN + 10,
        span_text="Harrowgate", entity_type="LOC", identifier_type="DIRECT",
    )  # fmt: skip
    cover = EntityCover(layer)
    assert cover.at(TOWN, TOWN + 10).mask_as == "QUASI"  # no mention came from the engine yet
    Mention.objects.filter(pk=first.pk).update(prediction=prediction)
    cover = EntityCover(layer)
    assert cover.at(TOWN_AGAIN, TOWN_AGAIN + 10).mask_as == "DIRECT"  # the entity's other mention too
    assert cover.at(HARBOUR, HARBOUR + 7) is None
