"""DEM, ORG and MISC hypernyms from the curated tables, on real mentions of the TAB dev
sample."""

import pytest

from sanitize_app.engine.release.generalization.hypernyms import hypernym_candidates


@pytest.mark.parametrize(
    ("entity_type", "text", "ladder"),
    [
        ("DEM", "Turkish", ["Western Asian", "Asian"]),
        ("DEM", "British national", ["Northern European national", "European national"]),
        ("DEM", "Sierra Leonean", ["Western African", "African"]),
        ("DEM", "lawyer", ["a legal professional", "a professional"]),
        ("DEM", "school-teacher", ["a teacher", "an education professional", "a professional"]),
        ("DEM", "aged 21", ["between 20 and 29 years old", "in their twenties", "an adult"]),
        ("DEM", "sixty three", ["between 60 and 69 years old", "in their sixties", "an adult"]),
        ("DEM", "two children", ["a few children", "fewer than ten children", "some children", "a number of children"]),
        ("DEM", "widow", ["a bereaved spouse", "a person"]),
        ("ORG", "Istanbul State Security Court", ["a state security court", "a criminal court", "a court"]),
        ("ORG", "Court of Cassation", ["a court of last instance", "a court"]),
        ("ORG", "7th Chamber of the Ankara Administrative Court", ["an administrative court", "a court"]),
        ("ORG", "Ministry of Justice", ["a government department", "a government body", "a public body"]),
        ("ORG", "HMP Verne", ["a prison", "a penal institution", "an institution"]),
        ("ORG", "Prisoner’s Advice Service", ["an association", "an organisation"]),
        ("ORG", "Emlak Bank", ["a bank", "a financial institution", "a company"]),
        (
            "ORG",
            "Turkish Government",
            [
                "the Government of a country in Western Asia",
                "the Government of a country in Asia",
                "a national government",
            ],
        ),
        ("ORG", "Republic of Turkey", ["a country in Western Asia", "a country in Asia", "a country"]),
        ("MISC", "Army Act 1955", ["a statute", "a legal text"]),
        ("MISC", "Saunders v. the United Kingdom", ["a judgment", "a court decision"]),
        ("MISC", "Widow’s Payment", ["a bereavement benefit", "a social security benefit", "a state benefit"]),
        ("MISC", "false accounting", ["an offence of dishonesty", "a criminal offence"]),
    ],
)
def test_hypernyms_of_real_mentions(entity_type, text, ladder):
    assert hypernym_candidates(entity_type, text) == ladder


@pytest.mark.parametrize(
    ("entity_type", "text"),
    [("MISC", "hammerhead in a sock"), ("ORG", "Register of Births"), ("PERSON", "Cengiz Polat"), ("DEM", "")],
)
def test_what_no_table_knows_gets_no_ladder(entity_type, text):
    assert hypernym_candidates(entity_type, text) == []


def test_most_real_dem_and_org_mentions_get_a_ladder_and_every_ladder_is_well_formed(sample_documents):
    covered = {"DEM": [0, 0], "ORG": [0, 0], "MISC": [0, 0]}
    for document in sample_documents:
        for layer in document["annotations"].values():
            for mention in layer["entity_mentions"]:
                kind = mention["entity_type"]
                if kind not in covered:
                    continue
                ladder = hypernym_candidates(kind, mention["span_text"])
                assert len(ladder) <= 5 and len(set(ladder)) == len(ladder)
                assert mention["span_text"].lower() not in [c.lower() for c in ladder]
                covered[kind][0] += bool(ladder)
                covered[kind][1] += 1
    print({kind: f"{hit}/{total}" for kind, (hit, total) in covered.items()})
    assert covered["DEM"][0] / covered["DEM"][1] >= 0.9
    assert covered["ORG"][0] / covered["ORG"][1] >= 0.9
