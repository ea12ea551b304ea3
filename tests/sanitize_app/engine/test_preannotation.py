"""The whole engine: recognizer, indicators, optimizer, decisions with reasons."""

from sanitize_app.engine.classifier import MaskingClassifier
from sanitize_app.engine.indicators import SpanClassificationIndicator
from sanitize_app.engine.preannotation import EngineConfig, PreannotationEngine

TEXT = (
    "The case originated in an application (no. 36110/97) against the Republic of Turkey lodged by a Turkish "
    "national, Mr Galip Yalman, on 3 May 1997. The Turkish Government were represented by their Agent. "
    "Mr Yalman, a journalist, lives in Izmir."
)


def by_text(preannotation) -> dict[str, object]:
    return {entity.mentions[0].text: entity for entity in preannotation.entities}


def test_with_no_model_the_guidelines_decide_and_say_so():
    engine = PreannotationEngine(EngineConfig(spacy_pipeline=None))
    result = engine.annotate(TEXT, "Galip Yalman", ["TUR"])
    entities = by_text(result)
    assert entities["36110/97"].identifier_type == "DIRECT"
    person = entities["Mr Galip Yalman"]
    assert person.identifier_type == "DIRECT" and [m.text for m in person.mentions] == ["Mr Galip Yalman", "Mr Yalman"]
    assert "optimizer: direct identifier" in person.reasons
    # The respondent state is public in any judgment against it.
    assert entities["Republic of Turkey"].identifier_type == "NO_MASK"
    assert entities["Republic of Turkey"].reasons == ["guideline rules: names the respondent state, public in the case"]
    assert entities["Turkish Government"].identifier_type == "NO_MASK"
    assert entities["3 May 1997"].identifier_type == "QUASI"
    assert entities["Izmir"].identifier_type == "QUASI" and any("guidelines" in r for r in entities["Izmir"].reasons)
    assert result.decided_by.startswith("guideline rules")
    assert result.recognizer.startswith("rules only") and result.information_content == "corpus statistics"
    assert {s.name for s in result.indicators if not s.available} == {
        "LM probabilities",
        "span classification",
        "perturbation",
        "sequence labelling",
        "web search",
    }
    masked = result.masked_spans()
    assert (TEXT.index("36110/97"), TEXT.index("36110/97") + 8) in masked
    assert all(TEXT[s:e] != "Republic of Turkey" for s, e in masked)
    assert set(result.seconds) == {"recognizer", "indicators", "optimizer"}


def test_a_trained_span_classifier_takes_over_from_the_rules(tmp_path):
    engine = PreannotationEngine(EngineConfig(spacy_pipeline=None))
    context, _ = engine.context(TEXT, "Galip Yalman", ["TUR"])
    rows = SpanClassificationIndicator(None).features(context)
    # Teach it that dates are not to be masked and everything else is.
    labels = [0 if e.label == "DATETIME" else 1 for e in context.entities]
    MaskingClassifier.train(rows, labels, meta={"representation": "ngrams"}, mask_weight=1.0).save(
        tmp_path / "span.joblib"
    )
    trained = PreannotationEngine(EngineConfig(spacy_pipeline=None, span_classifier=str(tmp_path / "span.joblib")))
    result = trained.annotate(TEXT, "Galip Yalman", ["TUR"])
    assert result.decided_by == "at least 1 of: span classification"
    entities = by_text(result)
    assert entities["3 May 1997"].identifier_type == "NO_MASK"
    assert entities["3 May 1997"].reasons[0].startswith("span classification: P(mask) = 0.")
    assert entities["Izmir"].identifier_type == "QUASI"
    assert entities["36110/97"].identifier_type == "DIRECT"  # whatever the classifier says


def test_a_masked_lm_alone_adds_perturbation_risk_but_the_rules_still_decide(tiny_models):
    engine = PreannotationEngine(EngineConfig(spacy_pipeline=None, masked_lm=tiny_models["mlm"]))
    result = engine.annotate(TEXT, "Galip Yalman", ["TUR"])
    statuses = {s.name: s.available for s in result.indicators}
    assert statuses["perturbation"] and not statuses["LM probabilities"]  # no classifier trained yet
    assert result.decided_by == "guideline rules (no model-based indicator available) + perturbation"
    assert result.information_content.startswith("masked LM")
    entities = by_text(result)
    # Privacy first: everything the rules find risky is still masked.
    assert entities["Izmir"].identifier_type == "QUASI" and entities["3 May 1997"].identifier_type == "QUASI"
    assert entities["Republic of Turkey"].identifier_type == "NO_MASK"
