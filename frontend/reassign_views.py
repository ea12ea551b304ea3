"""Taking an open layer back from its annotator, from the assignment page: withdraw it
or hand it over. The rules (unstarted layers removed, started ones closed read-only,
finished work never touched, who may take a layer over) are
``annotation.services.reassignment``'s."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.models import AnnotationLayer
from annotation.services import reassignment
from annotation.services.errors import DomainError

from .access import managed_corpus, posted_id

REFUSAL = "Only managers of this corpus take layers back or hand them over."


def _layer(corpus, layer_id: int) -> AnnotationLayer:
    layers = AnnotationLayer.objects.select_related("document__corpus", "annotator")
    return get_object_or_404(layers, pk=layer_id, document__corpus=corpus)


def _back(request: HttpRequest, corpus) -> HttpResponse:
    """To the open layers of the assignment page, with the list's filter and page kept
    (a query string only: never another address)."""
    query = request.POST.get("back", "")
    query = query if query.startswith("?") else ""
    return redirect(f"{reverse('corpus-assign', args=[corpus.pk])}{query}#open-layers")


@login_required
@require_POST
def withdraw(request: HttpRequest, pk: int, layer_id: int) -> HttpResponse:
    corpus = managed_corpus(request, pk, REFUSAL)
    layer = _layer(corpus, layer_id)
    name = f"{layer.annotator.username}'s layer on {layer.document.doc_id}"
    try:
        result = reassignment.withdraw_layer(layer, actor=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
        return _back(request, corpus)
    if result == "deleted":
        messages.success(request, f"{name} is withdrawn: nobody had started it, so it was removed.")
    else:
        messages.success(request, f"{name} is withdrawn: it had been started, so it is closed and kept read-only.")
    return _back(request, corpus)


@login_required
@require_POST
def hand_over(request: HttpRequest, pk: int, layer_id: int) -> HttpResponse:
    corpus = managed_corpus(request, pk, REFUSAL)
    layer = _layer(corpus, layer_id)
    former = layer.annotator.username
    successor = get_user_model().objects.filter(pk=posted_id(request, "annotator")).first()
    try:
        if successor is None:
            raise DomainError(f"Choose whom to hand {former}'s layer on {layer.document.doc_id} over to.")
        reassignment.hand_over_layer(layer, successor, actor=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
        return _back(request, corpus)
    messages.success(
        request,
        f"{layer.document.doc_id}: {former}'s layer is now {successor.username}'s, with its annotations and history.",
    )
    return _back(request, corpus)
