"""The engine's confidential status proposal: stored with each prediction, left off the
annotator's mentions, and taken with the identifier suggestion (``take_suggestion``, the
workspace's g) as the annotator's own decision, never over a status a person chose."""

import pytest

from annotation.enums import ConfidentialStatus
from annotation.models import AuditEvent, Prediction
from annotation.services.decisions import set_entity_decision
from annotation.services.errors import DomainError
from annotation.services.layers import assign_layer
from annotation.services.mentions import create_mention
from annotation.services.preannotation_apply import confidential_to_take, take_suggestion
from annotation.services.undo import undo_last_change
from annotation.tasks import submit_preannotation

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rules_only_engine", "eager_tasks")]

POLAT = "001-83927"  # "an illegal armed organisation, the TKP/ML-TIKKO"


@pytest.fixture
def layer(corpus, people, pick, import_documents, django_capture_on_commit_callbacks):
    import_documents(corpus, pick(POLAT))
    layer = assign_layer(corpus.documents.get(), people["ann"], actor=people["manager"])
    with django_capture_on_commit_callbacks(execute=True):
        submit_preannotation(corpus, actor=people["manager"])
    return layer


@pytest.fixture
def party(layer):
    """The pre-annotated entity of the party's acronym."""
    return layer.mentions.filter(span_text="TKP/ML-TIKKO").first().entity


def decisions_of(entity) -> set[tuple]:
    return set(entity.mentions.values_list("identifier_type", "confidential_status"))


def test_predictions_store_the_proposed_status_and_mentions_stay_undecided(layer, party):
    prediction = Prediction.objects.get(mentions__entity=party, span_text="TKP/ML-TIKKO")
    assert prediction.confidential_status == "POLITICS"
    assert "TKP/ML-TIKKO" in prediction.confidential_reason
    date = Prediction.objects.filter(entity_type="DATETIME").first()
    assert date.confidential_status == "NOT_CONFIDENTIAL" and date.confidential_reason == ""
    # The pre-annotation writes the TAB default on the mention, not the proposal.
    assert decisions_of(party) == {(None, "NOT_CONFIDENTIAL")}


def test_taking_the_suggestion_writes_both_in_one_undoable_decision(layer, party, people):
    identifier = Prediction.objects.filter(mentions__entity=party).first().identifier_type
    assert take_suggestion(party, actor=people["ann"]) == (identifier, "POLITICS")
    assert decisions_of(party) == {(identifier, "POLITICS")}
    event = AuditEvent.objects.filter(action="entity.decision", target=party.tab_entity_id).get()
    assert event.actor == people["ann"]
    assert event.changes["after"] == {"identifier_type": identifier, "confidential_status": "POLITICS"}
    undo_last_change(layer, actor=people["ann"])
    assert decisions_of(party) == {(None, "NOT_CONFIDENTIAL")}


def test_a_category_the_annotator_chose_stays(layer, party, people):
    set_entity_decision(party, actor=people["ann"], confidential_status=ConfidentialStatus.BELIEF)
    identifier, confidential = take_suggestion(party, actor=people["ann"])
    assert confidential is None and decisions_of(party) == {(identifier, "BELIEF")}


def test_a_deliberate_not_confidential_stays_until_undone(layer, party, people):
    set_entity_decision(party, actor=people["ann"], confidential_status=ConfidentialStatus.NOT_CONFIDENTIAL)
    assert confidential_to_take(party, "POLITICS") is None
    undo_last_change(layer, actor=people["ann"])
    assert confidential_to_take(party, "POLITICS") == "POLITICS"


def test_an_identifier_decision_alone_does_not_block_the_proposal(layer, party, people):
    set_entity_decision(party, actor=people["ann"], identifier_type="NO_MASK")
    assert confidential_to_take(party, "POLITICS") == "POLITICS"
    assert confidential_to_take(party, "NOT_CONFIDENTIAL") is None


def test_an_entity_without_a_prediction_has_nothing_to_take(layer, people):
    text = layer.document.text
    start = text.index("Government")
    manual = create_mention(layer, actor=people["ann"], start_offset=start, end_offset=start + 10, entity_type="ORG")
    with pytest.raises(DomainError, match="no suggestion"):
        take_suggestion(manual.entity, actor=people["ann"])
