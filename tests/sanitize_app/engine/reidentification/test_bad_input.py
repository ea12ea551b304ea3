"""Bad input is refused with a message naming what is wrong: an unknown attacker or
setting, an empty or one-person background, protected documents about people the
background does not know."""

import pytest

from sanitize_app.engine.reidentification.attack import attack, fit_attacker
from sanitize_app.engine.reidentification.attackers import build_attacker
from sanitize_app.engine.reidentification.types import BackgroundText, ProtectedText


def test_an_unknown_attacker_is_named_with_the_choices():
    with pytest.raises(
        ValueError, match=r"unknown attacker 'bert-large'; choose one of: tfidf-svc, encoder-lr, transformer-ft"
    ):
        build_attacker("bert-large")


def test_an_unknown_setting_is_named_with_the_attackers_settings():
    with pytest.raises(ValueError, match=r"attacker 'tfidf-svc' has no setting 'epochs'; its settings: C, augment"):
        build_attacker("tfidf-svc", epochs=3)


def test_an_empty_background_is_refused():
    with pytest.raises(ValueError, match="the background is empty"):
        fit_attacker(build_attacker("tfidf-svc"), [])


def test_a_background_about_one_person_is_refused():
    background = [BackgroundText("Ada Quist", ("glassblower",)), BackgroundText("ada  quist", ("bassoon",))]
    with pytest.raises(ValueError, match=r"at least 2 people .*got 1"):
        fit_attacker(build_attacker("tfidf-svc"), background)


def test_a_person_whose_background_has_no_words_is_named():
    background = [BackgroundText("Ada Quist", ("glassblower",)), BackgroundText("Bruno Velt", ())]
    with pytest.raises(ValueError, match="no words left after pretreatment in the background of: Bruno Velt"):
        fit_attacker(build_attacker("tfidf-svc"), background)


def test_an_unfitted_attacker_says_so():
    with pytest.raises(ValueError, match="tfidf-svc: the attacker has not been fitted"):
        build_attacker("tfidf-svc").scores([["glassblower"]])


def test_a_protected_person_absent_from_the_background_is_skipped_with_the_reason(
    pretreatment, five_people_tfidf, five_people_protected
):
    stranger = ProtectedText("doc-zoe", "Zoë Abara", "A harpist from Kingsbridge.")
    # Names match case-folded with whitespace collapsed.
    spelled = ProtectedText("doc-ada-2", "  ADA   quist ", five_people_protected[0].text)
    result = attack(five_people_tfidf, pretreatment, [stranger, spelled])
    assert result.skipped == [{"doc_id": "doc-zoe", "reason": "Zoë Abara has no background document"}]
    assert [(o.doc_id, o.person, o.rank) for o in result.outcomes] == [("doc-ada-2", "Ada Quist", 1)]


def test_an_attack_with_nobody_from_the_background_is_refused(pretreatment, five_people_tfidf):
    stranger = ProtectedText("doc-zoe", "Zoë Abara", "A harpist from Kingsbridge.")
    with pytest.raises(ValueError, match=r"none of the 1 protected documents is about a person of the background"):
        attack(five_people_tfidf, pretreatment, [stranger])


def test_an_attack_on_no_documents_is_refused(pretreatment, five_people_tfidf):
    with pytest.raises(ValueError, match="no protected documents"):
        attack(five_people_tfidf, pretreatment, [])


def test_a_name_typed_with_decomposed_accents_is_the_same_person():
    from sanitize_app.engine.reidentification.attack import normalize_name

    composed, decomposed = "Pen\u00e9lope Cruz", "Pene\u0301lope  cruz"
    assert composed != decomposed and normalize_name(composed) == normalize_name(decomposed)
