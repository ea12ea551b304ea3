"""Inter-annotator agreement of a corpus (documents with several finished layers), for
the manager's dashboard and its CSV downloads. The coefficients are computed by
``sanitize_app.engine.evaluation.agreement``; the result is cached until a layer changes."""

import csv
import io
from collections import Counter
from dataclasses import dataclass

from django.core.cache import cache

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
from ..selectors import layers_state

CACHE_SECONDS = 3600
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
    key = f"agreement:{corpus.pk}:{layers_state(corpus)}"
    report = cache.get(key)
    if report is None:
        documents = [
            d for d in iter_tab_documents(corpus.documents.all(), finished_only=True) if len(d["annotations"]) >= 2
        ]
        report = AgreementReport(
            documents=len(documents),
            annotators=sorted({name for d in documents for name in d["annotations"]}),
            table=agreement_table(documents),
            confusion=entity_type_confusion(documents),
            disagreements=identifier_disagreements(documents),
        )
        cache.set(key, report, CACHE_SECONDS)
    return report


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
