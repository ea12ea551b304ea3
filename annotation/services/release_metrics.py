"""What a sanitized release keeps and what it hides: its TPS utility
(``sanitize_app.engine.release.tps``) and its ER_di / ER_qi against every finished layer
of the corpus (the TAB metrics, through ``services.evaluation``).

TPS is scored with the corpus's own word statistics for information content (or the
configured masked LM) and the pretrained encoder for similarity; the scorer is built once
per process and corpus, and again when the corpus gains documents. Without the encoder
there is no TPS: ``document_tps`` returns None and ``utility_description`` says why."""

from functools import lru_cache

from django.conf import settings

from sanitize_app.engine.encoder import EncoderError
from sanitize_app.engine.information_content import LanguageModelContent
from sanitize_app.engine.release.rendering import Replacement, render
from sanitize_app.engine.release.tps import (
    TERM_PIPELINE,
    TextPreservedSimilarity,
    load_term_pipeline,
    sentence_embedder,
)

from ..models import Corpus, Document
from .engine import corpus_statistics
from .errors import DomainError
from .evaluation import evaluate_masked, masked_lm_once, masked_spans_from_data
from .process_cache import ProcessCache

_SCORERS: ProcessCache["_Utility"] = ProcessCache(keep=2)


class _Utility:
    """The TPS scorer of one corpus (None when there is no encoder) and what it uses."""

    def __init__(self, corpus: Corpus):
        self.ic, self.ic_description = _information_content(corpus)
        nlp, pipeline_note = _term_pipeline()
        self.ic_description += pipeline_note
        engine = settings.SANITIZE_ENGINE
        try:
            embedder = sentence_embedder(engine.get("encoder") or "", engine.get("encoder_sha256", ""))
            self.embedder_description = embedder.name
            self.scorer = TextPreservedSimilarity(nlp, self.ic, embedder)
        except EncoderError as exc:
            self.embedder_description = f"none: {exc}"
            self.scorer = None


def _information_content(corpus: Corpus):
    """The masked LM when one is configured and loads, else the corpus's unigram
    statistics (the description says which, and why the LM is not used)."""
    statistics = corpus_statistics(corpus)
    name = settings.SANITIZE_ENGINE.get("masked_lm")
    if not name:
        return statistics, statistics.description
    loaded = masked_lm_once(name, settings.SANITIZE_ENGINE.get("device", "cpu"))
    if loaded.model is None:
        return statistics, f"{statistics.description}; the masked LM is unavailable: {loaded.reason}"
    source = LanguageModelContent(loaded.model)
    return source, source.description


@lru_cache(maxsize=1)
def _term_pipeline():
    """The spaCy pipeline that finds terms, loaded once per process; a blank English
    pipeline (tokens only) when it is not installed, with a note saying so."""
    try:
        return load_term_pipeline(), ""
    except OSError:
        import spacy

        return spacy.blank("en"), f"; terms: tokens only (spaCy pipeline {TERM_PIPELINE} is not installed)"


def _utility(corpus: Corpus) -> _Utility:
    documents = Document.objects.filter(corpus=corpus)
    engine = settings.SANITIZE_ENGINE
    key = (
        corpus.pk,
        documents.count(),
        engine.get("masked_lm"),
        engine.get("device"),
        engine.get("encoder"),
        engine.get("encoder_sha256"),
    )
    return _SCORERS.get_or_build(key, lambda: _Utility(corpus))


def forget_scorers() -> None:
    """Drop the cached scorers (after the settings changed)."""
    _SCORERS.clear()


def utility_description(corpus: Corpus) -> dict:
    """Which information content and which embedder TPS uses for this corpus."""
    utility = _utility(corpus)
    return {"ic": utility.ic_description, "embedder": utility.embedder_description}


def _checked_spans(doc_id: str, original: str, spans) -> list[tuple[int, int, str]]:
    """(start, end, replacement) of a document's released spans, in order; DomainError
    names the document and the span that is malformed, outside the original or
    overlapping another."""
    if not isinstance(spans, list):
        raise DomainError(f"document {doc_id}: spans must be a list of {{start, end, replacement}}.", field="spans")
    checked = []
    for number, span in enumerate(spans, start=1):
        valid = (
            isinstance(span, dict)
            and type(span.get("start")) is int
            and type(span.get("end")) is int
            and isinstance(span.get("replacement"), str)
        )
        if not valid:
            raise DomainError(
                f"document {doc_id}: span {number} ({span!r}) needs integer start and end and a string replacement.",
                field="spans",
            )
        if not 0 <= span["start"] < span["end"] <= len(original):
            raise DomainError(
                f"document {doc_id}: span {number} [{span['start']}, {span['end']}] is outside the original text "
                f"(length {len(original)}).",
                field="spans",
            )
        checked.append((span["start"], span["end"], span["replacement"]))
    checked.sort()
    for (start, end, _), (next_start, next_end, _) in zip(checked, checked[1:], strict=False):
        if next_start < end:
            raise DomainError(
                f"document {doc_id}: span [{next_start}, {next_end}] overlaps span [{start}, {end}].", field="spans"
            )
    return checked


def document_tps(corpus: Corpus, text: str, spans: list[dict], *, doc_id: str = "") -> float | None:
    """TPS of one sanitized document: ``text`` is the ORIGINAL text, ``spans`` its released
    spans (dicts with start, end, replacement, offsets into the original). None when the
    corpus has no encoder to compare replacements with."""
    checked = _checked_spans(doc_id or "(unnamed)", text, spans)
    scorer = _utility(corpus).scorer
    return None if scorer is None else scorer.document(text, checked).value


def release_er(corpus: Corpus, masked: dict[str, list]) -> dict:
    """ER_di, ER_qi, token recall and precision of the released spans (``masked``: doc_id
    -> [[start, end], ...] into the original) against every finished layer of the
    corpus. Without a finished layer on these documents the figures are None and
    ``unavailable`` says why. DomainError names an unknown document or a bad span."""
    texts = dict(corpus.documents.filter(doc_id__in=list(masked)).values_list("doc_id", "text"))
    spans = masked_spans_from_data(
        {doc_id: [list(span) for span in document_spans] for doc_id, document_spans in masked.items()},
        texts,
        label="the release",
    )
    empty = {"ER_di": None, "ER_qi": None, "token_recall": None, "token_precision": None, "annotators": []}
    if not spans:
        return {**empty, "unavailable": "the release has no document"}
    try:
        result = evaluate_masked(corpus, spans, label="release", finished_only=True, with_lm=False)
    except DomainError as exc:  # no finished layer to compare with (the spans were checked above)
        return {**empty, "unavailable": exc.message}
    report = result.report
    return {
        "ER_di": report.ER_di,
        "ER_qi": report.ER_qi,
        "token_recall": report.token_recall,
        "token_precision": report.token_precision,
        "annotators": result.annotators,
        "documents": report.documents,
    }


def _checked_release(corpus: Corpus, data) -> list[tuple[str, str, list[tuple[int, int, str]]]]:
    """(doc_id, original text, spans) of each document of a release in the JSON export
    format; DomainError names the document and the span that is wrong."""
    if not isinstance(data, list) or not data:
        raise DomainError(
            "A release file must be a non-empty JSON list of {doc_id, text, spans} (the release's JSON export).",
            field="data",
        )
    doc_ids = [item.get("doc_id") if isinstance(item, dict) else None for item in data]
    originals = dict(corpus.documents.filter(doc_id__in=[d for d in doc_ids if d]).values_list("doc_id", "text"))
    seen, checked = set(), []
    for number, item in enumerate(data, start=1):
        doc_id = doc_ids[number - 1]
        if not isinstance(doc_id, str) or not isinstance(item.get("text"), str):
            raise DomainError(f"entry {number} needs a string doc_id and a string text.", field="data")
        if doc_id not in originals:
            raise DomainError(f"document {doc_id} is not in corpus {corpus.name}.", field="doc_id")
        if doc_id in seen:
            raise DomainError(f"document {doc_id} appears twice in the release.", field="doc_id")
        seen.add(doc_id)
        spans = _checked_spans(doc_id, originals[doc_id], item.get("spans"))
        rendered = render(originals[doc_id], [Replacement(start, end, repl, "") for start, end, repl in spans])
        if rendered != item["text"]:
            raise DomainError(
                f"document {doc_id}: its text is not the corpus's original with the spans replaced "
                "(a release of another version of the document?).",
                field="text",
            )
        checked.append((doc_id, originals[doc_id], spans))
    return checked


def score_release_data(corpus: Corpus, data: list[dict]) -> dict:
    """TPS (mean over documents), what it used, and ER_di / ER_qi against the finished
    layers, of a release in the JSON export format ``[{doc_id, text, spans: [{start, end,
    replacement, ...}]}]`` (``text``: the sanitized text; offsets into the original)."""
    documents = _checked_release(corpus, data)
    utility = _utility(corpus)
    tps = None
    if utility.scorer is not None:
        tps = utility.scorer.corpus([(original, spans) for _, original, spans in documents]).value
    er = release_er(corpus, {doc_id: [[s, e] for s, e, _ in spans] for doc_id, _, spans in documents})
    result = {
        "TPS": tps,
        "ic": utility.ic_description,
        "embedder": utility.embedder_description,
        "ER_di": er["ER_di"],
        "ER_qi": er["ER_qi"],
        "token_recall": er["token_recall"],
        "token_precision": er["token_precision"],
        "documents": len(documents),
    }
    if "unavailable" in er:
        result["ER_unavailable"] = er["unavailable"]
    return result
