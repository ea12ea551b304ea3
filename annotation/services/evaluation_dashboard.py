"""What the manager's evaluation page and its CSV downloads need around
``annotation.services.evaluation``: evaluations cached until a layer or a
pre-annotation changes, the comparison of every source, the missed entities with the
layer to open, and the tables as CSV."""

import csv
import hashlib
import io
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Max

from sanitize_app.engine.evaluation import official_token_filter
from sanitize_app.engine.evaluation.metrics import MissedEntity

from ..models import AnnotationLayer, Corpus, Document, RunDocument
from ..selectors import layers_state
from .evaluation import CorpusEvaluation, SourceComparison, compare_sources, evaluate_source

CACHE_SECONDS = 3600
CSV_TABLES = ("metrics", "types", "missed")
METRICS = (
    ("ER_di", "ER_di"),
    ("ER_qi", "ER_qi"),
    ("token_recall", "Token recall"),
    ("token_precision", "Token precision"),
    ("WP", "WP (uniform)"),
)


def _state(corpus: Corpus) -> str:
    """Changes whenever a layer is added, edited or removed, or a pre-annotation run
    finishes a document."""
    runs = RunDocument.objects.filter(document__corpus=corpus, status=RunDocument.Status.DONE).aggregate(
        n=Count("id"), last=Max("id")
    )
    return f"{layers_state(corpus)}:{runs['n']}:{runs['last']}"


def _key(kind: str, corpus: Corpus, *parts) -> str:
    """A cache key: the corpus's state, the token filter and the masked LM in use and the
    request's parts (hashed: annotator names may hold any character)."""
    context = (
        _state(corpus),
        official_token_filter().name,
        settings.SANITIZE_ENGINE.get("masked_lm") or "",
        *map(str, parts),
    )
    digest = hashlib.sha256("\x1f".join(context).encode()).hexdigest()[:32]
    return f"evaluation:{kind}:{corpus.pk}:{digest}"


def cached_evaluation(
    corpus: Corpus, source: str, *, annotators: list[str] | None = None, finished_only: bool = True
) -> CorpusEvaluation:
    """``evaluate_source`` for the pre-annotation engine or an annotator, kept until the
    corpus's layers or predictions change (errors are not kept)."""
    key = _key("source", corpus, source, ",".join(sorted(annotators or [])), finished_only)
    result = cache.get(key)
    if result is None:
        result = evaluate_source(corpus, source, annotators=annotators, finished_only=finished_only)
        cache.set(key, result, CACHE_SECONDS)
    return result


def cached_comparison(corpus: Corpus, *, finished_only: bool = True) -> list[SourceComparison] | None:
    """The comparison of all sources when it was computed since the last change, else None."""
    return cache.get(_key("compare", corpus, finished_only))


def comparison(corpus: Corpus, *, finished_only: bool = True) -> list[SourceComparison]:
    """The comparison of all sources, computed once until the layers or predictions change
    (one evaluation per annotator: seconds on a TAB-sized corpus)."""
    key = _key("compare", corpus, finished_only)
    rows = cache.get(key)
    if rows is None:
        rows = compare_sources(corpus, finished_only=finished_only)
        cache.set(key, rows, CACHE_SECONDS)
    return rows


@dataclass
class MissedRow:
    """A missed entity with what the page links to: the document, the layer of the
    annotator who marked it, and the line (0-based) of its first unmasked mention."""

    missed: MissedEntity
    document_pk: int | None
    layer_pk: int | None
    line: int


def missed_rows(corpus: Corpus, missed: list[MissedEntity]) -> list[MissedRow]:
    doc_ids = {item.doc_id for item in missed}
    documents = {
        doc_id: (pk, text)
        for doc_id, pk, text in Document.objects.filter(corpus=corpus, doc_id__in=doc_ids).values_list(
            "doc_id", "pk", "text"
        )
    }
    layers = {
        (doc_id, name): pk
        for doc_id, name, pk in AnnotationLayer.objects.filter(
            document__corpus=corpus, document__doc_id__in=doc_ids
        ).values_list("document__doc_id", "annotator__username", "pk")
    }
    rows = []
    for item in missed:
        pk, text = documents.get(item.doc_id, (None, ""))
        start = item.mentions[0][0] if item.mentions else 0
        rows.append(MissedRow(item, pk, layers.get((item.doc_id, item.annotator)), text.count("\n", 0, start)))
    return rows


def evaluation_csv(result: CorpusEvaluation, table: str) -> str:
    """One table of an evaluation as CSV: metrics (one row), types (recall and false
    negatives per entity type) or missed (one row per missed entity)."""
    report = result.report
    out = io.StringIO()
    writer = csv.writer(out)
    if table == "metrics":
        writer.writerow(
            [
                "source",
                "gold_annotators",
                "documents",
                "direct_entities",
                "quasi_entities",
                *(name for name, _ in METRICS),
                "WP_lm",
                "token_filter",
            ]
        )
        writer.writerow(
            [
                result.source,
                " ".join(result.annotators),
                report.documents,
                report.direct_entities,
                report.quasi_entities,
                *(f"{getattr(report, name):.4f}" for name, _ in METRICS),
                f"{result.lm_report.WP:.4f}" if result.lm_report else "",
                report.token_filter,
            ]
        )
    elif table == "types":
        writer.writerow(["entity_type", "false_negative_tokens", "token_recall"])
        for kind, recall in report.recall_by_type.items():
            writer.writerow([kind, report.false_negatives_by_type[kind], f"{recall:.4f}"])
    elif table == "missed":
        writer.writerow(["doc_id", "annotator", "entity_id", "entity_type", "identifier", "offsets", "mentions"])
        for item in report.missed:
            writer.writerow(
                [
                    item.doc_id,
                    item.annotator,
                    item.entity_id,
                    item.entity_type,
                    "DIRECT" if item.is_direct else "QUASI",
                    " ".join(f"{start}-{end}" for start, end, _ in item.mentions),
                    " | ".join(text for _, _, text in item.mentions),
                ]
            )
    else:
        raise ValueError(f"unknown table {table!r}")
    return out.getvalue()
