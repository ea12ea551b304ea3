"""Inter-annotator agreement of a corpus (documents with several finished layers), for
the manager's dashboard and its CSV downloads. The coefficients are computed by
``sanitize_app.engine.evaluation.agreement``; a report job computes it and stores it as
JSON (``services.reports``), never a request."""

import csv
import io
from collections import Counter
from dataclasses import dataclass

from sanitize_app.engine.evaluation.agreement import (
    NONE,
    Coefficients,
    agreement_table,
    entity_type_confusion,
    identifier_disagreements,
)

from ..corpus_io.tab_writer import iter_tab_documents
from ..enums import EntityType
from ..models import Corpus

ATTRIBUTE_LABELS = {
    "entity_type": "Entity type",
    "identifier_type": "Identifier type",
    "confidential_status": "Confidential status",
}


@dataclass
class AgreementReport:
    documents: int  # documents with at least two finished layers
    annotators: list[str]
    table: dict[str, dict[str, Coefficients]]
    confusion: Counter
    disagreements: dict[str, dict]

    @property
    def disagreement_pairs(self) -> list[str]:
        """The kinds of identifier-type disagreement found, e.g. "NO_MASK vs QUASI"."""
        return sorted({key for counts in self.disagreements.values() for key in counts} - {"agree", "disagree"})

    def identifier_rows(self) -> list[tuple[str, int, int, list[int]]]:
        """(entity type, agreeing pairs, disagreeing pairs, count per disagreement kind)."""
        pairs = self.disagreement_pairs
        return [
            (kind, counts.get("agree", 0), counts.get("disagree", 0), [counts.get(p, 0) for p in pairs])
            for kind, counts in self.disagreements.items()
        ]

    @property
    def types(self) -> list[str]:
        present = {kind for pair in self.confusion for kind in pair}
        return [kind for kind in [*EntityType.values, NONE] if kind in present]


def corpus_agreement(corpus: Corpus) -> AgreementReport:
    """The agreement of the documents with two or more finished layers (reads them all:
    a worker's work)."""
    documents = [
        d for d in iter_tab_documents(corpus.documents.all(), finished_only=True) if len(d["annotations"]) >= 2
    ]
    return AgreementReport(
        documents=len(documents),
        annotators=sorted({name for d in documents for name in d["annotations"]}),
        table=agreement_table(documents),
        confusion=entity_type_confusion(documents),
        disagreements=identifier_disagreements(documents),
    )


def agreement_data(report: AgreementReport) -> dict:
    """The report as JSON, every mapping as a list of pairs (jsonb does not keep order)."""
    return {
        "documents": report.documents,
        "annotators": report.annotators,
        "table": [
            [
                attribute,
                [[kind, [c.observed, c.fleiss_kappa, c.krippendorff_alpha, c.units]] for kind, c in kinds.items()],
            ]
            for attribute, kinds in report.table.items()
        ],
        "confusion": [[first, second, count] for (first, second), count in report.confusion.items()],
        "disagreements": [[kind, list(counts.items())] for kind, counts in report.disagreements.items()],
    }


def agreement_from_data(data: dict) -> AgreementReport:
    return AgreementReport(
        documents=data["documents"],
        annotators=data["annotators"],
        table={
            attribute: {kind: Coefficients(*values) for kind, values in kinds} for attribute, kinds in data["table"]
        },
        confusion=Counter({(first, second): count for first, second, count in data["confusion"]}),
        disagreements={kind: dict(counts) for kind, counts in data["disagreements"]},
    )


def agreement_csv(report: AgreementReport, table: str) -> str:
    """One of the dashboard's tables as CSV: coefficients, confusion or identifiers."""
    out = io.StringIO()
    writer = csv.writer(out)
    if table == "coefficients":
        writer.writerow(["attribute", "unit", "units", "observed_agreement", "fleiss_kappa", "krippendorff_alpha"])
        for attribute, kinds in report.table.items():
            for kind, c in kinds.items():
                writer.writerow(
                    [
                        attribute,
                        kind,
                        c.units,
                        f"{c.observed:.4f}",
                        f"{c.fleiss_kappa:.4f}",
                        f"{c.krippendorff_alpha:.4f}",
                    ]
                )
    elif table == "confusion":
        writer.writerow(["type", *report.types])
        for first in report.types:
            writer.writerow([first, *(report.confusion.get((first, second), 0) for second in report.types)])
    elif table == "identifiers":
        writer.writerow(["entity_type", "agree", "disagree", *report.disagreement_pairs])
        for entity_type, agree, disagree, counts in report.identifier_rows():
            writer.writerow([entity_type, agree, disagree, *counts])
    else:
        raise ValueError(f"unknown table {table!r}")
    return out.getvalue()
