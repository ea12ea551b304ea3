from sanitize_app.engine.release.rendering import render, replacements_for, sanitized_positions
from sanitize_app.engine.release.types import Mention, ReleaseEntity

TEXT = "Mr Polat was born in Edirne in 1965."


def entity(key, start, end, entity_type="LOC"):
    return ReleaseEntity(key, entity_type, "QUASI", [Mention(start, end, TEXT[start:end])])


def test_every_mention_is_replaced_in_text_order():
    entities = [entity("year", 31, 35, "DATETIME"), entity("name", 0, 8, "PERSON"), entity("town", 21, 27)]
    chosen = {"name": "PERSON_1", "town": "a city in Turkey", "year": "the 1960s"}
    replacements = replacements_for(entities, chosen)
    assert render(TEXT, replacements) == "PERSON_1 was born in a city in Turkey in the 1960s."


def test_a_mention_inside_another_is_covered_by_it():
    # "Edirne in 1965" (21-35) contains the year (31-35): the outer one is replaced once.
    entities = [entity("outer", 21, 35), entity("inner", 31, 35, "DATETIME")]
    replacements = replacements_for(entities, {"outer": "somewhere, some year", "inner": "the 1960s"})
    assert [(r.start, r.end) for r in replacements] == [(21, 35)]
    assert render(TEXT, replacements) == "Mr Polat was born in somewhere, some year."


def test_the_entity_under_attack_is_marked():
    entities = [entity("name", 0, 8, "PERSON"), entity("town", 21, 27)]
    replacements = replacements_for(entities, {"name": "PERSON_1", "town": "Turkey"})
    assert render(TEXT, replacements, marked_key="town") == "PERSON_1 was born in [[Turkey]] in 1965."


def test_sanitized_positions_shift_by_each_replacement():
    # "Mr Polat" (0-8) -> "P1" moves later text 6 characters left.
    positions = sanitized_positions([(0, 8, "P1"), (21, 27, "a city")])
    assert positions == [(0, 2), (15, 21)]


def test_original_offsets_of_sanitized_characters_by_hand():
    from sanitize_app.engine.release.rendering import original_offsets

    # "Ada Quist lives in Harrowgate." -> "[PERSON] lives in [LOC]."
    replacements = [(0, 9, "[PERSON]"), (19, 29, "[LOC]")]
    assert original_offsets(replacements, 9, 14) == (10, 15)  # "lives": shifted back by 9 - 8
    assert original_offsets(replacements, 23, 24) == (29, 30)  # the full stop after [LOC]
    assert original_offsets(replacements, 2, 5) is None  # inside [PERSON]
    assert original_offsets(replacements, 15, 19) is None  # "in [" crosses into [LOC]
    assert original_offsets([], 3, 6) == (3, 6)
