"""The manager's corpus export: a form (a dialog on the corpus page, a page of its own
without JavaScript) whose GET answers with the file.

A TAB corpus is streamed (``StreamingHttpResponse`` fed by the writer, one document at
a time) rather than built in the request or run as a background job: the writer
already reads the database in chunks, the browser shows the download's progress, and
no second job mechanism is needed. Options are checked before the first byte, so a
refusal is the form again with the reason, never a truncated file."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render

from annotation import permissions as policy
from annotation.api.downloads import download_response
from annotation.services.exports import ExportError, export_summary, prepare_export

from .export_forms import ExportForm


@login_required
def corpus_export(request, pk: int):
    # Object-level: a corpus the user does not manage is answered 404, as in the API's
    # scoping (its exports are not revealed to its annotators either).
    corpus = get_object_or_404(policy.managed_corpora(request.user), pk=pk)
    summary = export_summary(corpus)
    bound = "format" in request.GET
    form = ExportForm(
        request.GET if bound else None, annotators=summary.annotators, preannotated=summary.preannotated
    )
    if bound and form.is_valid():
        try:
            return download_response(prepare_export(corpus, form.options()))
        except ExportError as error:
            form.add_error(None, error.message)
    context = {"corpus": corpus, "form": form, "summary": summary, "in_dialog": bool(request.htmx)}
    template = "frontend/partials/export_form.html" if request.htmx else "frontend/corpus_export.html"
    return render(request, template, context, status=400 if bound else 200)
