import pytest

from annotation.enums import LayerStatus
from annotation.services.decisions import set_entity_decision
from annotation.services.errors import DomainError, InvalidTransition
from annotation.services.layers import ConfirmationRefused, add_reviewer, assign_layer, change_layer_status
from annotation.services.mentions import create_mention

from .conftest import span


def test_assignment_needs_the_annotator_role_and_happens_once(layer, people):
    with pytest.raises(DomainError, match="already has a layer"):
        assign_layer(layer.document, people["ann"], actor=people["manager"])
    with pytest.raises(DomainError, match="does not have the annotator role in corpus"):
        assign_layer(layer.document, people["rita"], actor=people["manager"])
    fresh = assign_layer(layer.document, people["bob"], actor=people["manager"])
    assert fresh.status == LayerStatus.ASSIGNED and fresh.position == 1


def test_confirming_needs_a_decision_on_every_entity(layer, people):
    mention = create_mention(layer, actor=people["ann"], start_offset=15, end_offset=28, entity_type="PERSON")
    with pytest.raises(InvalidTransition, match="1 entity has no masking decision yet: “Mr John Smith”"):
        change_layer_status(layer, LayerStatus.CONFIRMED, actor=people["ann"])
    set_entity_decision(mention.entity, actor=people["ann"], identifier_type="DIRECT")
    with pytest.raises(ConfirmationRefused, match="“John Smith”, is readable at 1 place"):
        change_layer_status(layer, LayerStatus.CONFIRMED, actor=people["ann"])
    start, end = span("John Smith", 1)  # in "John Smith's lawyer"
    create_mention(
        layer, actor=people["ann"], start_offset=start, end_offset=end, entity_type="PERSON", identifier_type="DIRECT"
    )
    confirmed = change_layer_status(layer, LayerStatus.CONFIRMED, actor=people["ann"])
    assert confirmed.status == LayerStatus.CONFIRMED and confirmed.confirmed_at is not None


def test_the_workflow_cannot_jump_ahead(layer, people):
    with pytest.raises(InvalidTransition, match="from assigned to reviewed"):
        change_layer_status(layer, LayerStatus.REVIEWED, actor=people["manager"])


def test_nobody_reviews_their_own_layer(layer, people):
    with pytest.raises(DomainError, match="cannot review their own layer"):
        add_reviewer(layer, people["ann"], actor=people["manager"])
    assert add_reviewer(layer, people["rita"], actor=people["manager"]).reviewer == people["rita"]
