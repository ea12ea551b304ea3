"""Managers' dashboards of a corpus: inter-annotator agreement (with CSV downloads)."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render

from annotation.services.agreement import ATTRIBUTE_LABELS, agreement_csv, corpus_agreement

from .access import managed_corpus

CSV_TABLES = ("coefficients", "confusion", "identifiers")


def _heatmap(report) -> list[dict]:
    """Rows of the entity-type confusion with each cell's share of its row, and that share
    in tenths (0–10), the colour level (a CSS class: no inline style under the CSP)."""
    rows = []
    for first in report.types:
        counts = [report.confusion.get((first, second), 0) for second in report.types]
        total = sum(counts) or 1
        rows.append(
            {
                "type": first,
                "cells": [
                    {"count": count, "share": round(count / total, 3), "level": round(10 * count / total)}
                    for count in counts
                ],
            }
        )
    return rows


@login_required
def corpus_agreement_page(request, pk: int):
    corpus = managed_corpus(request, pk, "Only managers see the corpus's agreement.")
    report = corpus_agreement(corpus)
    rows = [
        {"attribute": ATTRIBUTE_LABELS[attribute], "kind": kind, "c": c}
        for attribute, kinds in report.table.items()
        for kind, c in kinds.items()
    ]
    return render(
        request,
        "frontend/corpus_agreement.html",
        {
            "corpus": corpus,
            "report": report,
            "rows": rows,
            "heatmap": _heatmap(report),
            "pairs": report.disagreement_pairs,
            "identifiers": report.identifier_rows(),
        },
    )


@login_required
def corpus_agreement_csv(request, pk: int, table: str):
    corpus = managed_corpus(request, pk, "Only managers see the corpus's agreement.")
    if table not in CSV_TABLES:
        raise Http404(f"No table {table}.")
    response = HttpResponse(agreement_csv(corpus_agreement(corpus), table), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{corpus.name}-agreement-{table}.csv"'
    return response
