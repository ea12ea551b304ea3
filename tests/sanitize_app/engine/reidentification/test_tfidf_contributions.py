"""tfidf-svc's contributions are an exact decomposition of its scores: a document's word
contributions plus one intercept per window equal the sum of the SVM's decision values
over the document's windows, computed here straight from scikit-learn."""

import numpy as np
import pytest

from sanitize_app.engine.reidentification.attack import fit_attacker
from sanitize_app.engine.reidentification.attackers import build_attacker
from sanitize_app.engine.reidentification.windows import windows


def decision_sum(attacker, words, person: int, size: int, stride: int) -> float:
    texts = [" ".join(window) for window in windows(words, size, stride)]
    values = attacker.classifier.decision_function(attacker.vectorizer.transform(texts))
    if values.ndim == 1:  # two people: positive towards the second
        values = np.stack([-values, values], axis=1)
    return float(values[:, person].sum())


def test_contributions_and_window_intercepts_add_up_to_the_decision_values(five_people_tfidf, five_people_background):
    # Emil's background text repeated (several windows, repeated bigrams) with Chidi's words.
    words = list(five_people_background[4].words) * 3 + ["beekeeper", "marrowby", "honey", "beekeeper"]
    attacker = five_people_tfidf
    n_windows = len(windows(words))
    assert n_windows == 2
    for person in range(5):
        shares = attacker.contributions(words, person)
        assert shares.shape == (len(words),)
        expected = decision_sum(attacker, words, person, 75, 56)
        assert shares.sum() + n_windows * attacker.intercept[person] == pytest.approx(expected, abs=1e-9)
        assert attacker.scores([words])[0, person] == pytest.approx(expected, abs=1e-9)


def test_the_decomposition_holds_for_two_people_and_small_windows(five_people_background):
    attacker = build_attacker("tfidf-svc", window=6, stride=4)
    fit_attacker(attacker, five_people_background[:2])
    words = list(five_people_background[1].words[:9]) + list(five_people_background[0].words[:5])
    for person in (0, 1):
        shares = attacker.contributions(words, person)
        expected = decision_sum(attacker, words, person, 6, 4)
        assert shares.sum() + len(windows(words, 6, 4)) * attacker.intercept[person] == pytest.approx(expected)
    # Bruno's words push towards Bruno (second person), Ada's towards Ada.
    towards_bruno = attacker.contributions(words, 1)
    assert towards_bruno[:9].sum() > 0 > towards_bruno[9:].sum()


def test_a_word_the_background_never_used_contributes_nothing(five_people_tfidf):
    shares = five_people_tfidf.contributions(["glassblower", "zeppelin", "bassoon"], 0)
    assert shares[1] == 0 and shares[0] > 0 and shares[2] > 0


def test_unigram_only_settings_are_recorded_and_still_decompose(five_people_background):
    attacker = build_attacker("tfidf-svc", ngram_max=1)
    fit_attacker(attacker, five_people_background)
    assert attacker.describe()["ngram_range"] == [1, 1]
    words = ["glassblower", "harrowgate", "bassoon", "clock"]
    assert attacker.contributions(words, 0).sum() + attacker.intercept[0] == pytest.approx(
        decision_sum(attacker, words, 0, 75, 56)
    )
