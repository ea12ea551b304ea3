"""Training the masking classifier (P(an entity must be masked | its features)) from
annotators' identifier types, scikit-learn.

The examples are what the classifier will see in use: the entities the engine's
recognizer finds in a training document (with ``engine_config``'s pipeline, which may
be a freshly trained recognizer), with the features of the indicator that will ask the
classifier (``indicators.classified``: type, length, information content, position,
mention count, overlap with the protected person's name, context words, and the span's
representation in its context: the masked LM's hidden states when a masked LM is
configured, else the pretrained encoder's when it loads, else hashed character n-grams;
for ``features="lm"`` the subword log-probabilities under the masked
LM instead). Each annotator's layer labels them once: an entity is to be masked (1) when
one of its mentions shares a word character with a mention that annotator marked
DIRECT or QUASI, else 0 (NO_MASK, or not annotated at all).

The saved file is a ``MaskingClassifier``: ``EngineConfig(span_classifier=path)`` (or
``SANITIZE_SPAN_CLASSIFIER``) loads it for ``features="span"``, ``lm_classifier`` /
``SANITIZE_LM_CLASSIFIER`` for ``features="lm"``; its metadata records the features and
representation it was trained with, which the indicator checks."""

from dataclasses import replace
from pathlib import Path

from ..classifier import MaskingClassifier
from ..indicators import LMProbabilityIndicator, SpanClassificationIndicator
from ..information_content import CorpusStatistics
from ..preannotation import EngineConfig, PreannotationEngine
from .heldout import corpus_statistics, evaluate_engine
from .layers import Layer, layers_of
from .result import Clock, Progress, TrainingError, TrainingResult, doc_ids

CONFIG_FIELDS = {"span": "span_classifier", "lm": "lm_classifier"}


def entity_labels(entities, layer: Layer) -> list[int]:
    """1 for each entity (``EntityView``) one of whose mentions overlaps a word the
    annotator of ``layer`` masked, else 0."""
    masked = layer.masked_offsets()
    return [int(any(i in masked for s, e in entity.mentions for i in range(s, e))) for entity in entities]


def _check_loaded(config: EngineConfig, engine: PreannotationEngine) -> None:
    """A configured model that did not load would silently train on other features."""
    if config.spacy_pipeline and not engine.recognizer.has_ner:
        raise TrainingError(f"engine_config.spacy_pipeline {config.spacy_pipeline!r}: {engine.recognizer.status}")
    if config.masked_lm and engine.lm is None:
        raise TrainingError(f"engine_config.masked_lm {config.masked_lm!r} could not be loaded")


def _encoder_unavailable(engine: PreannotationEngine, representation: str) -> str:
    """Why a configured encoder was not used (its checksum failed, it is not installed):
    training falls back to n-grams then, and the result says so. "" otherwise."""
    if representation != "ngrams" or engine.lm is not None or not engine.span_encoder.setting:
        return ""
    return engine.span_encoder.unavailable_reason


def _indicator(features: str, engine: PreannotationEngine):
    if features == "span":
        return SpanClassificationIndicator(None, engine.lm, engine.ic, encoder=engine.span_encoder)
    if engine.lm is None:
        raise TrainingError(
            "an LM-feature masking classifier needs a masked language model: "
            "set engine_config.masked_lm to a local model (none could be loaded)"
        )
    return LMProbabilityIndicator(engine.lm, None, "", engine.ic)


def train_masking_classifier(
    train: list[dict],
    heldout: list[dict],
    out_path: Path,
    *,
    engine_config: EngineConfig | None = None,
    annotators: list[str] | None = None,
    progress: Progress | None = None,
    time_limit_s: float | None = None,
    features: str = "span",
    mask_weight: float = 3.0,
    statistics: CorpusStatistics | None = None,
) -> TrainingResult:
    """Train, save to ``out_path`` and evaluate on ``heldout`` (with ``engine_config``
    plus the new classifier). Information content comes from ``statistics`` (default:
    the word statistics of the train and held-out texts). The time limit covers feature
    extraction (checked after each document); stopped by it, the classifier is trained
    on the documents read so far."""
    clock = Clock(time_limit_s, progress)
    if features not in CONFIG_FIELDS:
        raise TrainingError(f"unknown masking features {features!r}: choose 'span' or 'lm'")
    if mask_weight <= 0:
        raise TrainingError(f"mask_weight must be positive, not {mask_weight}")
    layers = list(layers_of(train, annotators))
    if not layers:
        raise TrainingError("no training data: the training documents have no annotated layer")
    base = replace(engine_config or EngineConfig(), span_classifier=None, lm_classifier=None)
    statistics = statistics or corpus_statistics(train, heldout)
    engine = PreannotationEngine(base, statistics=statistics)
    _check_loaded(base, engine)
    indicator = _indicator(features, engine)
    by_document: dict[str, list[Layer]] = {}
    for layer in layers:
        by_document.setdefault(layer.doc_id, []).append(layer)
    rows, labels, read, stopped_early = [], [], 0, False
    for position, document_layers in enumerate(by_document.values()):
        if clock.expired:
            stopped_early = True
            break
        first = document_layers[0]
        context, _ = engine.context(first.text, first.person, first.respondent_states)
        features_of = indicator.features(context)
        for layer in document_layers:
            rows += features_of
            labels += entity_labels(context.entities, layer)
        read += 1
        clock.report(0.8 * (position + 1) / len(by_document), f"features of {first.doc_id}")
    if not rows:
        if stopped_early:
            raise TrainingError(f"time limit of {time_limit_s} s reached before any training example was read")
        raise TrainingError("no training data: the recognizer found no entity in the training documents")
    representation = indicator.representation if features == "span" else f"lm:{engine.lm.name}"
    meta = {
        "features": features,
        "representation": representation,
        "encoder_sha256": engine.span_encoder.weights_sha256 if representation.startswith("encoder:") else "",
        "recognizer": engine.recognizer.status,
        "information_content": engine.ic.source,
        "mask_weight": mask_weight,
    }
    try:
        classifier = MaskingClassifier.train(rows, labels, meta=meta, mask_weight=mask_weight)
    except ValueError as exc:
        which = "masked" if not any(labels) else "unmasked"
        raise TrainingError(f"the masking classifier cannot be trained: no {which} entity in the data ({exc})") from exc
    out_path = Path(out_path)
    classifier.save(out_path)
    clock.report(0.8, "evaluating on the held-out documents")
    field = CONFIG_FIELDS[features]
    metrics = {}
    if heldout:
        evaluated = PreannotationEngine(replace(base, **{field: str(out_path)}), statistics=statistics)
        metrics = evaluate_engine(evaluated, heldout, annotators)
    metrics.update(examples=len(rows), positives=int(sum(labels)), layers=len(layers))
    clock.report(1.0, "done")
    return TrainingResult(
        kind="masking",
        path=out_path,
        metrics=metrics,
        config={
            "features": features,
            "representation": representation,
            "encoder": base.encoder,
            "encoder_unavailable": _encoder_unavailable(engine, representation),
            "mask_weight": mask_weight,
            "classifier": "DictVectorizer + LogisticRegression (scikit-learn)",
            "recognizer": engine.recognizer.status,
            "spacy_pipeline": base.spacy_pipeline,
            "masked_lm": base.masked_lm,
            "information_content": engine.ic.source,
            "annotators": annotators,
            "documents_read": read,
            "stopped_early": stopped_early,
            "time_limit_s": time_limit_s,
            "engine_config": {field: str(out_path)},
        },
        duration_s=round(clock.elapsed, 3),
        train_documents=doc_ids(train),
        heldout_documents=doc_ids(heldout),
    )
