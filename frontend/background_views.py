"""The corpus's background for re-identification: which background collection the
attacker of the workspace's risk meter learns from (managers only)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from annotation.services.corpora import set_background_collection
from annotation.services.errors import DomainError

from .access import managed_corpus


@login_required
@require_POST
def corpus_background(request: HttpRequest, pk: int) -> HttpResponse:
    corpus = managed_corpus(request, pk, "Only managers choose a corpus's background for re-identification.")
    collection = request.POST.get("background_collection", "")
    try:
        set_background_collection(corpus, collection, actor=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        chosen = corpus.background_collection
        messages.success(
            request,
            f"The re-identification risk meter now learns from {chosen!r}."
            if chosen
            else "No background for re-identification: the workspace shows no risk meter.",
        )
    return redirect("corpus-detail", pk=corpus.pk)
