"""Held-out evaluation of a trained model: the engine configured with it annotates the
held-out documents, and its output is scored against every annotator's layer.

- Masking (``evaluation.evaluate``, the official script's semantics): ER_di, ER_qi, WP
  (uniform weights), token recall and precision, recall per entity type; for the
  engine's decisions and for "mask everything detected" (``mask_all``). Token filter:
  the official one (spaCy's POS tags from en_core_web_sm) when that pipeline is
  installed, else the word-list approximation; ``token_filter`` in the metrics says which.
- Recognition (``entity_type_scores``): exact-match precision, recall and F1 of the
  recognised (start, end, type) spans against each annotator's spans, micro-averaged
  over annotators (a recognised span is counted once per annotator of the document),
  overall and per type.
"""

from ..evaluation import GoldCorpus, evaluate, official_token_filter
from ..information_content import CorpusStatistics
from ..preannotation import PreannotationEngine
from .layers import TAB_TYPES, Layer, layers_of

MASKING_KEYS = ("ER_di", "ER_qi", "WP", "token_recall", "token_precision", "recall_by_type")


def corpus_statistics(*parts: list[dict]) -> CorpusStatistics:
    """Word statistics of the texts (not the annotations) of all documents, as the app
    computes information content from its corpus."""
    return CorpusStatistics.from_texts(d["text"] for documents in parts for d in documents)


def _prf(hits: int, predicted: int, gold: int) -> dict:
    precision = hits / predicted if predicted else 0.0
    recall = hits / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "support": gold}


def entity_type_scores(predicted: dict[str, set[tuple[int, int, str]]], layers: list[Layer]) -> dict:
    """Exact (start, end, type) matches of ``predicted`` ({doc_id: spans}) against each layer."""
    counts = {t: [0, 0, 0] for t in TAB_TYPES}  # hits, predicted, gold
    for layer in layers:
        gold = layer.spans()
        spans = predicted.get(layer.doc_id, set())
        for label in TAB_TYPES:
            mine = {s for s in spans if s[2] == label}
            theirs = {s for s in gold if s[2] == label}
            counts[label][0] += len(mine & theirs)
            counts[label][1] += len(mine)
            counts[label][2] += len(theirs)
    total = [sum(c[i] for c in counts.values()) for i in range(3)]
    overall = _prf(*total)
    return {
        "entity_type_f1": overall["f1"],
        "entity_type_precision": overall["precision"],
        "entity_type_recall": overall["recall"],
        "per_type": {t: _prf(*c) for t, c in counts.items() if c[1] or c[2]},
    }


def _masking(gold: GoldCorpus, masked: dict, token_filter) -> dict:
    report = evaluate(gold, masked, token_filter=token_filter).as_dict()
    return {key: report[key] for key in (*MASKING_KEYS, "weighting", "token_filter", "documents")}


def evaluate_engine(
    engine: PreannotationEngine, heldout: list[dict], annotators: list[str] | None = None, token_filter=None
) -> dict:
    """Metrics of ``engine`` on the held-out documents (those with at least one layer of
    the given annotators); {} when there is none."""
    layers = list(layers_of(heldout, annotators))
    with_layers = {layer.doc_id for layer in layers}
    documents = [d for d in heldout if str(d["doc_id"]) in with_layers]
    if not documents:
        return {}
    decided, everything, recognised = {}, {}, {}
    for document in documents:
        first = next(layer for layer in layers if layer.doc_id == str(document["doc_id"]))
        result = engine.annotate(first.text, first.person, first.respondent_states)
        doc_id = first.doc_id
        decided[doc_id] = sorted(set(result.masked_spans()))
        everything[doc_id] = sorted({(m.start, m.end) for m in result.mentions})
        recognised[doc_id] = {(m.start, m.end, m.entity_type) for m in result.mentions}
    gold = GoldCorpus.from_tab(documents, annotators)
    token_filter = token_filter or official_token_filter()
    metrics = _masking(gold, decided, token_filter)
    metrics["mask_all"] = _masking(gold, everything, token_filter)
    metrics.update(entity_type_scores(recognised, layers))
    metrics["recognizer"] = engine.recognizer.status
    metrics["decided_by"] = sorted({s.name for s in engine.indicator_statuses if s.available}) or ["guideline rules"]
    return metrics
