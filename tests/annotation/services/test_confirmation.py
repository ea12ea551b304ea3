"""The checks run before a layer is confirmed, on a hand-made case."""

import pytest

from annotation.enums import LayerStatus
from annotation.models import Mention
from annotation.services.confirmation import confirmation_report
from annotation.services.coreference import split_mention
from annotation.services.decisions import set_entity_decision
from annotation.services.layers import ConfirmationRefused, confirm_layer
from annotation.services.mentions import create_mention

from .conftest import TEXT, span


def add(layer, actor, text, entity_type, occurrence=0, **kwargs):
    start, end = span(text, occurrence)
    return create_mention(layer, actor=actor, start_offset=start, end_offset=end, entity_type=entity_type, **kwargs)


def codes(findings) -> list[str]:
    return [finding.code for finding in findings]


def test_an_undecided_entity_and_a_readable_name_are_errors(layer, people):
    ann = people["ann"]
    oslo = add(layer, ann, "Oslo", "LOC")
    report = confirmation_report(layer)
    assert codes(report.errors) == ["undecided", "person_visible"]
    assert "1 entity has no masking decision yet: “Oslo”" in report.errors[0].message
    # "John Smith" occurs twice in TEXT: inside "Mr John Smith" and in "John Smith's".
    assert report.errors[1].offsets == [TEXT.index("John Smith"), TEXT.index("John Smith's")]
    assert report.errors[0].mentions == [oslo.pk]


def test_a_direct_entity_with_an_unmasked_mention_is_an_error(layer, people):
    ann = people["ann"]
    first = add(layer, ann, "Oslo", "LOC", identifier_type="DIRECT")
    second = add(layer, ann, "Oslo", "LOC", occurrence=1)
    Mention.objects.filter(pk=second.pk).update(identifier_type="NO_MASK")  # as an imported file may have it
    report = confirmation_report(layer)
    direct = [f for f in report.errors if f.code == "direct_visible"]
    assert len(direct) == 1 and direct[0].mentions == [second.pk]
    assert first.pk not in direct[0].mentions


def test_warnings_need_acknowledgement(layer, people):
    ann = people["ann"]
    add(layer, ann, "Mr John Smith", "PERSON", identifier_type="DIRECT")
    add(layer, ann, "John Smith", "PERSON", occurrence=1, identifier_type="DIRECT")
    add(layer, ann, "Mr Smith", "PERSON", identifier_type="QUASI")
    # "Oslo" masked in one place, its other occurrence split off and left readable.
    first = add(layer, ann, "Oslo", "LOC", identifier_type="QUASI")
    second = add(layer, ann, "Oslo", "LOC", occurrence=1)
    split_mention(second, actor=ann)
    second.refresh_from_db()
    set_entity_decision(second.entity, actor=ann, identifier_type="NO_MASK")
    report = confirmation_report(layer)
    assert report.errors == []
    assert codes(report.warnings) == ["same_string"]
    assert set(report.warnings[0].mentions) == {first.pk, second.pk}
    with pytest.raises(ConfirmationRefused, match="look at these warnings"):
        confirm_layer(layer, actor=ann)
    assert confirm_layer(layer, actor=ann, accept_warnings=True).status == LayerStatus.CONFIRMED


def test_a_masked_string_left_unannotated_elsewhere_is_a_warning(layer, people):
    ann = people["ann"]
    add(layer, ann, "Mr John Smith", "PERSON", identifier_type="DIRECT")
    add(layer, ann, "John Smith", "PERSON", occurrence=1, identifier_type="DIRECT")
    add(layer, ann, "1961", "DATETIME", identifier_type="QUASI")
    add(layer, ann, "Oslo", "LOC", identifier_type="QUASI")  # the second "Oslo" stays unannotated
    report = confirmation_report(layer)
    assert report.errors == []
    leaks = [f for f in report.warnings if f.code == "unannotated"]
    assert [f.offsets for f in leaks] == [[span("Oslo", 1)[0]]]
