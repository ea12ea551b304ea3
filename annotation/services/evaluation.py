"""Evaluating a masking source against the human layers of a corpus with the TAB
metrics (``sanitize_app.engine.evaluation``, which reproduces the official script).

A source is the pre-annotation engine (its newest predictions per document), one
annotator (evaluated against the others), or a masked-output file in the official
format ``{"doc_id": [[start, end], ...]}``."""

import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from sanitize_app.engine.evaluation import EvaluationReport, GoldCorpus, evaluate, official_token_filter

from ..corpus_io.masks import annotator_masked_spans
from ..corpus_io.tab_writer import iter_tab_documents
from ..models import Corpus
from .errors import DomainError
from .preannotation import predicted_masked_spans

Spans = dict[str, list[tuple[int, int]]]


@dataclass
class CorpusEvaluation:
    source: str
    report: EvaluationReport
    annotators: list[str]
    lm_report: EvaluationReport | None = None

    def as_dict(self) -> dict:
        data = self.report.as_dict()
        data["WP_lm"] = self.lm_report.WP if self.lm_report else None
        data["source"] = self.source
        data["annotators"] = self.annotators
        return data


def read_masked_file(path: Path, texts: dict[str, str]) -> Spans:
    """A masked-output file, checked against the corpus: every problem names the
    document and the span."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DomainError(f"{path} is not a readable JSON file: {exc}", field="source") from None
    if not isinstance(data, dict):
        raise DomainError(f'{path} must be a JSON object {{"doc_id": [[start, end], ...]}}.', field="source")
    problems, masked = [], {}
    for doc_id, spans in data.items():
        if doc_id not in texts:
            problems.append(f"document {doc_id} is not in the corpus")
            continue
        if not isinstance(spans, list):
            problems.append(f"document {doc_id}: the spans must be a list of [start, end]")
            continue
        checked = []
        for span in spans:
            valid = isinstance(span, list | tuple) and len(span) == 2 and all(type(v) is int for v in span)
            if not valid or not 0 <= span[0] < span[1] <= len(texts[doc_id]):
                problems.append(f"document {doc_id}: span {span!r} is not [start, end] inside its text")
                continue
            checked.append((span[0], span[1]))
        masked[doc_id] = checked
    if problems:
        raise DomainError(
            f"{path}: " + "; ".join(problems[:10]) + ("; ..." if len(problems) > 10 else ""), field="source"
        )
    return masked


def _lm_weighting():
    name = settings.SANITIZE_ENGINE.get("masked_lm")
    if not name:
        return None
    from sanitize_app.engine.lm import load_masked_lm

    lm = load_masked_lm(name, settings.SANITIZE_ENGINE.get("device", "cpu")).model
    if lm is None:
        return None
    return lambda text, spans: [lm.information_content(text, span) for span in spans]


def evaluate_source(
    corpus: Corpus,
    source: str,
    *,
    annotators: list[str] | None = None,
    finished_only: bool = True,
    token_filter=None,
) -> CorpusEvaluation:
    """``source``: "preannotation", "annotator:NAME" or the path of a masked-output file.
    Gold: the layers of ``annotators`` (default: everybody, but the evaluated annotator),
    confirmed or reviewed ones only unless ``finished_only`` is False."""
    documents = corpus.documents.all()
    texts = dict(documents.values_list("doc_id", "text"))
    if source == "preannotation":
        masked = predicted_masked_spans(documents)
        if not masked:
            raise DomainError(f"No document of corpus {corpus.name} has been pre-annotated.", field="source")
        exclude = None
    elif source.startswith("annotator:"):
        exclude = source.split(":", 1)[1]
        masked = annotator_masked_spans(documents, exclude)
        if not masked:
            raise DomainError(f"{exclude} has no layer in corpus {corpus.name}.", field="source")
    else:
        masked, exclude = read_masked_file(Path(source), texts), None
    tab = list(iter_tab_documents(documents.filter(doc_id__in=list(masked)), finished_only=finished_only))
    names = sorted({name for document in tab for name in document["annotations"]} - {exclude})
    if annotators:
        unknown = sorted(set(annotators) - set(names))
        if unknown:
            raise DomainError(f"No finished layer of {', '.join(unknown)} on these documents.", field="annotators")
        names = sorted(annotators)
    gold = GoldCorpus.from_tab(tab, annotators=names)
    scored = {doc_id: spans for doc_id, spans in masked.items() if gold.documents[doc_id].annotators}
    if not scored:
        raise DomainError("No document has a finished layer of the chosen annotators to compare with.", field="source")
    token_filter = token_filter or official_token_filter()
    report = evaluate(gold, scored, token_filter=token_filter)
    weighting = _lm_weighting()
    lm_report = (
        evaluate(gold, scored, token_filter=token_filter, weighting=weighting, weighting_name="LM")
        if weighting
        else None
    )
    return CorpusEvaluation(source, report, names, lm_report)
