"""RuleCandidates: the rule ladders as a candidate source, dispatching on the entity
type over the entity's first mention, on real entities of the TAB dev sample."""

import time
from collections import defaultdict

import pytest

from sanitize_app.engine.release.generalization.rules import RuleCandidates
from sanitize_app.engine.release.types import Mention, ReleaseEntity


def _entity(entity_type: str, *texts: str) -> ReleaseEntity:
    mentions = [Mention(index * 100, index * 100 + len(text), text) for index, text in enumerate(texts)]
    return ReleaseEntity("e1", entity_type, "QUASI", mentions)


def _layer_entities(document: dict, annotator: str) -> list[ReleaseEntity]:
    """The entities of one annotator's layer, mentions in text order."""
    grouped, types = defaultdict(list), {}
    for mention in document["annotations"][annotator]["entity_mentions"]:
        grouped[mention["entity_id"]].append(
            Mention(mention["start_offset"], mention["end_offset"], mention["span_text"])
        )
        types[mention["entity_id"]] = mention["entity_type"]
    return [
        ReleaseEntity(key, types[key], "QUASI", sorted(mentions, key=lambda m: m.start))
        for key, mentions in grouped.items()
    ]


@pytest.mark.parametrize(
    ("entity_type", "texts", "first_candidate"),
    [
        ("DATETIME", ("29 September 2000", "2000"), "September 2000"),  # the first mention decides
        ("QUANTITY", ("DKK 573,311",), "between 500,000 and 600,000 DKK"),
        ("LOC", ("Istanbul",), "a city in Turkey"),
        ("DEM", ("Turkish",), "Western Asian"),
        ("ORG", ("Court of Cassation",), "a court of last instance"),
        ("MISC", ("Army Act 1955",), "a statute"),
    ],
)
def test_each_type_is_generalized_by_its_rules(entity_type, texts, first_candidate):
    assert RuleCandidates().candidates(_entity(entity_type, *texts), "")[0] == first_candidate


@pytest.mark.parametrize("entity_type", ["PERSON", "CODE"])
def test_names_and_codes_get_no_rule_candidates(entity_type):
    assert RuleCandidates().candidates(_entity(entity_type, "Cengiz Polat"), "") == []


def test_a_place_is_read_in_the_document_it_is_in(sample_documents):
    document = next(d for d in sample_documents if d["doc_id"] == "001-58134")
    ladder = RuleCandidates().candidates(_entity("LOC", "Halifax"), document["text"])
    assert ladder[0] == "a town in England"


def test_an_entity_without_mentions_is_an_error_naming_it():
    with pytest.raises(ValueError, match="e1"):
        RuleCandidates().candidates(ReleaseEntity("e1", "DATETIME", "QUASI", []), "")


def test_every_real_entity_gets_a_well_formed_ladder_quickly(sample_documents):
    rules = RuleCandidates()
    assert rules.name == "rules"
    rules.candidates(_entity("LOC", "London"), "")  # load the gazetteer
    entities = 0
    start = time.perf_counter()
    for document in sample_documents:
        for annotator in document["annotations"]:
            for entity in _layer_entities(document, annotator):
                ladder = rules.candidates(entity, document["text"])
                entities += 1
                assert len(ladder) <= 5 and len(set(ladder)) == len(ladder), entity.key
                assert entity.original.lower() not in [c.lower() for c in ladder], entity.key
    assert entities > 1000
    # well under 10 ms an entity (the first call on each document also reads its countries)
    assert (time.perf_counter() - start) / entities < 0.010
