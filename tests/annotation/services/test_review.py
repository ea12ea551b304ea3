"""The pair review: pairing, blind assignment, notes, and the two-sided sign-off."""

import pytest

from annotation.enums import LayerStatus, Role
from annotation.models import AnnotationLayer, AuditEvent, CorpusMembership, Document, ReviewAssignment, ReviewThread
from annotation.services import review
from annotation.services.errors import DomainError
from annotation.services.layers import change_layer_status
from annotation.services.mentions import create_mention, update_mention

from .conftest import TEXT, span


def _confirmable(layer, author):
    """Annotate the person's three names as DIRECT (enough to confirm) and confirm."""
    mentions = []
    for text, occurrence in (("Mr John Smith", 0), ("Mr Smith", 0), ("John Smith", 1)):
        start, end = span(text, occurrence)
        mentions.append(
            create_mention(
                layer, actor=author, start_offset=start, end_offset=end, entity_type="PERSON", identifier_type="DIRECT"
            )
        )
    change_layer_status(layer, LayerStatus.CONFIRMED, actor=author)
    return mentions


@pytest.fixture
def paired(corpus, people):
    review.pair_annotators(corpus, people["bob"], people["ann"], actor=people["manager"])
    return people


def test_pairing_is_one_row_either_way_and_grants_the_reviewer_role(corpus, people):
    pair = review.pair_annotators(corpus, people["bob"], people["ann"], actor=people["manager"])
    assert {pair.first, pair.second} == {people["ann"], people["bob"]} and pair.first.pk < pair.second.pk
    assert CorpusMembership.objects.filter(corpus=corpus, role=Role.REVIEWER, user=people["ann"]).exists()
    with pytest.raises(DomainError, match="already paired"):
        review.pair_annotators(corpus, people["ann"], people["bob"], actor=people["manager"])
    with pytest.raises(DomainError, match="rita_reviewer is not an annotator"):
        review.pair_annotators(corpus, people["ann"], people["rita"], actor=people["manager"])
    with pytest.raises(DomainError, match="themselves"):
        review.pair_annotators(corpus, people["ann"], people["ann"], actor=people["manager"])


def test_a_confirmed_layer_gets_the_partner_as_reviewer_but_only_once_the_partner_finished(layer, paired):
    ann, bob = paired["ann"], paired["bob"]
    bobs = AnnotationLayer.objects.create(document=layer.document, annotator=bob, position=1)
    _confirmable(layer, ann)
    # bob still annotates the same document: seeing ann's layer now would break blindness
    assert not ReviewAssignment.objects.filter(layer=layer).exists()
    _confirmable(bobs, bob)
    assert set(ReviewAssignment.objects.values_list("layer__annotator__username", "reviewer__username")) == {
        ("ann_annotator", "bob_annotator"),
        ("bob_annotator", "ann_annotator"),
    }


def test_the_whole_review_two_sign_offs_make_the_layer_reviewed(layer, paired):
    ann, bob = paired["ann"], paired["bob"]
    name, *_ = _confirmable(layer, ann)
    assignment = ReviewAssignment.objects.get(layer=layer, reviewer=bob)
    review.record_masked_reading(assignment, reidentifiable="no", comment="fine", actor=bob)
    layer.refresh_from_db()
    assert layer.status == LayerStatus.UNDER_REVIEW

    # a direct correction by the reviewer, recorded as his, shown to the author
    year = span("1961")
    create_mention(
        layer, actor=bob, start_offset=year[0], end_offset=year[1], entity_type="DATETIME", identifier_type="QUASI"
    )
    corrections = review.corrections_in_review(layer)
    assert [(e.action, e.actor.username) for e in corrections][:1] == [("mention.create", "bob_annotator")]

    # a disagreement: a note with a thread, settled by the author
    thread = review.open_thread(layer, actor=bob, body="Is 'Mr' part of the name?", mention=name)
    review.reply(thread, actor=ann, body="TAB includes titles.")
    with pytest.raises(DomainError, match="1 note is still open"):
        review.confirm_review(layer, actor=bob)
    review.settle(thread, "kept", actor=ann)
    assert [c.author.username for c in thread.comments.all()] == ["bob_annotator", "ann_annotator"]

    state = review.confirm_review(layer, actor=bob)
    assert state.reviewers_confirmed == ["bob_annotator"] and not state.author_confirmed
    # the author changes something after the reviewer signed: his sign-off no longer holds
    layer.refresh_from_db()
    update_mention(year_mention := layer.mentions.get(start_offset=year[0]), actor=ann, entity_type="DATETIME")
    assert year_mention.pk
    layer.refresh_from_db()
    state = review.confirm_review(layer, actor=ann)
    assert state.author_confirmed and state.reviewers_waiting == ["bob_annotator"]
    layer.refresh_from_db()
    assert layer.status == LayerStatus.UNDER_REVIEW
    state = review.confirm_review(layer, actor=bob)
    layer.refresh_from_db()
    assert layer.status == LayerStatus.REVIEWED and layer.quality_checked and layer.reviewed_at
    assert state.done


def test_notes_name_what_is_wrong(layer, paired):
    ann = paired["ann"]
    name, *_ = _confirmable(layer, ann)
    with pytest.raises(DomainError, match="Write something"):
        review.open_thread(layer, actor=ann, body="   ", mention=name)
    with pytest.raises(DomainError, match="Choose the mention or entity"):
        review.open_thread(layer, actor=ann, body="hm")
    other_document = Document.objects.create(corpus=layer.document.corpus, doc_id="case-2", text=TEXT)
    other = AnnotationLayer.objects.create(document=other_document, annotator=paired["bob"])
    with pytest.raises(DomainError, match="of this layer"):
        review.open_thread(other, actor=ann, body="x", mention=name)
    thread = review.open_thread(layer, actor=ann, body="x", entity=name.entity)
    assert thread.anchor == "Mr John Smith" and thread.anchor_start == name.start_offset
    with pytest.raises(DomainError, match="not 'maybe'"):
        review.settle(thread, "maybe", actor=ann)
    assert ReviewThread.objects.get().status == "open"
    assert AuditEvent.objects.filter(action="review.note", actor=ann).count() == 1


def test_the_author_cannot_sign_off_before_the_review_started(layer, paired):
    _confirmable(layer, paired["ann"])
    with pytest.raises(DomainError, match="not started the review"):
        review.confirm_review(layer, actor=paired["ann"])
    with pytest.raises(DomainError, match="neither wrote nor reviews"):
        review.confirm_review(layer, actor=paired["rita"])
