from annotation.models import Mention
from annotation.services.mentions import create_mention
from annotation.services.occurrences import annotate_all_occurrences, unannotated_occurrences, word_occurrences

from .conftest import TEXT, span


def test_word_occurrences_are_whole_words_only():
    assert list(word_occurrences("Oslo, Oslofjord and Oslo.", "Oslo")) == [0, 20]


def test_other_occurrences_join_the_entity_with_its_decision(layer, people):
    ann = people["ann"]
    start, end = span("Oslo")
    oslo = create_mention(
        layer, actor=ann, start_offset=start, end_offset=end, entity_type="LOC", identifier_type="QUASI"
    )
    assert unannotated_occurrences(layer, {"Oslo"}) == [(span("Oslo", 1)[0], span("Oslo", 1)[1], "Oslo")]
    created = annotate_all_occurrences(oslo.entity, actor=ann)
    assert [(m.start_offset, m.span_text, m.identifier_type, m.entity_id) for m in created] == [
        (span("Oslo", 1)[0], "Oslo", "QUASI", oslo.entity_id)
    ]
    assert unannotated_occurrences(layer, {"Oslo"}) == []
    assert annotate_all_occurrences(oslo.entity, actor=ann) == []  # nothing left: nothing recorded
    assert Mention.objects.filter(span_text="Oslo").count() == TEXT.count("Oslo") == 2
