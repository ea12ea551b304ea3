"""Managers' dashboards of a corpus: inter-annotator agreement (with CSV downloads).

The agreement is a report computed by a worker (``services.reports``), never in the
request: the page shows the current one, or starts one and shows its progress, the
section re-fetching itself until it is done; the CSV downloads only read the stored
report (409 naming the page when there is none)."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from annotation.models import ReportJob
from annotation.models.job import JobStatus
from annotation.services import reports
from annotation.services.agreement import ATTRIBUTE_LABELS, agreement_csv, agreement_from_data

from .access import managed_corpus

CSV_TABLES = ("coefficients", "confusion", "identifiers")
REFUSAL = "Only managers see the corpus's agreement."


def report_not_ready(job: ReportJob | None, what: str, page_url: str) -> HttpResponse:
    """409 for a CSV download without a current report, saying why and where to go: a
    download only reads a stored report, never starts one (a GET, a link from anywhere,
    must not set a worker computing; the page starts and retries reports)."""
    if job is None:
        why = f"No current {what} report"
    elif job.status == JobStatus.FAILED:
        why = f"The {what} report failed ({job.error or 'no message'})"
    else:
        why = f"The {what} is being computed (a report job)"
    message = f"{why}: open {page_url} and download the CSV once the page shows the {what}."
    return HttpResponse(message, status=409, content_type="text/plain; charset=utf-8")


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
    corpus = managed_corpus(request, pk, REFUSAL)
    job = reports.report_for_page(
        corpus, ReportJob.Kind.AGREEMENT, {}, actor=request.user, retry="retry" in request.GET
    )
    context = {"corpus": corpus, "job": job, "page_url": request.path}
    if job.status == JobStatus.SUCCEEDED:
        report = agreement_from_data(job.result["agreement"])
        context.update(
            report=report,
            rows=[
                {"attribute": ATTRIBUTE_LABELS[attribute], "kind": kind, "c": c}
                for attribute, kinds in report.table.items()
                for kind, c in kinds.items()
            ],
            heatmap=_heatmap(report),
            pairs=report.disagreement_pairs,
            identifiers=report.identifier_rows(),
        )
    return render(request, "frontend/corpus_agreement.html", context)


@login_required
def corpus_agreement_csv(request, pk: int, table: str):
    corpus = managed_corpus(request, pk, REFUSAL)
    if table not in CSV_TABLES:
        raise Http404(f"No table {table}.")
    job = reports.report_for_page(corpus, ReportJob.Kind.AGREEMENT, {}, start=False)
    if job is None or job.status != JobStatus.SUCCEEDED:
        return report_not_ready(job, "agreement", reverse("corpus-agreement", args=[corpus.pk]))
    report = agreement_from_data(job.result["agreement"])
    response = HttpResponse(agreement_csv(report, table), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{corpus.name}-agreement-{table}.csv"'
    return response
