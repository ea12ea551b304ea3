"""The database itself refuses inconsistent annotations (constraints and triggers),
whatever code writes to it."""

import pytest
from django.db import IntegrityError, transaction

from annotation.models import AnnotationLayer, Document, Entity, Mention, MentionLink
from tests.conftest import make_user

TEXT = "Mr Galip Yalman lodged application no. 36110/97 on 3 May 1997."


@pytest.fixture
def layers(corpus):
    document = Document.objects.create(corpus=corpus, doc_id="d1", text=TEXT)
    ann, bob = make_user("ann"), make_user("bob")
    return AnnotationLayer.objects.create(document=document, annotator=ann), AnnotationLayer.objects.create(
        document=document, annotator=bob
    )


def mention(layer, entity, **overrides) -> Mention:
    values = dict(
        layer=layer,
        entity=entity,
        tab_mention_id="em1",
        start_offset=3,
        end_offset=15,
        span_text=TEXT[3:15],
        entity_type="PERSON",
        identifier_type="DIRECT",
        confidential_status="NOT_CONFIDENTIAL",
    )
    values.update(overrides)
    return Mention(**values)


def refused(instance) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        instance.save()


def test_a_valid_mention_is_stored(layers):
    layer, _ = layers
    entity = Entity.objects.create(layer=layer, tab_entity_id="e1")
    mention(layer, entity).save()
    assert Mention.objects.get().span_text == "Galip Yalman"


def test_text_length_is_counted_in_code_points_by_the_database(corpus):
    text = "Zoë 👩‍⚖️ e\u0301"
    document = Document.objects.create(corpus=corpus, doc_id="u", text=text)
    document.refresh_from_db()
    # Z o ë, space, woman + ZWJ + scales + VS16, space, e + combining acute: 11 code points.
    assert document.text_length == len(text) == 11


@pytest.mark.parametrize(
    "overrides",
    [
        {"start_offset": 15, "end_offset": 15},  # empty span
        {"start_offset": 20, "end_offset": 10},  # inverted
        {"start_offset": 60, "end_offset": len(TEXT) + 1},  # past the end of the text
        {"entity_type": "PER"},
        {"identifier_type": "MASKED"},
        {"confidential_status": "RELIGION"},
        {"edit_type": "fixed"},
        {"origin": "robot"},
        {"tab_mention_id": ""},
    ],
)
def test_invalid_mentions_are_refused(layers, overrides):
    layer, _ = layers
    entity = Entity.objects.create(layer=layer, tab_entity_id="e1")
    refused(mention(layer, entity, **overrides))
    assert Mention.objects.count() == 0


def test_an_update_past_the_end_of_the_text_is_refused(layers):
    layer, _ = layers
    entity = Entity.objects.create(layer=layer, tab_entity_id="e1")
    stored = mention(layer, entity)
    stored.save()
    with pytest.raises(IntegrityError), transaction.atomic():
        Mention.objects.filter(pk=stored.pk).update(end_offset=len(TEXT) + 3)
    stored.refresh_from_db()
    assert stored.end_offset == 15


def test_a_mention_cannot_belong_to_an_entity_of_another_layer(layers):
    layer, other = layers
    foreign = Entity.objects.create(layer=other, tab_entity_id="e1")
    refused(mention(layer, foreign))


def test_mention_ids_are_unique_within_a_layer(layers):
    layer, other = layers
    entity = Entity.objects.create(layer=layer, tab_entity_id="e1")
    mention(layer, entity).save()
    refused(mention(layer, entity, start_offset=0, end_offset=2, span_text="Mr"))
    # The same id in another layer is fine (ids are per annotator in TAB).
    mention(other, Entity.objects.create(layer=other, tab_entity_id="e1")).save()


def test_links_stay_inside_one_layer_and_never_point_to_themselves(layers):
    layer, other = layers
    a = mention(layer, Entity.objects.create(layer=layer, tab_entity_id="e1"))
    a.save()
    b = mention(other, Entity.objects.create(layer=other, tab_entity_id="e1"))
    b.save()
    refused(MentionLink(source=a, target=b))
    refused(MentionLink(source=a, target=a))


def test_document_text_is_frozen_once_layers_exist(layers, corpus):
    layer, _ = layers
    document = layer.document
    document.text = TEXT + " More."
    refused(document)
    loose = Document.objects.create(corpus=corpus, doc_id="d2", text="Draft.")
    loose.text = "Draft, corrected."
    loose.save()  # no layer yet: editable


def test_one_layer_per_annotator_and_document(layers):
    layer, _ = layers
    refused(AnnotationLayer(document=layer.document, annotator=layer.annotator))


def test_deleting_a_layer_removes_its_annotations(layers):
    layer, _ = layers
    entity = Entity.objects.create(layer=layer, tab_entity_id="e1")
    mention(layer, entity).save()
    layer.delete()
    assert Mention.objects.count() == 0 and Entity.objects.count() == 0
