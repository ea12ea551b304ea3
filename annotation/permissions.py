"""Who may see and change what: the one place where object-level access is decided.

- A **manager** of a corpus sees and changes everything in it (documents, every layer,
  memberships, imports, exports, the audit trail).
- An **annotator** sees only the layers assigned to them, and the documents they have a
  layer on. They never see another annotator's layer of the same document (blind
  annotation).
- A **reviewer** sees and changes only the layers they were paired on, and reads their
  annotations only once they have answered the masked reading (the review order).
- A superuser is a manager of every corpus.

Access rests on membership: one's own layers are visible only while one is an
**annotator** of their corpus, layers one reviews only while one is a **reviewer** of it;
an inactive account sees nothing. Removing a member (or deactivating the account) thus
shuts every page and endpoint of the corpus at once, while the layers stay, attributed to
their annotator and visible to the managers.

The API, the HTML views and the exporters scope their querysets with these functions;
an object outside the scope is answered with 404, so its existence is not revealed.
"""

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, OuterRef, Q, QuerySet

from .enums import LayerStatus, Role
from .models import AnnotationLayer, AuditEvent, Corpus, CorpusMembership, Document, ReviewAssignment
from .services.errors import LayerLocked
from .services.layer_states import WRITABLE_STATUSES, refuse_write, unread_review

User = AbstractBaseUser | AnonymousUser


def _anonymous(user: User) -> bool:
    return not user.is_authenticated or not user.is_active


def managed_corpora(user: User) -> QuerySet[Corpus]:
    if _anonymous(user):
        return Corpus.objects.none()
    if user.is_superuser:
        return Corpus.objects.all()
    return Corpus.objects.filter(memberships__user=user, memberships__role=Role.MANAGER).distinct()


def is_manager(user: User, corpus: Corpus) -> bool:
    if _anonymous(user):
        return False
    if user.is_superuser:
        return True
    return CorpusMembership.objects.filter(corpus=corpus, user=user, role=Role.MANAGER).exists()


def can_create_corpus(user: User) -> bool:
    """Creating a corpus is a site-level right (Django's model permission)."""
    return not _anonymous(user) and user.has_perm("annotation.add_corpus")


def _member_as(user: User, role: str) -> Exists:
    """For a layer query: the user holds ``role`` in the layer's corpus."""
    return Exists(CorpusMembership.objects.filter(corpus_id=OuterRef("document__corpus_id"), user=user, role=role))


def _manages_layer(user: User) -> Exists:
    """For a layer query: the user manages the layer's corpus."""
    return _member_as(user, Role.MANAGER)


def _owns_layer(user: User) -> Q:
    """For a layer query: the user's own layer, while they are an annotator of its corpus."""
    return Q(annotator=user) & Q(_member_as(user, Role.ANNOTATOR))


def _reviews_layer(user: User, *, has_read: bool = False) -> Q:
    """For a layer query: the user is paired on the layer as reviewer (and, with
    ``has_read``, has answered the masked reading), while a reviewer of its corpus."""
    assignments = ReviewAssignment.objects.filter(layer_id=OuterRef("pk"), reviewer=user)
    if has_read:
        assignments = assignments.filter(masked_read_at__isnull=False)
    return Q(Exists(assignments)) & Q(_member_as(user, Role.REVIEWER))


def visible_layers(user: User) -> QuerySet[AnnotationLayer]:
    if _anonymous(user):
        return AnnotationLayer.objects.none()
    if user.is_superuser:
        return AnnotationLayer.objects.all()
    return AnnotationLayer.objects.filter(_owns_layer(user) | Q(_manages_layer(user)) | _reviews_layer(user))


def readable_layers(user: User) -> QuerySet[AnnotationLayer]:
    """Layers whose annotations the user may read: as ``visible_layers``, less the
    layers the user reviews but has not yet read masked (the reviewer reads the masked
    document first, unbiased by the annotations)."""
    if _anonymous(user):
        return AnnotationLayer.objects.none()
    if user.is_superuser:
        return AnnotationLayer.objects.all()
    own_or_managed = _owns_layer(user) | Q(_manages_layer(user))
    return AnnotationLayer.objects.filter(own_or_managed | _reviews_layer(user, has_read=True))


def editable_layers(user: User) -> QuerySet[AnnotationLayer]:
    """Layers whose annotations the user may change now.

    Annotations change only while a layer is assigned, in progress or under review
    (``services.layer_states``: confirmed is locked until its author reopens it,
    reviewed is final). The annotator edits their own layer; the paired reviewer
    corrects it under review once they have answered the masked reading; a manager may
    intervene whenever the status allows it."""
    if _anonymous(user):
        return AnnotationLayer.objects.none()
    writable = AnnotationLayer.objects.filter(status__in=WRITABLE_STATUSES)
    if user.is_superuser:
        return writable
    # The author keeps editing under review: settling a note may mean changing the layer.
    reviewing = _reviews_layer(user, has_read=True) & Q(status=LayerStatus.UNDER_REVIEW)
    return writable.filter(_owns_layer(user) | reviewing | Q(_manages_layer(user)))


@dataclass(frozen=True)
class LayerAccess:
    """What one user may do with one layer: the rules of ``visible_layers``,
    ``readable_layers`` and ``editable_layers`` answered for a single layer."""

    visible: bool = False
    readable: bool = False
    editable: bool = False


NO_ACCESS = LayerAccess()


def layer_access(user: User, layer: AnnotationLayer) -> LayerAccess:
    """The access of ``user`` to ``layer``, in one or two small queries.

    Every annotation request asks this for the layer it touches; building the layer
    querysets above costs more Python than the queries themselves, so the same rules are
    evaluated here on the user's roles in the corpus and their review assignment (a test
    checks both forms against each other on every combination)."""
    if _anonymous(user):
        return NO_ACCESS
    writable = layer.status in WRITABLE_STATUSES
    if user.is_superuser:
        return LayerAccess(visible=True, readable=True, editable=writable)
    # The corpus through the document when it is at hand, else in the same query.
    if AnnotationLayer.document.is_cached(layer):
        in_corpus = {"corpus_id": layer.document.corpus_id}
    else:
        in_corpus = {"corpus__documents": layer.document_id}
    roles = set(CorpusMembership.objects.filter(user=user, **in_corpus).values_list("role", flat=True))
    if Role.MANAGER in roles or (layer.annotator_id == user.pk and Role.ANNOTATOR in roles):
        return LayerAccess(visible=True, readable=True, editable=writable)
    if Role.REVIEWER not in roles:
        return NO_ACCESS
    assignment = ReviewAssignment.objects.filter(layer=layer, reviewer=user).values_list("masked_read_at").first()
    if assignment is None:
        return NO_ACCESS
    has_read = assignment[0] is not None
    return LayerAccess(
        visible=True, readable=has_read, editable=has_read and writable and layer.status == LayerStatus.UNDER_REVIEW
    )


def can_edit_layer(user: User, layer: AnnotationLayer) -> bool:
    return layer_access(user, layer).editable


def layer_with_access(user: User, layer_pk: int) -> tuple[AnnotationLayer | None, LayerAccess]:
    """The layer (with its document, corpus and annotator) and the user's access to it;
    (None, NO_ACCESS) when no such layer exists. A page or endpoint answers "not found"
    unless ``access.visible``, so an unknown layer and one out of reach look alike."""
    layer = AnnotationLayer.objects.select_related("document__corpus", "annotator").filter(pk=layer_pk).first()
    return layer, (layer_access(user, layer) if layer is not None else NO_ACCESS)


def write_refusal(user: User, layer: AnnotationLayer, access: LayerAccess | None = None) -> str | None:
    """Why ``user`` may not change ``layer``'s annotations now (None: they may). The
    status and review-order reasons come first: they tell the user what to do.
    ``access``: the user's access to the layer when the caller has it already."""
    access = access or layer_access(user, layer)
    if access.editable:
        return None
    try:
        refuse_write(layer, user)
    except LayerLocked as locked:
        # Its author, a paired reviewer or a manager is told why.
        if layer.annotator_id == getattr(user, "pk", None) or access.visible:
            return locked.message
    return "You may read this layer but not change it."


def with_edit_right(user: User, layers: QuerySet[AnnotationLayer]) -> QuerySet[AnnotationLayer]:
    """Annotate ``user_can_edit`` on each layer: the same rule as ``layer_access(...).editable``,
    answered in the query that loads the layers."""
    return layers.annotate(user_can_edit=Exists(editable_layers(user).filter(pk=OuterRef("pk"))))


def visible_documents(user: User) -> QuerySet[Document]:
    if _anonymous(user):
        return Document.objects.none()
    if user.is_superuser:
        return Document.objects.all()
    return Document.objects.filter(Q(corpus__in=managed_corpora(user)) | Q(layers__in=visible_layers(user))).distinct()


def visible_corpora(user: User) -> QuerySet[Corpus]:
    """Corpora the user is a member of in any role."""
    if _anonymous(user):
        return Corpus.objects.none()
    if user.is_superuser:
        return Corpus.objects.all()
    return Corpus.objects.filter(memberships__user=user).distinct()


def visible_audit_events(user: User) -> QuerySet[AuditEvent]:
    """Managers read their corpora's trail; annotators and reviewers read the trail of
    the layers they can see (so an author sees a reviewer's corrections)."""
    if _anonymous(user):
        return AuditEvent.objects.none()
    if user.is_superuser:
        return AuditEvent.objects.all()
    in_scope = Q(corpus__in=managed_corpora(user)) | Q(layer__in=readable_layers(user))
    return AuditEvent.objects.filter(in_scope).distinct()


# Who may move a layer to which status: the annotator confirms (or reopens) their own
# layer; the paired reviewer runs the review; a manager may do any allowed step.
_ANNOTATOR_TARGETS = {LayerStatus.IN_PROGRESS, LayerStatus.CONFIRMED}
_REVIEWER_TARGETS = {LayerStatus.UNDER_REVIEW, LayerStatus.REVIEWED}


def can_change_status(user: User, layer: AnnotationLayer, to: str) -> bool:
    if _anonymous(user):
        return False
    if is_manager(user, layer.document.corpus):
        return True
    if (
        to in _ANNOTATOR_TARGETS
        and layer.status in (LayerStatus.ASSIGNED, LayerStatus.IN_PROGRESS, LayerStatus.CONFIRMED)
        and is_author(user, layer)
    ):
        return True
    return (
        to in _REVIEWER_TARGETS
        and layer.status in (LayerStatus.CONFIRMED, LayerStatus.UNDER_REVIEW)
        and is_reviewer(user, layer)
    )


def _holds(user: User, layer: AnnotationLayer, role: str) -> bool:
    return CorpusMembership.objects.filter(corpus_id=layer.document.corpus_id, user=user, role=role).exists()


def is_author(user: User, layer: AnnotationLayer) -> bool:
    """``user`` wrote ``layer`` and is still an annotator of its corpus."""
    return not _anonymous(user) and layer.annotator_id == user.pk and _holds(user, layer, Role.ANNOTATOR)


def is_reviewer(user: User, layer: AnnotationLayer) -> bool:
    """``user`` is paired on ``layer`` as reviewer and still a reviewer of its corpus."""
    return (
        not _anonymous(user)
        and ReviewAssignment.objects.filter(layer=layer, reviewer=user).exists()
        and _holds(user, layer, Role.REVIEWER)
    )


def can_read_annotations(user: User, layer: AnnotationLayer) -> bool:
    """The rule of ``readable_layers`` for one layer the user can see."""
    return not _anonymous(user) and not unread_review(layer, user)


def can_discuss(user: User, layer: AnnotationLayer) -> bool:
    """Write review notes on a layer, reply, settle them and sign the review off: the
    author and the paired reviewers while the layer is in review (managers too); a
    reviewer only once they have answered the masked reading."""
    if _anonymous(user) or layer.status not in (LayerStatus.CONFIRMED, LayerStatus.UNDER_REVIEW):
        return False
    if unread_review(layer, user):
        return False
    return is_author(user, layer) or is_reviewer(user, layer) or is_manager(user, layer.document.corpus)
