"""The risk indicators' real code paths, with tiny models built in the tests."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, unquote, urlparse

import pytest
import torch

from sanitize_app.engine.classifier import MaskingClassifier
from sanitize_app.engine.context import DocumentContext, EntityView
from sanitize_app.engine.indicators import (
    CombinedRisk,
    HttpSearchBackend,
    IndicatorOutput,
    Judgement,
    LMProbabilityIndicator,
    PerturbationIndicator,
    SequenceLabellingIndicator,
    SpanClassificationIndicator,
    WebSearchIndicator,
)
from sanitize_app.engine.indicators.sequence_labelling import load_token_classifier, token_mask_probabilities
from sanitize_app.engine.lm import load_masked_lm
from sanitize_app.engine.recognizer import EntityRecognizer
from sanitize_app.engine.span_encoder import ContextualSpanEncoder

TEXT = "The applicant, Mr Galip Yalman, a Turkish journalist, was born in 1961 and lives in Izmir with his wife."


@pytest.fixture(scope="module")
def context():
    recognition = EntityRecognizer(None).recognize(TEXT, "Galip Yalman")
    entities = [
        EntityView(i, g.label, [(m.start, m.end) for m in g.mentions], g.protected)
        for i, g in enumerate(recognition.entities)
    ]
    return DocumentContext(TEXT, "Galip Yalman", entities, ["TUR"])


@pytest.fixture(scope="module")
def lm(tiny_models):
    loaded = load_masked_lm(tiny_models["mlm"])
    assert loaded.model is not None, loaded.reason
    return loaded.model


def labels_for(context) -> list[int]:
    """Hand labels: mask the person, the year and the town; not the rest."""
    masked = {"Mr Galip Yalman", "1961", "Izmir"}
    return [int(entity.first_text(TEXT) in masked) for entity in context.entities]


def test_the_masked_lm_scores_spans(lm, context):
    year = next(e for e in context.entities if e.first_text(TEXT) == "1961")
    alone = lm.span_log_probs(TEXT, year.mentions[0])
    assert alone and all(value < 0 for value in alone)
    person = next(e for e in context.entities if e.protected)
    with_person_masked = lm.span_log_probs(TEXT, year.mentions[0], [person.mentions[0]])
    assert len(with_person_masked) == len(alone) and with_person_masked != alone
    assert len(lm.span_embedding(TEXT, year.mentions[0])) == 32
    assert lm.information_content(TEXT, year.mentions[0]) == pytest.approx(-sum(alone))


def test_missing_models_are_reported_with_a_reason(tmp_path):
    assert "no masked language model configured" in load_masked_lm(None).reason
    assert "could not be loaded" in load_masked_lm(str(tmp_path / "missing")).reason
    assert "could not be loaded" in load_token_classifier(str(tmp_path / "missing"))[2]
    indicator = LMProbabilityIndicator(None, None, load_masked_lm(None).reason)
    assert not indicator.available and "SANITIZE_MASKED_LM" in indicator.unavailable_reason


def test_lm_probability_indicator_needs_a_classifier_trained_on_its_features(lm, context):
    untrained = LMProbabilityIndicator(lm, None)
    assert not untrained.available and "no masking classifier" in untrained.unavailable_reason
    rows = untrained.features(context)
    assert {"lm_min", "lm_max", "lm_mean", "lm_median", "lm_sum", "type=PERSON"} <= set().union(*rows)
    classifier = MaskingClassifier.train(rows, labels_for(context), meta={"features": "lm"})
    indicator = LMProbabilityIndicator(lm, classifier)
    assert indicator.available
    output = indicator.assess(context)
    assert set(output.entities) == {e.index for e in context.entities}
    assert all(0.0 <= j.score <= 1.0 and "P(mask)" in j.explanation for j in output.entities.values())


def test_span_classification_without_a_language_model(context, tmp_path):
    features = SpanClassificationIndicator(None).features(context)
    classifier = MaskingClassifier.train(features, labels_for(context), meta={"representation": "ngrams"})
    classifier.save(tmp_path / "span.joblib")
    indicator = SpanClassificationIndicator(MaskingClassifier.load(tmp_path / "span.joblib"))
    assert indicator.available
    judgements = indicator.assess(context).entities
    person = next(e for e in context.entities if e.protected)
    assert judgements[person.index].risky  # trained to mask it, on the same features


def test_an_ngram_span_classifier_keeps_working_when_a_masked_lm_is_configured(lm, context):
    classifier = MaskingClassifier.train(
        SpanClassificationIndicator(None).features(context), labels_for(context), meta={"representation": "ngrams"}
    )
    indicator = SpanClassificationIndicator(classifier, lm)
    assert indicator.available and indicator.representation == "ngrams"
    assert not any(name.startswith("emb") for name in indicator.features(context)[0])


def test_span_classifier_trained_with_another_masked_lm_is_refused(lm, context):
    rows = SpanClassificationIndicator(None).features(context)
    classifier = MaskingClassifier.train(rows, labels_for(context), meta={"representation": "mlm:another-model"})
    indicator = SpanClassificationIndicator(classifier, lm)
    assert not indicator.available
    assert f"trained with 'mlm:another-model' but 'mlm:{lm.name}' is configured" in indicator.unavailable_reason


@pytest.fixture(scope="module")
def tiny_encoder(tiny_models):
    return ContextualSpanEncoder(tiny_models["mlm"])  # a BERT directory with no recorded digest


def test_span_classification_trains_on_the_encoder_when_no_masked_lm_is_configured(tiny_encoder, context):
    untrained = SpanClassificationIndicator(None, encoder=tiny_encoder)
    assert untrained.representation == f"encoder:{tiny_encoder.setting}"
    rows = untrained.features(context)
    assert all(sum(row[f"enc{i}"] ** 2 for i in range(32)) == pytest.approx(1.0, abs=1e-5) for row in rows)
    classifier = MaskingClassifier.train(rows, labels_for(context), meta={"representation": untrained.representation})
    indicator = SpanClassificationIndicator(classifier, encoder=tiny_encoder)
    assert indicator.available and len(indicator.assess(context).entities) == len(context.entities)
    other = SpanClassificationIndicator(classifier, encoder=ContextualSpanEncoder("/no/such/encoder"))
    assert not other.available and "'encoder:/no/such/encoder' is configured" in other.unavailable_reason


def test_an_encoder_classifier_trained_on_other_weights_of_the_same_name_is_refused(tiny_encoder, context):
    rows = SpanClassificationIndicator(None, encoder=tiny_encoder).features(context)
    meta = {"representation": tiny_encoder.name, "encoder_sha256": "1" * 64}
    indicator = SpanClassificationIndicator(
        MaskingClassifier.train(rows, labels_for(context), meta=meta), encoder=tiny_encoder
    )
    assert not indicator.available
    assert f"SHA-256 {tiny_encoder.weights_sha256}, not {'1' * 64}" in indicator.unavailable_reason


def test_an_entity_is_embedded_as_the_mean_of_its_mentions(tiny_encoder):
    text = "Mr Yalman wrote to the court. The court answered Mr Yalman in May."
    first, second, court = (3, 9), (52, 58), (23, 28)
    entities = [EntityView(0, "PERSON", [first, second]), EntityView(1, "ORG", [court])]
    rows = SpanClassificationIndicator(None, encoder=tiny_encoder).features(DocumentContext(text, "", entities, []))
    a, b, c = (torch.tensor(v) for v in tiny_encoder.span_embeddings(text, [first, second, court]))
    expected = (a + b) / 2
    expected = expected / expected.norm()
    assert [rows[0][f"enc{i}"] for i in range(32)] == pytest.approx(expected.tolist(), abs=1e-5)
    assert [rows[1][f"enc{i}"] for i in range(32)] == pytest.approx((c / c.norm()).tolist(), abs=1e-5)


def test_training_needs_both_classes():
    with pytest.raises(ValueError, match="both masked and unmasked"):
        MaskingClassifier.train([{"a": 1.0}, {"a": 2.0}], [1, 1])


def test_perturbation_reports_pairs_that_give_each_other_away(lm, context):
    output = PerturbationIndicator(lm, threshold=-1e9).assess(context)  # every close pair counts
    assert output.combinations
    for combination in output.combinations:
        assert len(combination.entities) == 2 and combination.entities[0] < combination.entities[1]
        assert "less predictable" in combination.explanation
    assert PerturbationIndicator(lm, threshold=1e9).assess(context).combinations == []


@pytest.mark.parametrize("mode", ["any", "all"])
def test_sequence_labelling_judges_each_entity(tiny_models, context, mode):
    tokenizer, model, reason = load_token_classifier(tiny_models["tagger"])
    assert model is not None, reason
    output = SequenceLabellingIndicator(tokenizer, model, mode=mode).assess(context)
    assert set(output.entities) == {e.index for e in context.entities}
    assert all("tokens labelled MASK" in j.explanation for j in output.entities.values())


def test_windows_batched_into_one_call_give_the_probabilities_of_one_call_per_window(tiny_models, sample_documents):
    tokenizer, model, _ = load_token_classifier(tiny_models["tagger"])
    text = sample_documents[0]["text"][:3000]
    subwords = len(tokenizer(text, add_special_tokens=False)["input_ids"])
    assert subwords > 3 * 64  # several windows of 64, the last one shorter (padded in a batch)
    one_by_one = token_mask_probabilities(tokenizer, model, text, window=64, stride=48, batch=1)
    batched = token_mask_probabilities(tokenizer, model, text, window=64, stride=48)
    assert len(batched) == len(one_by_one) == subwords
    assert [(s, e) for s, e, _ in batched] == [(s, e) for s, e, _ in one_by_one]
    assert [p for _, _, p in batched] == pytest.approx([p for _, _, p in one_by_one], abs=1e-5)


class _SearchAPI(BaseHTTPRequestHandler):
    """A stand-in for a remote search API (none can be reached from here): a tiny index
    ranked by page length, at most ``limit`` results, in the shape of common APIs."""

    PAGES = {
        "https://harbour.example/izmir": "Izmir harbour",
        "https://port.example/izmir": "Izmir port",
        "https://jobs.example/journalist": "journalist jobs",
        "https://union.example/journalist": "journalist union",
        "https://news.example/yalman": "Galip Yalman, journalist from Izmir",
        "https://archive.example/yalman": "Galip Yalman archive of Turkish press",
    }

    def do_GET(self):  # noqa: N802 (http.server's naming)
        params = parse_qs(urlparse(self.path).query)
        phrases = [p for p in unquote(params["q"][0]).split('"') if p.strip()]
        limit = int(params["limit"][0])
        ranked = sorted(
            (url for url, body in self.PAGES.items() if all(p in body for p in phrases)),
            key=lambda url: len(self.PAGES[url]),
        )
        payload = json.dumps({"items": [{"link": url} for url in ranked[:limit]]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def search_api():
    server = HTTPServer(("127.0.0.1", 0), _SearchAPI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/search?q={{query}}&limit={{limit}}"
    server.shutdown()


def test_web_search_through_the_http_client(search_api, context):
    backend = HttpSearchBackend(search_api)
    assert backend.urls(["Galip Yalman"], 1) == ["https://news.example/yalman"]
    output = WebSearchIndicator(backend, top=2).assess(context)
    by_text = {e.first_text(TEXT): (e.index, output.entities.get(e.index)) for e in context.entities if not e.protected}
    # Alone, "Izmir" and "journalist" bring up other pages first: not risky.
    assert not by_text["Izmir"][1].risky and not by_text["journalist"][1].risky
    # "Turkish" brings up a page about the person: risky on its own.
    assert by_text["Turkish"][1].risky and "include 1 of the 2 documents" in by_text["Turkish"][1].explanation
    # Together, "journalist" and "Izmir" find the person's page.
    pair = tuple(sorted((by_text["journalist"][0], by_text["Izmir"][0])))
    assert pair in [c.entities for c in output.combinations]


class _Fixed:
    def __init__(self, name, risky, available=True, fail=False):
        self.name, self.risky, self.available, self.fail = name, risky, available, fail
        self.unavailable_reason = "" if available else "not configured"

    def assess(self, context):
        if self.fail:
            raise RuntimeError("backend down")
        return IndicatorOutput(
            self.name, {i: Judgement(1.0 if i in self.risky else 0.0, i in self.risky, self.name) for i in range(3)}
        )


def test_at_least_k_available_indicators_must_agree(context):
    combined = CombinedRisk([_Fixed("a", {0, 1}), _Fixed("b", {1, 2}), _Fixed("c", {0}, available=False)], k=2)
    assessment = combined.assess(context)
    assert set(assessment.risky) == {1}
    assert assessment.decided_by == "at least 2 of: a, b"
    assert [(s.name, s.available, s.reason) for s in assessment.statuses][2] == ("c", False, "not configured")


def test_a_failing_indicator_is_reported_and_the_fallback_decides_when_none_is_left(context):
    assessment = CombinedRisk([_Fixed("a", {0}, fail=True)]).assess(context)
    assert assessment.statuses[0].reason == "failed on this document: backend down"
    # Its model failed on this document: the rules decide rather than nobody.
    assert assessment.decided_by == "guideline rules (no model-based indicator available)"
    assert set(assessment.risky) == {e.index for e in context.entities}
    none = CombinedRisk([_Fixed("a", set(), available=False)]).assess(context)
    assert none.decided_by.startswith("guideline rules (no model-based indicator available)")
    assert set(none.risky) == {e.index for e in context.entities}  # privacy first: all risky


def test_an_indicator_that_cannot_decide_adds_risk_to_the_rules(context):
    adding = _Fixed("web", {0})
    adding.decides = False
    assessment = CombinedRisk([adding], k=2).assess(context)
    assert assessment.decided_by == "guideline rules (no model-based indicator available) + web"
    assert set(assessment.risky) == {e.index for e in context.entities}
    assert "web" in assessment.risky[0]  # its reason is kept next to the rules'


class _Probable:
    """A trained model's indicator: its scores are P(mask)."""

    probabilistic = True
    available = True
    unavailable_reason = ""

    def __init__(self, name, probabilities):
        self.name, self.probabilities = name, probabilities

    def assess(self, context):
        return IndicatorOutput(self.name, {i: Judgement(p, p >= 0.5, self.name) for i, p in self.probabilities.items()})


def test_the_trained_models_probability_is_kept_apart_from_other_scores(context):
    models = [_Probable("span", {0: 0.9, 1: 0.2}), _Probable("sequence", {0: 0.5})]
    assessment = CombinedRisk([*models, _Fixed("web", {1})]).assess(context)
    assert assessment.mask_probability(0) == pytest.approx(0.7)  # (0.9 + 0.5) / 2
    assert assessment.mask_probability(1) == pytest.approx(0.2)  # web's 1.0 is a vote, not a probability
    assert assessment.scores[1] == 1.0
    assert assessment.mask_probability(2) is None  # only web judged it
    rules = CombinedRisk([_Fixed("a", set(), available=False)]).assess(context)
    assert [rules.mask_probability(e.index) for e in context.entities] == [None] * len(context.entities)
