"""Managers' dashboards of a corpus: inter-annotator agreement (with CSV downloads)."""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render

from annotation import permissions as policy
from annotation.services.agreement import ATTRIBUTE_LABELS, agreement_csv, corpus_agreement

CSV_TABLES = ("coefficients", "confusion", "identifiers")


def _managed_corpus(request, pk: int):
    corpus = get_object_or_404(policy.visible_corpora(request.user), pk=pk)
    if not policy.is_manager(request.user, corpus):
        raise PermissionDenied("Only managers see the corpus's agreement.")
    return corpus


def _heatmap(report) -> list[dict]:
    """Rows of the entity-type confusion with each cell's share of its row (for colour)."""
    rows = []
    for first in report.types:
        counts = [report.confusion.get((first, second), 0) for second in report.types]
        total = sum(counts) or 1
        rows.append(
            {
                "type": first,
                "cells": [
                    {"count": count, "share": round(count / total, 3), "alpha": round(0.08 + 0.8 * count / total, 3)}
                    for count in counts
                ],
            }
        )
    return rows


@login_required
def corpus_agreement_page(request, pk: int):
    corpus = _managed_corpus(request, pk)
    report = corpus_agreement(corpus)
    rows = [
        {"attribute": ATTRIBUTE_LABELS[attribute], "kind": kind, "c": c}
        for attribute, kinds in report.table.items()
        for kind, c in kinds.items()
    ]
    pairs = sorted({key for counts in report.disagreements.values() for key in counts} - {"agree", "disagree"})
    identifiers = [
        {
            "type": entity_type,
            "agree": counts.get("agree", 0),
            "disagree": counts.get("disagree", 0),
            "pairs": [counts.get(pair, 0) for pair in pairs],
        }
        for entity_type, counts in report.disagreements.items()
    ]
    return render(
        request,
        "frontend/corpus_agreement.html",
        {
            "corpus": corpus,
            "report": report,
            "rows": rows,
            "heatmap": _heatmap(report),
            "pairs": pairs,
            "identifiers": identifiers,
        },
    )


@login_required
def corpus_agreement_csv(request, pk: int, table: str):
    corpus = _managed_corpus(request, pk)
    if table not in CSV_TABLES:
        raise Http404(f"No table {table}.")
    response = HttpResponse(agreement_csv(corpus_agreement(corpus), table), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{corpus.name}-agreement-{table}.csv"'
    return response
