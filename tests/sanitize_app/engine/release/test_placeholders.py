from sanitize_app.engine.release.placeholders import PlaceholderNumbering
from sanitize_app.engine.release.types import Mention, ReleaseEntity


def entity(key, entity_type, *mentions):
    return ReleaseEntity(key, entity_type, "QUASI", [Mention(s, s + len(t), t) for s, t in mentions])


def test_numbers_follow_first_appearance_per_type():
    entities = [
        entity("b", "PERSON", (50, "Mr Kanar")),
        entity("a", "PERSON", (10, "Mr Polat")),
        entity("c", "CODE", (30, "40593/04")),
    ]
    numbering = PlaceholderNumbering(entities)
    # Mr Polat (offset 10) is the first person met, Mr Kanar (50) the second.
    assert numbering.placeholder(entities[1]) == "PERSON_1"
    assert numbering.placeholder(entities[0]) == "PERSON_2"
    assert numbering.placeholder(entities[2]) == "CODE_1"


def test_entities_written_the_same_way_share_their_number():
    # Two entities an annotator left apart, both mentioning "Mr Polat": one person to a reader.
    first = entity("e1", "PERSON", (0, "Mr Cengiz Polat"), (40, "Mr Polat"))
    other = entity("e2", "PERSON", (20, "Mr Kanar"))
    again = entity("e3", "PERSON", (80, "mr  polat"))
    numbering = PlaceholderNumbering([first, other, again])
    assert numbering.placeholder(first) == "PERSON_1"
    assert numbering.placeholder(other) == "PERSON_2"
    assert numbering.placeholder(again) == "PERSON_1"


def test_same_text_of_another_type_is_numbered_apart():
    place = entity("p", "LOC", (0, "Edirne"))
    organisation = entity("o", "ORG", (10, "Edirne"))
    numbering = PlaceholderNumbering([place, organisation])
    assert numbering.placeholder(place) == "LOC_1"
    assert numbering.placeholder(organisation) == "ORG_1"


def test_coreferent_mentions_of_a_real_document_get_one_placeholder(first_document):
    numbering = PlaceholderNumbering(first_document.entities)
    # "life imprisonment" is one QUANTITY entity with two mentions (2179 and 3010).
    life = next(e for e in first_document.entities if e.original == "life imprisonment")
    assert [m.start for m in life.mentions] == [2179, 3010]
    applicant = next(e for e in first_document.entities if e.original == "Mr Cengiz Polat")
    lawyer = next(e for e in first_document.entities if e.original == "Mr E. Kanar")
    assert numbering.placeholder(applicant) == "PERSON_1"
    assert numbering.placeholder(lawyer) == "PERSON_2"
