"""The overlap policy of a layer, as in the TAB files: spans nest, never cross."""

import pytest

from annotation.models import AnnotationLayer, Entity, Mention
from annotation.services.confirmation import confirmation_report
from annotation.services.errors import InvalidAnnotation
from annotation.services.mentions import create_mention, update_mention
from annotation.services.overlaps import crosses, crossing_pairs

from .conftest import TEXT, span

# "The applicant, Mr John Smith, was born in 1961 ..."
APPLICANT = span("The applicant, Mr John Smith")  # 0..28
NAME = span("Mr John Smith")  # 15..28, inside APPLICANT
CROSSING = span("Smith, was born")  # 23..38: begins inside NAME, ends outside it


def test_crosses_is_true_only_for_partial_overlaps():
    assert crosses((0, 10), (5, 15)) and crosses((5, 15), (0, 10))
    assert not crosses((0, 10), (2, 8))  # nested
    assert not crosses((0, 10), (0, 10))  # identical
    assert not crosses((0, 10), (0, 5))  # nested, shared start
    assert not crosses((0, 10), (10, 12))  # adjacent


def test_crossing_pairs_finds_each_crossing_pair_once_in_text_order():
    spans = [(0, 10, "a"), (2, 8, "b"), (5, 15, "c"), (12, 20, "d"), (30, 40, "e")]
    # b nests in a; c starts inside a and inside b and ends after both (0<5<10<15, 2<5<8<15);
    # d starts inside c and ends after it (5<12<15<20); e touches nothing.
    assert crossing_pairs(spans) == [("a", "c"), ("b", "c"), ("c", "d")]


def test_a_nested_span_is_accepted_inside_and_around_another(layer, people):
    ann = people["ann"]
    inner = create_mention(layer, actor=ann, start_offset=NAME[0], end_offset=NAME[1], entity_type="PERSON")
    outer = create_mention(
        layer, actor=ann, start_offset=APPLICANT[0], end_offset=APPLICANT[1], entity_type="DEM"
    )
    assert (inner.span_text, outer.span_text) == ("Mr John Smith", "The applicant, Mr John Smith")
    codes = [finding.code for finding in confirmation_report(layer).errors]
    assert "crossing" not in codes


def test_a_crossing_span_is_refused_naming_the_mention_it_crosses(layer, people):
    ann = people["ann"]
    name = create_mention(layer, actor=ann, start_offset=NAME[0], end_offset=NAME[1], entity_type="PERSON")
    layer.refresh_from_db()
    version = layer.version
    with pytest.raises(InvalidAnnotation) as refused:
        create_mention(layer, actor=ann, start_offset=CROSSING[0], end_offset=CROSSING[1], entity_type="MISC")
    message = refused.value.message
    assert "“Smith, was born” (23–38) crosses the PERSON “Mr John Smith” (15–28" in message
    assert name.tab_mention_id in message and refused.value.field == "start_offset"
    layer.refresh_from_db()
    assert layer.version == version and Mention.objects.filter(layer=layer).count() == 1


def test_resizing_into_a_crossing_is_refused_and_the_span_stays(layer, people):
    ann = people["ann"]
    create_mention(layer, actor=ann, start_offset=NAME[0], end_offset=NAME[1], entity_type="PERSON")
    born = span("born in 1961")
    year = create_mention(layer, actor=ann, start_offset=born[0], end_offset=born[1], entity_type="DATETIME")
    with pytest.raises(InvalidAnnotation, match="crosses the PERSON “Mr John Smith”"):
        update_mention(year, actor=ann, start_offset=CROSSING[0])  # "Smith, was born in 1961"
    year.refresh_from_db()
    assert (year.start_offset, year.end_offset) == born


def test_the_confirm_checks_list_a_crossing_that_came_in_another_way(layer, people):
    """An older layer or a hand-edited import may hold a crossing pair: confirmation
    names both spans and blocks until one is fixed."""
    entity = Entity.objects.create(layer=layer, tab_entity_id="e1")
    for tab_id, (start, end) in (("em1", NAME), ("em2", CROSSING)):
        Mention.objects.create(
            layer=layer,
            entity=entity,
            tab_mention_id=tab_id,
            start_offset=start,
            end_offset=end,
            span_text=TEXT[start:end],
            entity_type="PERSON",
            identifier_type="DIRECT",
        )
    errors = {finding.code: finding for finding in confirmation_report(layer).errors}
    assert "crossing" in errors
    assert "“Mr John Smith” and “Smith, was born”" in errors["crossing"].message
    assert sorted(errors["crossing"].mentions) == sorted(Mention.objects.values_list("pk", flat=True))


def test_the_importer_keeps_the_nested_spans_of_the_real_files(corpus, pick, import_documents):
    """001-99929, annotator2: the CODE "53(1)" holds the CODE "1" (a real nesting)."""
    import_documents(corpus, pick("001-99929"))
    layer = AnnotationLayer.objects.get(document__doc_id="001-99929", annotator__username="annotator2")
    spans = set(layer.mentions.values_list("start_offset", "end_offset", "span_text"))
    assert {(2461, 2466, "53(1)"), (2464, 2465, "1")} <= spans
    assert "crossing" not in [finding.code for finding in confirmation_report(layer).errors]
