"""The manager's evaluation page of a corpus: a masking source (the pre-annotation
engine, one annotator against the others, or an uploaded masked-output file) scored
with the TAB metrics against the corpus's human layers, with CSV downloads.

Non-file sources and the comparison of all sources are reports computed by a worker
(``services.reports``), never in the request: a GET shows the current report, or starts
one and shows its progress in its place, the section re-fetching itself until it is
done. Results are linkable (a POST of the form redirects to the GET). The CSV downloads
only read a stored report (409 naming the page when there is none): a link never sets a
worker computing. An uploaded file is evaluated on its POST (bounded by the upload) and
never stored."""

import json
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_http_methods

from annotation.enums import EntityType
from annotation.models import ReportJob
from annotation.models.job import JobStatus
from annotation.services import reports
from annotation.services.errors import DomainError
from annotation.services.evaluation import (
    CorpusEvaluation,
    evaluate_masked,
    evaluation_sources,
    layer_annotators,
    read_masked_json,
)
from annotation.services.evaluation_dashboard import (
    CSV_TABLES,
    METRICS,
    comparison_from_data,
    evaluation_csv,
    evaluation_from_data,
    missed_rows,
)

from .access import managed_corpus
from .charts import PALETTE, bar_chart
from .dashboard_views import report_not_ready
from .evaluation_forms import FILE, EvaluationForm

REFUSAL = "Only managers evaluate a corpus."
MISSED_SHOWN = 200  # the CSV has them all
HIDDEN_SPANS_LIMIT = 2 * 1024 * 1024  # an uploaded file's spans ride along for its CSV below this size
METRIC_HELP = {
    "ER_di": "Direct identifiers with every mention masked, over all gold annotators' direct entities.",
    "ER_qi": "The same for quasi identifiers.",
    "token_recall": "Tokens of the mentions to mask that are masked.",
    "token_precision": "Masked tokens that the gold annotators masked too (averaged over annotators).",
    "WP": "Weighted precision, every token weighing the same (then equal to token precision).",
}


def _form(request, corpus) -> EvaluationForm:
    sources = evaluation_sources(corpus)
    finished = set(layer_annotators(corpus, finished_only=True))
    annotators = [
        (name, name if name in finished else f"{name} (no finished layer)") for name in layer_annotators(corpus)
    ]
    options = {"sources": sources, "annotators": annotators}
    if request.method == "POST":
        return EvaluationForm(request.POST, request.FILES, **options)
    if "source" in request.GET:
        return EvaluationForm(request.GET, **options)
    return EvaluationForm(**options)


def _params(form: EvaluationForm) -> dict:
    """What a report of the valid, non-file form is keyed by."""
    data = form.cleaned_data
    return {"source": data["source"], "annotators": sorted(data["annotators"]), "finished_only": not data["all_layers"]}


def _evaluate_file(corpus, form: EvaluationForm) -> tuple[CorpusEvaluation, str]:
    """An uploaded file's evaluation (bounded by the upload, never stored), and its
    checked spans as JSON for its CSV downloads."""
    data = form.cleaned_data
    upload = data["file"]
    label = upload.name if upload else (data["label"] or "uploaded file")
    content = upload.read() if upload else data["masked"]
    texts = dict(corpus.documents.values_list("doc_id", "text"))
    masked = read_masked_json(content, texts, label=label)
    result = evaluate_masked(
        corpus, masked, label=label, annotators=data["annotators"] or None, finished_only=not data["all_layers"]
    )
    return result, json.dumps(masked, separators=(",", ":"))


def _stored_evaluation(job: ReportJob) -> CorpusEvaluation:
    """The evaluation a succeeded report stored (its answer may be a refusal)."""
    if "error" in job.result:
        raise DomainError(job.result["error"])
    return evaluation_from_data(job.result["evaluation"])


def _query(request, *, without: tuple[str, ...] = (), **extra) -> str:
    pairs = [(key, value) for key, values in request.GET.lists() if key not in without for value in values]
    return urlencode([*pairs, *extra.items()])


def _source_label(source: str, sources: dict[str, str]) -> str:
    if source in sources:
        return sources[source]
    if source.startswith("annotator:"):
        return f"{source.split(':', 1)[1]} (against the others)"
    return "Pre-annotation engine" if source == "preannotation" else f"Uploaded file {source}"


def _result_context(corpus, result: CorpusEvaluation, form: EvaluationForm, spans_json: str) -> dict:
    report = result.report
    order = {kind: index for index, kind in enumerate(EntityType.values)}
    types = sorted(report.recall_by_type, key=lambda kind: (order.get(kind, len(order)), kind))
    is_file = form.cleaned_data["source"] == FILE
    return {
        "result": result,
        "source_label": _source_label(result.source, dict(evaluation_sources(corpus))),
        "metrics": [(label, getattr(report, name), METRIC_HELP[name]) for name, label in METRICS],
        "types": [(kind, report.false_negatives_by_type[kind], report.recall_by_type[kind]) for kind in types],
        "chart": bar_chart(
            [(kind, report.false_negatives_by_type[kind]) for kind in types],
            title="Tokens left unmasked (false negatives) per entity type",
            colour=PALETTE[3],
        ),
        "missed": missed_rows(corpus, report.missed[:MISSED_SHOWN]),
        "missed_total": len(report.missed),
        "csv_query": "" if is_file else form.query(),
        "csv_spans": spans_json if is_file and len(spans_json) <= HIDDEN_SPANS_LIMIT else "",
        "csv_tables": CSV_TABLES,
    }


@login_required
@require_http_methods(["GET", "POST"])
def corpus_evaluation(request, pk: int):
    corpus = managed_corpus(request, pk, REFUSAL)
    form = _form(request, corpus)
    # The unfinished sections re-fetch the page here (the GET of this choice).
    page_url = (
        request.path
        + "?"
        + (
            _query(request, without=("retry", "compare"))
            if request.method == "GET"
            else urlencode([] if form.finished_only else [("all_layers", "on")])
        )
    )
    context = {"corpus": corpus, "form": form, "error": "", "page_url": page_url}
    context["retry_query"] = _query(request, without=("retry",), retry="1")
    if form.is_bound and form.is_valid():
        is_file = form.cleaned_data["source"] == FILE
        if request.method == "POST" and not is_file:
            return redirect(f"{reverse('corpus-evaluation', args=[corpus.pk])}?{form.query()}")
        try:
            result, spans_json = (
                _evaluation(request, corpus, form, context) if not is_file else _evaluate_file(corpus, form)
            )
            if result is not None:
                context.update(_result_context(corpus, result, form, spans_json))
        except DomainError as exc:
            context["error"] = exc.message
    context.update(_comparison_context(request, corpus, form))
    return render(request, "frontend/corpus_evaluation.html", context)


def _evaluation(request, corpus, form: EvaluationForm, context: dict) -> tuple[CorpusEvaluation | None, str]:
    """The stored evaluation of the form's source, or None while its report is computed
    (the job, for its progress, in ``context``)."""
    job = reports.report_for_page(
        corpus, ReportJob.Kind.EVALUATION, _params(form), actor=request.user, retry="retry" in request.GET
    )
    if job.status != JobStatus.SUCCEEDED:
        context["evaluation_job"] = job
        return None, ""
    return _stored_evaluation(job), ""


def _comparison_context(request, corpus, form: EvaluationForm) -> dict:
    """The comparison of all sources when it is computed, being computed (its job) or
    asked for (``compare=1`` starts it)."""
    finished_only = form.finished_only
    job = reports.report_for_page(
        corpus,
        ReportJob.Kind.COMPARISON,
        {"finished_only": finished_only},
        actor=request.user,
        start=bool(request.GET.get("compare")),
        retry="retry" in request.GET,
    )
    done = job is not None and job.status == JobStatus.SUCCEEDED
    keep = [] if finished_only else [("all_layers", "on")]
    return {
        "comparison": comparison_from_data(job.result["rows"]) if done else None,
        "comparison_job": None if done else job,
        "compare_query": _query(request, without=("compare", "retry"), compare="1")
        if request.method == "GET"
        else "compare=1",
        "row_query": urlencode(keep),
        "finished_only": finished_only,
    }


@login_required
@require_http_methods(["GET", "POST"])
def corpus_evaluation_csv(request, pk: int):
    corpus = managed_corpus(request, pk, REFUSAL)
    table = request.POST.get("table") or request.GET.get("table") or "metrics"
    if table not in CSV_TABLES:
        raise Http404(f"No table {table}.")
    form = _form(request, corpus)
    if not form.is_bound:
        return _plain_400("Choose a source: ?source=preannotation or ?source=annotator:NAME.")
    if not form.is_valid():
        return _plain_400(" ".join(message for messages in form.errors.values() for message in messages))
    source = form.cleaned_data["source"]
    try:
        if source == FILE:
            result, _ = _evaluate_file(corpus, form)
        else:
            job = reports.report_for_page(corpus, ReportJob.Kind.EVALUATION, _params(form), start=False)
            if job is None or job.status != JobStatus.SUCCEEDED:
                page = f"{reverse('corpus-evaluation', args=[corpus.pk])}?{form.query()}"
                return report_not_ready(job, "evaluation", page)
            result = _stored_evaluation(job)
    except DomainError as exc:
        return _plain_400(exc.message)
    name = "file" if source == FILE else source.replace(":", "-")
    response = HttpResponse(evaluation_csv(result, table), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=f"{corpus.name}-evaluation-{name}-{table}.csv"
    )
    return response


def _plain_400(message: str) -> HttpResponse:
    return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
