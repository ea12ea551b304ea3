"""Confidential status proposals (TAB Step 3) on real-looking sentences of judgments,
each expected status checked by hand against the guidelines: a religion is BELIEF, a
party or union POLITICS, a sexual orientation SEX, an ethnic origin (not a nationality)
ETHNIC, a health condition HEALTH; states, laws, dates and places never."""

import pytest

from sanitize_app.engine.confidential import NOT_CONFIDENTIAL, propose_entity, propose_mention
from sanitize_app.engine.preannotation import EngineConfig, PreannotationEngine


@pytest.fixture(scope="module")
def engine():
    return PreannotationEngine(EngineConfig(spacy_pipeline=None, encoder=None, perturbation=False))


def proposals(engine, text: str) -> dict[str, str]:
    """Each recognised entity's first mention text -> proposed status."""
    result = engine.annotate(text, "")
    return {entity.mentions[0].text: entity.confidential for entity in result.entities}


def span(text: str, phrase: str) -> tuple[int, int]:
    start = text.index(phrase)
    return start, start + len(phrase)


def test_a_religion_is_a_belief(engine):
    text = "The applicant, a Jehovah's Witness, was convicted for refusing to perform military service."
    result = engine.annotate(text, "")
    witness = next(e for e in result.entities if e.mentions[0].text == "Jehovah's Witness")
    assert witness.confidential == "BELIEF"
    assert "Jehovah's Witness" in witness.confidential_reason and "religion" in witness.confidential_reason


def test_a_party_and_its_acronym_are_politics(engine):
    text = (
        "He was arrested on suspicion of being a member of the Kurdistan Workers' Party (PKK), "
        "an illegal organisation, and was taken to Diyarbakır on 3 May 1995."
    )
    found = proposals(engine, text)
    assert found["Kurdistan Workers' Party"] == "POLITICS" and found["PKK"] == "POLITICS"
    assert found["3 May 1995"] == NOT_CONFIDENTIAL and found["Diyarbakır"] == NOT_CONFIDENTIAL


def test_an_ethnic_origin_is_ethnic_but_a_nationality_is_not(engine):
    found = proposals(engine, "The applicant, a Bulgarian national of Roma origin, lives in Sofia.")
    assert found["Roma origin"] == "ETHNIC"
    assert found["Bulgarian national"] == NOT_CONFIDENTIAL and found["Sofia"] == NOT_CONFIDENTIAL


def test_a_nationality_said_as_an_origin_is_ethnic(engine):
    # "Armenian" is not in the ethnic list: the word "origin" says it.
    found = proposals(engine, "The applicant, who is of Armenian origin, was born in 1961.")
    assert found["Armenian origin"] == "ETHNIC" and found["1961"] == NOT_CONFIDENTIAL


def test_a_diagnosis_is_health(engine):
    found = proposals(engine, "In 1994 the applicant was diagnosed with HIV and later suffered from depression.")
    assert found["HIV"] == "HEALTH" and found["depression"] == "HEALTH" and found["1994"] == NOT_CONFIDENTIAL


def test_a_sexual_orientation_is_sex():
    text = "The applicant, who is homosexual, complained of his discharge from the army."
    proposal = propose_mention(text, *span(text, "homosexual"), "DEM")
    assert proposal.status == "SEX" and "homosexual" in proposal.reason


def test_a_condition_unlisted_but_suffered_from_is_health():
    text = "The applicant stated that she suffered from chronic fatigue since her detention."
    proposal = propose_mention(text, *span(text, "chronic fatigue"), "DEM")
    assert proposal.status == "HEALTH" and "suffered from" in proposal.reason


def test_an_unlisted_organisation_called_illegal_is_politics():
    text = "The police arrested the applicants on suspicion of membership of an illegal organisation, the PRK-Rızgari."
    proposal = propose_mention(text, *span(text, "PRK-Rızgari"), "ORG")
    assert proposal.status == "POLITICS" and "illegal organisation" in proposal.reason


def test_states_laws_and_courts_are_not_confidential(engine):
    text = (
        "The Turkish Government were represented by their Agent. The Ministry of Labour relied on the "
        "Race Relations Act 1976 before the Istanbul State Security Court."
    )
    assert set(proposals(engine, text).values()) == {NOT_CONFIDENTIAL}
    assert propose_mention(text, *span(text, "Race Relations Act 1976"), "MISC").status == NOT_CONFIDENTIAL
    assert propose_mention(text, *span(text, "Ministry of Labour"), "ORG").status == NOT_CONFIDENTIAL
    text = "The International Labour Organisation and the State Employment Agency replied."
    assert propose_mention(text, *span(text, "International Labour Organisation"), "ORG").status == NOT_CONFIDENTIAL


def test_places_and_dates_never_carry_a_category():
    text = "He travelled to Kurdistan in the spring of 1992."
    assert propose_mention(text, *span(text, "Kurdistan"), "LOC").status == NOT_CONFIDENTIAL
    text = "She is Roma."
    assert propose_mention(text, *span(text, "Roma"), "DATETIME").status == NOT_CONFIDENTIAL


def test_a_listed_name_mistyped_as_a_person_still_counts_whole_only():
    text = "Alison Mahon, Labour. Mrs Mahon is a leading campaigner."
    assert propose_mention(text, *span(text, "Labour"), "PERSON").status == "POLITICS"
    assert propose_mention(text, *span(text, "Alison Mahon"), "PERSON").status == NOT_CONFIDENTIAL


def test_an_entity_takes_the_category_most_of_its_mentions_state():
    text = "She is a Quaker. The Quakers met. Mr Penn, her friend, also came."
    quaker, quakers, penn = span(text, "Quaker"), span(text, "Quakers"), span(text, "Mr Penn")
    proposal = propose_entity(text, [(*penn, "PERSON"), (*quakers, "DEM"), (*quaker, "DEM")])
    assert proposal.status == "BELIEF" and "Quaker" in proposal.reason
    assert propose_entity(text, [(*penn, "PERSON")]).status == NOT_CONFIDENTIAL


def test_offsets_outside_the_text_are_refused():
    with pytest.raises(ValueError, match="outside the text"):
        propose_mention("short", 2, 40, "DEM")
