"""DRF permission classes: thin adapters over ``annotation.permissions``.

Visibility is enforced by the viewsets' querysets (404 outside them); these classes
decide, for an object the user can see, whether they may change it (403 if not).
Both require an authenticated user, like the project's default permission."""

from rest_framework.permissions import SAFE_METHODS, IsAuthenticated

from .. import permissions as policy
from ..models import AnnotationLayer, Corpus


def corpus_of(obj) -> Corpus:
    if isinstance(obj, Corpus):
        return obj
    if hasattr(obj, "corpus"):
        return obj.corpus
    if hasattr(obj, "document"):
        return obj.document.corpus
    return obj.layer.document.corpus


class IsCorpusManager(IsAuthenticated):
    """Changes need the manager role in the object's corpus; reading needs only
    visibility (handled by the queryset)."""

    message = "Only a manager of this corpus may do this."

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return policy.is_manager(request.user, corpus_of(obj))


class CanEditLayer(IsAuthenticated):
    """Changes to a layer's annotations need edit rights on that layer."""

    message = "You may read this layer but not change it."

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in SAFE_METHODS:
            return True
        layer = obj if isinstance(obj, AnnotationLayer) else obj.layer
        refusal = policy.write_refusal(request.user, layer)
        if refusal:
            self.message = refusal  # one instance per request: the reason goes with this answer
        return refusal is None
