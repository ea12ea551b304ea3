"""Evaluating a masking source against the human layers of a corpus with the TAB
metrics (``sanitize_app.engine.evaluation``, which reproduces the official script).

A source is the pre-annotation engine (its newest predictions per document), one
annotator (evaluated against the others), or a masked-output file in the official
format ``{"doc_id": [[start, end], ...]}``."""

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from django.conf import settings

from sanitize_app.engine.evaluation import EvaluationReport, GoldCorpus, evaluate, official_token_filter
from sanitize_app.engine.evaluation.metrics import Weighting

from ..corpus_io.masks import annotator_masked_spans
from ..corpus_io.tab_writer import iter_tab_documents
from ..enums import FINISHED_LAYER_STATUSES as FINISHED
from ..models import AnnotationLayer, Corpus, RunDocument
from ..selectors import natural_key
from .errors import DomainError
from .preannotation import predicted_masked_spans

Spans = dict[str, list[tuple[int, int]]]
LM_NOT_CONFIGURED = (
    'WP with LM weights needs a masked language model: set SANITIZE_ENGINE["masked_lm"] (SANITIZE_MASKED_LM).'
)


@dataclass
class CorpusEvaluation:
    source: str
    report: EvaluationReport
    annotators: list[str]
    lm_report: EvaluationReport | None = None
    lm_unavailable: str = ""  # why there is no LM-weighted WP (empty when there is one)

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
    return masked_spans_from_data(data, texts, label=str(path))


def read_masked_json(content: bytes | str, texts: dict[str, str], *, label: str) -> Spans:
    """The same check for the content of an uploaded file (``label``: its name)."""
    try:
        data = json.loads(content.decode("utf-8-sig") if isinstance(content, bytes) else content)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DomainError(f"{label} is not a readable JSON file: {exc}", field="source") from None
    return masked_spans_from_data(data, texts, label=label)


def masked_spans_from_data(data, texts: dict[str, str], *, label: str) -> Spans:
    """Parsed masked-output JSON, checked against the corpus's texts (``label`` names
    the file in the messages)."""
    if not isinstance(data, dict):
        raise DomainError(f'{label} must be a JSON object {{"doc_id": [[start, end], ...]}}.', field="source")
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
            f"{label}: " + "; ".join(problems[:10]) + ("; ..." if len(problems) > 10 else ""), field="source"
        )
    return masked


@lru_cache(maxsize=2)
def masked_lm_once(name: str, device: str):
    """The masked LM, loaded once per process (it takes seconds and hundreds of MB)."""
    from sanitize_app.engine.lm import load_masked_lm

    return load_masked_lm(name, device)


def _lm_weighting() -> tuple[Weighting | None, str]:
    """Information-content weights from the configured masked LM, or why there are none."""
    name = settings.SANITIZE_ENGINE.get("masked_lm")
    if not name:
        return None, LM_NOT_CONFIGURED
    loaded = masked_lm_once(name, settings.SANITIZE_ENGINE.get("device", "cpu"))
    if loaded.model is None:
        return None, loaded.reason
    lm = loaded.model
    return (lambda text, spans: [lm.information_content(text, span) for span in spans]), ""


def evaluation_sources(corpus: Corpus) -> list[tuple[str, str]]:
    """The sources a corpus can be evaluated from, as (source, label): the pre-annotation
    engine when a document has predictions, then each annotator with a layer (against
    the others)."""
    sources = []
    if RunDocument.objects.filter(document__corpus=corpus, status=RunDocument.Status.DONE).exists():
        sources.append(("preannotation", "Pre-annotation engine"))
    for name in layer_annotators(corpus):
        sources.append((f"annotator:{name}", f"{name} (against the others)"))
    return sources


def layer_annotators(corpus: Corpus, *, finished_only: bool = False) -> list[str]:
    """Usernames of the annotators with a layer (a finished one) in the corpus."""
    layers = AnnotationLayer.objects.filter(document__corpus=corpus)
    if finished_only:
        layers = layers.filter(status__in=FINISHED)
    return sorted(set(layers.values_list("annotator__username", flat=True)), key=natural_key)


def _source_spans(
    corpus: Corpus, source: str, texts: dict[str, str], *, finished_only: bool
) -> tuple[Spans, str | None]:
    """The masked spans of a source named by a string, and the annotator to leave out of
    the gold standard (the evaluated one, whose finished layers only are evaluated when
    ``finished_only``)."""
    documents = corpus.documents.all()
    if source == "preannotation":
        masked = predicted_masked_spans(documents)
        if not masked:
            raise DomainError(f"No document of corpus {corpus.name} has been pre-annotated.", field="source")
        return masked, None
    if source.startswith("annotator:"):
        name = source.split(":", 1)[1]
        if finished_only:
            documents = documents.filter(layers__annotator__username=name, layers__status__in=FINISHED)
        masked = annotator_masked_spans(documents, name)
        if not masked:
            if finished_only and name in layer_annotators(corpus):
                raise DomainError(
                    f"{name} has no finished layer in corpus {corpus.name} yet: include unfinished layers "
                    "to evaluate work in progress.",
                    field="source",
                )
            raise DomainError(f"{name} has no layer in corpus {corpus.name}.", field="source")
        return masked, name
    return read_masked_file(Path(source), texts), None


def evaluate_source(
    corpus: Corpus,
    source: str,
    *,
    annotators: list[str] | None = None,
    finished_only: bool = True,
    token_filter=None,
    with_lm: bool = True,
) -> CorpusEvaluation:
    """``source``: "preannotation", "annotator:NAME" or the path of a masked-output file.
    Gold: the layers of ``annotators`` (default: everybody, but the evaluated annotator),
    confirmed or reviewed ones only unless ``finished_only`` is False. ``with_lm``: also
    WP with the masked LM's information content, when one is configured."""
    texts = dict(corpus.documents.values_list("doc_id", "text"))
    masked, exclude = _source_spans(corpus, source, texts, finished_only=finished_only)
    return _evaluate(
        corpus,
        source,
        masked,
        exclude=exclude,
        annotators=annotators,
        finished_only=finished_only,
        token_filter=token_filter,
        with_lm=with_lm,
    )


def evaluate_masked(
    corpus: Corpus,
    masked: Spans,
    *,
    label: str,
    annotators: list[str] | None = None,
    finished_only: bool = True,
    token_filter=None,
    with_lm: bool = True,
) -> CorpusEvaluation:
    """Like ``evaluate_source`` for masked spans already read and checked (an uploaded
    file: ``read_masked_json``); ``label`` names them in the result."""
    return _evaluate(
        corpus,
        label,
        masked,
        annotators=annotators,
        finished_only=finished_only,
        token_filter=token_filter,
        with_lm=with_lm,
    )


def _evaluate(
    corpus: Corpus,
    source: str,
    masked: Spans,
    *,
    exclude: str | None = None,
    annotators: list[str] | None,
    finished_only: bool,
    token_filter,
    with_lm: bool,
    tab: list[dict] | None = None,
) -> CorpusEvaluation:
    if tab is None:
        documents = corpus.documents.filter(doc_id__in=list(masked))
        tab = list(iter_tab_documents(documents, finished_only=finished_only))
    else:
        tab = [document for document in tab if document["doc_id"] in masked]
    names = sorted({name for document in tab for name in document["annotations"]} - {exclude}, key=natural_key)
    chosen = sorted(set(annotators or []) - {exclude}, key=natural_key)  # never their own gold standard
    if chosen:
        unknown = sorted(set(chosen) - set(names))
        if unknown:
            which = "finished layer" if finished_only else "layer"
            raise DomainError(f"No {which} of {', '.join(unknown)} on these documents.", field="annotators")
        names = chosen
    elif annotators:
        raise DomainError(f"{exclude} cannot be the gold standard of their own layers.", field="annotators")
    gold = GoldCorpus.from_tab(tab, annotators=names)
    scored = {doc_id: spans for doc_id, spans in masked.items() if gold.documents[doc_id].annotators}
    if not scored:
        which = "finished layer" if finished_only else "layer"
        raise DomainError(f"No document has a {which} of the chosen annotators to compare with.", field="source")
    token_filter = token_filter or official_token_filter()
    report = evaluate(gold, scored, token_filter=token_filter)
    weighting, unavailable = _lm_weighting() if with_lm else (None, "")
    lm_report = (
        evaluate(gold, scored, token_filter=token_filter, weighting=weighting, weighting_name="LM")
        if weighting
        else None
    )
    return CorpusEvaluation(source, report, names, lm_report, unavailable)


@dataclass
class SourceComparison:
    """One row of the comparison of all sources: the report, or why there is none."""

    source: str
    label: str
    report: EvaluationReport | None
    annotators: list[str]
    error: str = ""


def compare_sources(
    corpus: Corpus, *, finished_only: bool = True, token_filter=None, progress: Callable[[int, int], None] | None = None
) -> list[SourceComparison]:
    """Every source of ``evaluation_sources`` against the default gold standard (the
    others' layers), WP with uniform weights only. The corpus is read once.
    ``progress(done, total)`` hears of each source evaluated."""
    sources = evaluation_sources(corpus)
    if not sources:
        return []
    texts = dict(corpus.documents.values_list("doc_id", "text"))
    tab = list(iter_tab_documents(corpus.documents.all(), finished_only=finished_only))
    token_filter = token_filter or official_token_filter()
    rows = []
    for source, label in sources:
        if progress:
            progress(len(rows), len(sources))
        try:
            masked, exclude = _source_spans(corpus, source, texts, finished_only=finished_only)
            result = _evaluate(
                corpus,
                source,
                masked,
                exclude=exclude,
                annotators=None,
                finished_only=finished_only,
                token_filter=token_filter,
                with_lm=False,
                tab=tab,
            )
        except DomainError as exc:
            rows.append(SourceComparison(source, label, None, [], exc.message))
            continue
        result.report.missed = []  # the table shows figures only
        rows.append(SourceComparison(source, label, result.report, result.annotators))
    return rows
