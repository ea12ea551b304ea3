"""TRIR on the synthetic five-person population (tests/support/five_people.py): its
docstring gives the answer by construction. Ada, Bruno and Chidi keep their own words,
Emil has twice as many of his own as of Chidi's: named first; Dora's words are all masked:
not named first. So TRIR = 4/5, the chance baseline 1/5."""

import pytest

from sanitize_app.engine.reidentification.attack import attack, fit_attacker
from sanitize_app.engine.reidentification.attackers import build_attacker
from tests.support import five_people


def test_tfidf_svc_re_identifies_the_four_documents_that_keep_their_persons_words(
    pretreatment, five_people_tfidf, five_people_protected
):
    result = attack(five_people_tfidf, pretreatment, five_people_protected)
    assert result.trir == five_people.EXPECTED_TRIR == 0.8
    assert {o.doc_id for o in result.outcomes if o.re_identified} == five_people.EXPECTED_RE_IDENTIFIED
    assert result.people == 5 and result.n == 5
    assert result.random_baseline == 0.2
    assert result.top5 == 1.0  # five people: everyone is in the top five
    ranks = {o.doc_id: o.rank for o in result.outcomes}
    assert ranks["doc-dora"] > 1
    assert all(ranks[doc] == 1 for doc in five_people.EXPECTED_RE_IDENTIFIED)


def test_guesses_are_the_people_by_decreasing_score_and_the_rank_counts_the_ones_above(
    pretreatment, five_people_tfidf, five_people_protected
):
    result = attack(five_people_tfidf, pretreatment, five_people_protected)
    for outcome in result.outcomes:
        scores = [score for _, score in outcome.guesses]
        assert scores == sorted(scores, reverse=True) and len(outcome.guesses) == 5
        true_score = dict(outcome.guesses)[outcome.person]
        assert outcome.rank == 1 + sum(score > true_score for score in scores)
    emil = next(o for o in result.outcomes if o.doc_id == "doc-emil")
    assert [name for name, _ in emil.guesses[:2]] == ["Emil Straka", "Chidi Okafor"]  # Chidi's words come second


def test_leaking_terms_are_the_persons_distinctive_words_where_they_are_written(
    pretreatment, five_people_tfidf, five_people_protected
):
    result = attack(five_people_tfidf, pretreatment, five_people_protected, leaking_terms=10)
    texts = {doc.doc_id: doc.text for doc in five_people_protected}
    for outcome in result.outcomes:
        if not outcome.re_identified:
            assert outcome.leaking_terms == []
            continue
        lemmas = [term.lemma for term in outcome.leaking_terms]
        assert {word.lower() for word in five_people.MASKABLE[outcome.doc_id]} <= set(lemmas)
        assert len(lemmas) == len(set(lemmas))  # one term per lemma
        weights = [term.weight for term in outcome.leaking_terms]
        assert all(weight > 0 for weight in weights) and weights == sorted(weights, reverse=True)
        for term in outcome.leaking_terms:
            assert texts[outcome.doc_id][term.start : term.end] == term.text
    ada = next(o for o in result.outcomes if o.doc_id == "doc-ada")
    assert {term.lemma: term.text for term in ada.leaking_terms}["harrowgate"] == "Harrowgate"


def test_only_the_requested_number_of_leaking_terms_is_kept(pretreatment, five_people_tfidf, five_people_protected):
    result = attack(five_people_tfidf, pretreatment, five_people_protected, leaking_terms=2)
    assert {len(o.leaking_terms) for o in result.outcomes if o.re_identified} == {2}


def test_progress_is_reported_after_each_document_and_the_result_names_the_attacker(
    pretreatment, five_people_tfidf, five_people_protected
):
    calls = []
    result = attack(five_people_tfidf, pretreatment, five_people_protected, progress=lambda *a: calls.append(a))
    assert calls == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]
    summary = result.summary()
    assert summary["attacker"] == "tfidf-svc" and summary["TRIR"] == 0.8
    assert summary["settings"]["ngram_range"] == [1, 2] and summary["settings"]["C"] == 1.0
    assert summary["settings"]["window"] == 75 and summary["settings"]["stride"] == 56
    assert result.fit_seconds > 0 and result.attack_seconds > 0


@pytest.mark.usefixtures("one_torch_thread")
def test_encoder_lr_names_the_people_whose_words_are_kept(pretreatment, five_people_background, five_people_protected):
    # Frozen sentence embeddings of ten tiny windows: Ada, Bruno and Chidi's texts share
    # their background's rare words and nobody else's; Emil's and Dora's are not asserted.
    # Leaking terms (occlusion) are left to the transformer-ft tests: re-scoring is slow here.
    attacker = build_attacker("encoder-lr")
    fit_attacker(attacker, five_people_background)
    result = attack(attacker, pretreatment, five_people_protected, leaking_terms=0)
    ranks = {o.doc_id: o.rank for o in result.outcomes}
    assert ranks["doc-ada"] == ranks["doc-bruno"] == ranks["doc-chidi"] == 1
    assert result.attacker == "encoder-lr" and "SHA-256 verified" in result.settings["encoder"]
    assert result.settings["classifier"] == "LogisticRegression" and result.settings["max_tokens"] == 256


def test_a_tie_with_the_true_person_counts_as_named_and_lists_them_first():
    """Scores by hand: Bruno and Ada tie at the top; Ada's rank is 1 (a tie must not
    lower the risk) and she is the first guess, not Bruno who comes first by order."""
    from types import SimpleNamespace

    import numpy as np

    from sanitize_app.engine.reidentification.attack import _outcome
    from sanitize_app.engine.reidentification.types import ProtectedText

    attacker = SimpleNamespace(people=["Bruno Velt", "Ada Quist", "Chidi Okafor"])
    row = np.array([2.0, 2.0, -1.0])
    outcome = _outcome(attacker, ProtectedText("d", "Ada Quist", "text"), [], row, 1, 0)
    assert outcome.rank == 1 and outcome.re_identified
    assert [name for name, _ in outcome.guesses] == ["Ada Quist", "Bruno Velt", "Chidi Okafor"]
