"""What the manager's evaluation page and its CSV downloads need around
``annotation.services.evaluation``: evaluations and the comparison of every source as
JSON (a report job stores them, ``services.reports``) and back, the missed entities
with the layer to open, and the tables as CSV."""

import csv
import io
from dataclasses import dataclass

from sanitize_app.engine.evaluation import EvaluationReport
from sanitize_app.engine.evaluation.metrics import MissedEntity

from ..models import AnnotationLayer, Corpus, Document
from .evaluation import CorpusEvaluation, SourceComparison

CSV_TABLES = ("metrics", "types", "missed")
METRICS = (
    ("ER_di", "ER_di"),
    ("ER_qi", "ER_qi"),
    ("token_recall", "Token recall"),
    ("token_precision", "Token precision"),
    ("WP", "WP (uniform)"),
)
# Keys kept as lists of pairs: PostgreSQL's jsonb does not keep a mapping's order, and
# the tables list entity types in the engine's order.
_ORDERED = ("recall_by_type", "false_negatives_by_type")


def report_data(report: EvaluationReport | None) -> dict | None:
    if report is None:
        return None
    data = report.as_dict()
    for name in _ORDERED:
        data[name] = [[key, value] for key, value in data[name].items()]
    data["missed"] = [
        [item.doc_id, item.annotator, item.entity_id, item.entity_type, item.is_direct, item.mentions]
        for item in report.missed
    ]
    return data


def report_from_data(data: dict | None) -> EvaluationReport | None:
    if data is None:
        return None
    values = {**data, **{name: dict(data[name]) for name in _ORDERED}}
    values["missed"] = [
        MissedEntity(doc_id, annotator, entity_id, entity_type, is_direct, [tuple(m) for m in mentions])
        for doc_id, annotator, entity_id, entity_type, is_direct, mentions in data["missed"]
    ]
    return EvaluationReport(**values)


def evaluation_data(result: CorpusEvaluation) -> dict:
    """An evaluation as JSON (what the page and the CSV downloads show)."""
    return {
        "source": result.source,
        "annotators": result.annotators,
        "report": report_data(result.report),
        "lm_report": report_data(result.lm_report),
        "lm_unavailable": result.lm_unavailable,
    }


def evaluation_from_data(data: dict) -> CorpusEvaluation:
    return CorpusEvaluation(
        data["source"],
        report_from_data(data["report"]),
        data["annotators"],
        report_from_data(data["lm_report"]),
        data["lm_unavailable"],
    )


def comparison_data(rows: list[SourceComparison]) -> list[dict]:
    return [
        {
            "source": row.source,
            "label": row.label,
            "report": report_data(row.report),
            "annotators": row.annotators,
            "error": row.error,
        }
        for row in rows
    ]


def comparison_from_data(rows: list[dict]) -> list[SourceComparison]:
    return [
        SourceComparison(row["source"], row["label"], report_from_data(row["report"]), row["annotators"], row["error"])
        for row in rows
    ]


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
