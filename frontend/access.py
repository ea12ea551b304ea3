"""Object-level access shared by the pages: a corpus the user may see (404 otherwise)
and, for managers' pages, may manage (403 for other members)."""

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.shortcuts import get_object_or_404

from annotation import permissions as policy
from annotation.models import Corpus, Release


def managed_corpus(request: HttpRequest, pk: int, refusal: str) -> Corpus:
    corpus = get_object_or_404(policy.visible_corpora(request.user), pk=pk)
    if not policy.is_manager(request.user, corpus):
        raise PermissionDenied(refusal)
    return corpus


def managed_jobs(user, model):
    """The jobs (``model``: ImportJob, Release, ...) of the corpora ``user`` manages;
    others' are answered 404."""
    return model.objects.filter(corpus__in=policy.managed_corpora(user))


def managed_releases(user):
    """The releases of the corpora ``user`` manages (others' are answered 404)."""
    return managed_jobs(user, Release).select_related("corpus", "created_by", "annotator")


def managed_release(request: HttpRequest, pk: int) -> Release:
    return get_object_or_404(managed_releases(request.user), pk=pk)


def posted_id(request: HttpRequest, name: str) -> int:
    """A primary key posted in a form field; 0 (which matches no row) when the field is
    missing or not a number, so a forged value is answered like a missing one rather
    than by a server error."""
    value = request.POST.get(name, "").strip()
    return int(value) if value.isdigit() else 0
