"""The manager's progress dashboard of a corpus (with CSV downloads): layer statuses,
how pre-annotations were treated, entities per document and active time per annotator.
The numbers come from ``annotation.services.progress``; this module only lays them out."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header

from annotation.enums import LayerStatus
from annotation.services.progress import CSV_TABLES, TIME_RULE, corpus_progress, progress_csv

from .access import managed_corpus
from .charts import PALETTE, Segment, stacked_bar_chart

REFUSAL = "Only managers see the corpus's progress."
STATUS_COLOURS = {
    LayerStatus.ASSIGNED: PALETTE[7],
    LayerStatus.IN_PROGRESS: PALETTE[1],
    LayerStatus.CONFIRMED: PALETTE[5],
    LayerStatus.UNDER_REVIEW: PALETTE[4],
    LayerStatus.REVIEWED: PALETTE[2],
}
# (field of AnnotatorProgress, label, colour), in the order of the table and the chart.
EDIT_COLUMNS = (
    ("kept", "Kept", PALETTE[0]),
    ("corrected", "Corrected", PALETTE[1]),
    ("inserted", "Inserted", PALETTE[2]),
    ("removed", "Removed", PALETTE[3]),
)


def format_duration(seconds: float | None) -> str:
    """A time for people: "45 s", "12 min", "1 h 05 min"; "—" when there is none."""
    if not seconds:
        return "—"
    if seconds < 59.5:
        return f"{round(seconds)} s"
    minutes = round(seconds / 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"


def _percent(share: float | None) -> str:
    return "—" if share is None else f"{100 * share:.1f}%"


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def _status_colour(index: int, status: str) -> str:
    return STATUS_COLOURS.get(status, PALETTE[index % len(PALETTE)])


def _status_chart(report):
    rows = [
        (
            row.annotator,
            [
                Segment(label, row.statuses.get(status, 0), _status_colour(index, status))
                for index, (status, label) in enumerate(LayerStatus.choices)
            ],
        )
        for row in report.rows
        if row.documents
    ]
    return stacked_bar_chart(rows, title="Layers by status, per annotator", width=640)


def _edit_chart(report):
    rows = [
        (row.annotator, [Segment(label, getattr(row, name), colour) for name, label, colour in EDIT_COLUMNS])
        for row in report.rows
        if row.known_edits or row.removed
    ]
    return stacked_bar_chart(rows, title="Pre-annotated spans kept, corrected, removed and spans inserted", width=640)


def _edit_cells(row) -> list[dict]:
    return [{"count": getattr(row, name), "share": _percent(row.share(name))} for name, _, _ in EDIT_COLUMNS]


def _work_cells(row) -> dict:
    return {
        "entities_per_document": _number(row.per_finished(row.entities)),
        "mentions_per_document": _number(row.per_finished(row.mentions)),
        "active": format_duration(row.active_seconds),
        "per_document": format_duration(row.seconds_per_finished),
    }


def _table_row(row) -> dict:
    return {
        "row": row,
        "statuses": [row.statuses.get(status, 0) for status in LayerStatus.values],
        "edits": _edit_cells(row),
        **_work_cells(row),
    }


@login_required
def corpus_progress_page(request, pk: int):
    corpus = managed_corpus(request, pk, REFUSAL)
    report = corpus_progress(corpus)
    return render(
        request,
        "frontend/corpus_progress.html",
        {
            "corpus": corpus,
            "report": report,
            "rows": [_table_row(row) for row in report.rows],
            "total": _table_row(report.total),
            "statuses": LayerStatus.choices,
            "edit_labels": [label for _, label, _ in EDIT_COLUMNS],
            "status_chart": _status_chart(report),
            "edit_chart": _edit_chart(report),
            "time_rule": TIME_RULE,
        },
    )


@login_required
def corpus_progress_csv(request, pk: int, table: str):
    corpus = managed_corpus(request, pk, REFUSAL)
    if table not in CSV_TABLES:
        raise Http404(f"No table {table}.")
    response = HttpResponse(progress_csv(corpus_progress(corpus), table), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, f"{corpus.name}-progress-{table}.csv")
    return response
