"""Manager pages of the pre-annotation engine: start a run, watch it (its progress is
the one job display; the page reloads its outcome when the run ends)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation.models import PreannotationRun, RunDocument
from annotation.services.errors import DomainError
from annotation.tasks import submit_preannotation

from .access import managed_corpus, managed_jobs


@login_required
@require_POST
def corpus_preannotate(request, pk: int):
    corpus = managed_corpus(request, pk, "Only managers start the pre-annotation.")
    documents = request.POST.get("documents", "").split()
    try:
        run = submit_preannotation(corpus, documents=documents or None, actor=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("corpus-detail", pk=corpus.pk)
    return redirect("preannotation-run", pk=run.pk)


@login_required
def run_detail(request, pk: int):
    run = get_object_or_404(
        managed_jobs(request.user, PreannotationRun).select_related("corpus", "created_by"),
        pk=pk,
    )
    failures = run.run_documents.filter(status=RunDocument.Status.FAILED).select_related("document")[:50]
    slowest = run.run_documents.filter(status=RunDocument.Status.DONE).select_related("document").order_by("-seconds")
    context = {
        "run": run,
        "failures": failures,
        "slowest": slowest[:5],
        "engine": run.engine or {},
    }
    template = "frontend/partials/preannotation_status.html" if request.htmx else "frontend/preannotation_run.html"
    return render(request, template, context)
