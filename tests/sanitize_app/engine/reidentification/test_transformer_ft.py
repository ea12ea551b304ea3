"""transformer-ft's code path with a tiny BERT built here (2 layers, hidden size 64,
random weights) and a WordPiece vocabulary of the five-person fixture's words, saved to a
temporary directory: no download. Fine-tuning must at least learn its own training
windows; leaking terms come from occlusion."""

import pytest

from sanitize_app.engine.reidentification.attack import attack, fit_attacker
from sanitize_app.engine.reidentification.attackers import build_attacker

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory, five_people_background, pretreatment, five_people_protected):
    import torch
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertConfig, BertModel, BertTokenizerFast

    words = {word for text in five_people_background for word in text.words + text.augmented}
    words |= {token.lemma for doc in five_people_protected for token in pretreatment.tokens(doc.text)}
    directory = tmp_path_factory.mktemp("tiny-bert")
    vocabulary = {piece: i for i, piece in enumerate(SPECIAL + sorted(words))}
    tokenizer = BertTokenizerFast(tokenizer_object=BertWordPieceTokenizer(vocabulary, lowercase=True)._tokenizer)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(SPECIAL) + len(words),
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=128,
        max_position_embeddings=128,
    )
    BertModel(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return str(directory)


@pytest.fixture(scope="module")
def fitted(tiny_bert, five_people_background):
    # One batch of the ten windows per epoch; 40 steps learn them for every seed tried (0-3).
    attacker = build_attacker(
        "transformer-ft", model=tiny_bert, epochs=40, batch_size=10, learning_rate=3e-3, max_tokens=96
    )
    fit_attacker(attacker, five_people_background)
    return attacker


def test_fine_tuning_learns_its_training_windows(fitted, five_people_background):
    scores = fitted.scores([text.words for text in five_people_background])
    assert scores.shape == (5, 5)
    assert list(scores.argmax(axis=1)) == [0, 1, 2, 3, 4]


def test_the_result_names_the_attacker_and_its_settings(fitted, pretreatment, five_people_protected):
    result = attack(fitted, pretreatment, five_people_protected, leaking_terms=3)
    assert result.attacker == "transformer-ft" and result.n == 5 and result.people == 5
    settings = result.settings
    assert settings["epochs"] == 40 and settings["batch_size"] == 10 and settings["seed"] == 0
    assert settings["device"] == "cpu" and "unverified" in settings["model"]
    assert all(len(o.guesses) == 5 for o in result.outcomes)
    for outcome in result.outcomes:
        assert len(outcome.leaking_terms) <= 3
        assert all(term.weight > 0 for term in outcome.leaking_terms)
    # Ada's text keeps her town, which only her background names: she is named, and the
    # town is among the words that gave her away (occlusion, not the linear shortcut).
    ada = next(o for o in result.outcomes if o.doc_id == "doc-ada")
    assert ada.rank == 1 and "Harrowgate" in {term.text for term in ada.leaking_terms}


def test_occlusion_measures_the_drop_of_the_true_persons_score(fitted):
    words = ["glassblower", "harrowgate", "bassoon", "harrowgate"]
    shares = fitted.contributions(words, 0)
    base = fitted.scores([words])[0, 0]
    without_harrowgate = fitted.scores([["glassblower", "bassoon"]])[0, 0]
    # Both occurrences of "harrowgate" share the drop its removal causes.
    assert shares[1] == shares[3] == pytest.approx((base - without_harrowgate) / 2, abs=1e-5)


def test_the_same_seed_gives_the_same_model(tiny_bert, five_people_background):
    def fitted_twice():
        attacker = build_attacker("transformer-ft", model=tiny_bert, epochs=2, batch_size=4, seed=7)
        fit_attacker(attacker, five_people_background)
        return attacker.scores([five_people_background[0].words])

    assert fitted_twice() == pytest.approx(fitted_twice(), abs=1e-5)
