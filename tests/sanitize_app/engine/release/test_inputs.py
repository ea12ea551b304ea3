"""A release's input from a TAB layer: DIRECT and QUASI mentions grouped per entity in
document order, nested or crossing mentions left to the earlier span, a type change
splitting an entity."""

import pytest

from sanitize_app.engine.release.inputs import group_mentions, tab_layer_input

TEXT = "Mr John Smith of Oslo met Smith in Oslo City Hall on 3 May 1997."


def at(text: str, occurrence: int = 0) -> tuple[int, int]:
    start = -1
    for _ in range(occurrence + 1):
        start = TEXT.index(text, start + 1)
    return start, start + len(text)


def row(key: str, text: str, entity_type: str, identifier: str, occurrence: int = 0) -> tuple:
    return (key, *at(text, occurrence), text, entity_type, identifier)


def test_mentions_are_grouped_per_entity_in_document_order():
    entities = group_mentions(
        [
            row("e2", "Oslo", "LOC", "QUASI"),
            row("e1", "Smith", "PERSON", "QUASI", 1),
            row("e1", "Mr John Smith", "PERSON", "DIRECT"),
            row("e3", "3 May 1997", "DATETIME", "QUASI"),
        ]
    )
    assert [e.key for e in entities] == ["e1", "e2", "e3"]
    assert [(m.text, m.start) for m in entities[0].mentions] == [("Mr John Smith", 0), ("Smith", 26)]
    assert entities[0].identifier_type == "DIRECT"  # one DIRECT mention makes the entity DIRECT
    assert entities[1].identifier_type == "QUASI"


def test_a_nested_mention_is_left_to_the_outer_span():
    entities = group_mentions([row("hall", "Oslo City Hall", "ORG", "QUASI"), row("city", "Oslo", "LOC", "QUASI", 1)])
    assert [(e.key, [m.text for m in e.mentions]) for e in entities] == [("hall", ["Oslo City Hall"])]


def test_a_type_change_splits_an_entity():
    entities = group_mentions([row("e1", "Mr John Smith", "PERSON", "DIRECT"), row("e1", "Oslo", "LOC", "QUASI")])
    assert [(e.key, e.entity_type, e.identifier_type) for e in entities] == [
        ("e1:PERSON", "PERSON", "DIRECT"),
        ("e1:LOC", "LOC", "QUASI"),
    ]


def test_a_real_tab_layer_becomes_the_release_input(sample_documents):
    polat = next(d for d in sample_documents if d["doc_id"] == "001-83927")
    release = tab_layer_input(polat, "annotator1")
    assert release.doc_id == "001-83927" and release.text == polat["text"]
    first = release.entities[0]
    assert (first.entity_type, first.identifier_type, first.original) == ("CODE", "DIRECT", "40593/04")
    # NO_MASK mentions (the Republic of Turkey) are not released.
    assert all(m.text != "Republic of Turkey" for e in release.entities for m in e.mentions)
    with pytest.raises(KeyError, match="document 001-83927 has no layer of nobody"):
        tab_layer_input(polat, "nobody")
