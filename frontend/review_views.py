"""The pair review pages (TAB Step 5): the reviewer's queue, reading the masked
document first, the review panel of the workspace (notes, corrections, sign-off) and
the manager's pairing page. Rules live in ``annotation.services.review``."""

from functools import wraps

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotation import permissions as policy
from annotation.enums import FINISHED_LAYER_STATUSES, LayerStatus, Role
from annotation.models import AnnotationLayer, Entity, Mention, ReviewAssignment, ReviewPair, ReviewThread
from annotation.services import review as review_service
from annotation.services.corpora import update_corpus
from annotation.services.errors import DomainError
from annotation.services.layers import add_reviewer, layer_of
from annotation.services.masked_review import review_segments

from .access import managed_corpus, posted_id
from .workspace.confirm_views import current_masked_review
from .workspace.review_panel import review_panel_context
from .workspace.views import visible_layer

IN_REVIEW = FINISHED_LAYER_STATUSES
LISTED = 100


def _with_notes(layers):
    """Layers with their open notes counted and their reviewers loaded (one query each)."""
    return (
        layers.annotate(
            open_notes=Count("review_threads", filter=Q(review_threads__status=ReviewThread.Status.OPEN), distinct=True)
        )
        .select_related("document__corpus", "annotator")
        .prefetch_related("review_assignments__reviewer")
    )


@login_required
@require_GET
def review_queue(request: HttpRequest) -> HttpResponse:
    """What the user reviews, and their own layers that are being reviewed."""
    user = request.user
    show_done = request.GET.get("done") == "1"
    statuses = IN_REVIEW if show_done else (LayerStatus.CONFIRMED, LayerStatus.UNDER_REVIEW)
    assignments = {a.layer_id: a for a in ReviewAssignment.objects.filter(reviewer=user, layer__status__in=statuses)}
    to_review = _with_notes(policy.visible_layers(user).filter(pk__in=list(assignments))).order_by(
        "status", "document__position"
    )
    for layer in to_review:
        layer.assignment = assignments[layer.pk]
    mine = _with_notes(
        policy.visible_layers(user)
        .filter(annotator=user, status__in=statuses, review_assignments__isnull=False)
        .distinct()
    ).order_by("status", "document__position")
    return render(
        request,
        "frontend/review/queue.html",
        {"to_review": to_review, "mine": mine, "show_done": show_done},
    )


@login_required
def review_start(request: HttpRequest, pk: int) -> HttpResponse:
    """The reviewer reads the masked document first and says whether the person could
    be re-identified; answering starts the review and opens the annotations."""
    layer = visible_layer(request, pk)
    assignment = ReviewAssignment.objects.filter(layer=layer, reviewer=request.user).first()
    if assignment is None:
        raise PermissionDenied("You do not review this layer.")
    error = None
    if request.method == "POST":
        try:
            review_service.record_masked_reading(
                assignment,
                reidentifiable=request.POST.get("reidentifiable", ""),
                comment=request.POST.get("comment", ""),
                actor=request.user,
            )
            return redirect("workspace", pk=layer.pk)
        except DomainError as exc:
            error = exc.message
    review = current_masked_review(layer)
    return render(
        request,
        "frontend/review/start.html",
        {
            "layer": layer,
            "document": layer.document,
            "assignment": assignment,
            "review": review,
            "segments": review_segments(review) if review else [],
            "choices": ReviewAssignment.Reidentification.choices,
            "error": error,
        },
        status=422 if error else 200,
    )


# --- The review panel of the workspace ------------------------------------------------


def _panel(request: HttpRequest, layer: AnnotationLayer, error: str | None = None) -> HttpResponse:
    """The review panel of ``layer`` (loaded after any change), or the workspace."""
    context = review_panel_context(request, layer, error)
    if context is None:
        return HttpResponse('<section id="review-panel" hidden></section>')
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect("workspace", pk=layer.pk)
    return render(request, "frontend/review/panel.html", context, status=422 if error else 200)


def review_action(handler):
    """POST, login required, a layer the user may see and discuss; domain errors are
    shown in the panel."""

    @login_required
    @require_POST
    @wraps(handler)
    def action(request: HttpRequest, pk: int, **kwargs) -> HttpResponse:
        layer = visible_layer(request, pk)
        if not policy.can_discuss(request.user, layer):
            raise PermissionDenied("Only the author and the reviewers of a layer in review discuss it.")
        error = None
        try:
            handler(request, layer, **kwargs)
        except DomainError as exc:
            error = exc.message
        fresh = visible_layer(request, pk)  # status and version after the change
        response = _panel(request, fresh, error)
        if request.htmx and fresh.status != layer.status:
            response["HX-Refresh"] = "true"  # the status changed: the whole page (editability, badge) follows
        return response

    return action


@login_required
@require_GET
def review_panel(request: HttpRequest, pk: int) -> HttpResponse:
    return _panel(request, visible_layer(request, pk))


@review_action
def note_new(request, layer):
    """Open a note about an entity (or one of its mentions) of the layer."""
    entity_id = request.POST.get("entity", "")
    mention_id = request.POST.get("mention", "")
    entity = Entity.objects.filter(layer=layer, pk=entity_id).first() if entity_id.isdigit() else None
    mention = Mention.objects.filter(layer=layer, pk=mention_id).first() if mention_id.isdigit() else None
    review_service.open_thread(
        layer, actor=request.user, body=request.POST.get("body", ""), mention=mention, entity=entity
    )


def _thread(layer, thread_id) -> ReviewThread:
    return get_object_or_404(ReviewThread.objects.select_related("layer"), pk=thread_id, layer=layer)


@review_action
def note_reply(request, layer, thread_id: int):
    review_service.reply(_thread(layer, thread_id), actor=request.user, body=request.POST.get("body", ""))


@review_action
def note_settle(request, layer, thread_id: int):
    review_service.settle(
        _thread(layer, thread_id), request.POST.get("status", ""), actor=request.user, body=request.POST.get("body", "")
    )


@review_action
def review_confirm(request, layer):
    """Sign the review off as author or reviewer, on the layer version the page shows."""
    version = request.POST.get("layer_version", "")
    if not version.isdigit():
        raise DomainError(
            "The sign-off did not say which version of the layer you saw (layer_version): reload the page.",
            field="layer_version",
        )
    review_service.confirm_review(layer, actor=request.user, expected_version=int(version))


# --- Managers: pairs and reviewers ---------------------------------------------------------


@login_required
def corpus_reviews(request: HttpRequest, pk: int) -> HttpResponse:
    corpus = managed_corpus(request, pk, "Only managers pair reviewers.")
    User = get_user_model()
    if request.method == "POST":
        try:
            _manage(request, corpus, User)
        except DomainError as exc:
            messages.error(request, exc.message)
        return redirect("corpus-reviews", pk=corpus.pk)
    annotators = User.objects.filter(
        corpus_memberships__corpus=corpus, corpus_memberships__role=Role.ANNOTATOR
    ).order_by("username")
    reviewers = User.objects.filter(corpus_memberships__corpus=corpus, corpus_memberships__role=Role.REVIEWER).order_by(
        "username"
    )
    show_reviewed = request.GET.get("reviewed") == "1"
    shown = IN_REVIEW if show_reviewed else (LayerStatus.CONFIRMED, LayerStatus.UNDER_REVIEW)
    layers = (
        _with_notes(AnnotationLayer.objects.filter(document__corpus=corpus, status__in=shown))
        .prefetch_related("review_assignments__reviewer")
        .order_by("status", "document__position", "position")
    )
    counts = dict(
        AnnotationLayer.objects.filter(document__corpus=corpus, status__in=IN_REVIEW)
        .order_by()
        .values_list("status")
        .annotate(n=Count("id"))
    )
    return render(
        request,
        "frontend/review/corpus_reviews.html",
        {
            "corpus": corpus,
            "mask_styles": corpus.MaskStyle.choices,
            "pairs": ReviewPair.objects.filter(corpus=corpus).select_related("first", "second"),
            "annotators": annotators,
            "reviewers": reviewers,
            "layers": layers[:LISTED],
            "listed": LISTED,
            "show_reviewed": show_reviewed,
            "counts": [
                (status, label, counts.get(status, 0)) for status, label in LayerStatus.choices if status in IN_REVIEW
            ],
            "without_reviewer": AnnotationLayer.objects.filter(
                document__corpus=corpus, status=LayerStatus.CONFIRMED, review_assignments__isnull=True
            ).count(),
        },
    )


def _manage(request: HttpRequest, corpus, User) -> None:
    action = request.POST.get("action")
    if action == "pair":
        users = [User.objects.filter(pk=posted_id(request, key)).first() for key in ("first", "second")]
        if None in users:
            raise DomainError("Choose two annotators to pair.", field="first")
        pair = review_service.pair_annotators(corpus, *users, actor=request.user)
        messages.success(request, f"Paired {pair.first.username} and {pair.second.username}.")
    elif action == "unpair":
        pair = get_object_or_404(ReviewPair, pk=posted_id(request, "pair"), corpus=corpus)
        review_service.unpair(pair, actor=request.user)
        messages.success(request, f"{pair.first.username} and {pair.second.username} are no longer paired.")
    elif action == "reviewer":
        layer = layer_of(corpus, request.POST.get("doc_id", ""), request.POST.get("annotator", ""))
        reviewer = User.objects.filter(pk=posted_id(request, "reviewer")).first()
        if reviewer is None:
            raise DomainError("Choose a reviewer.", field="reviewer")
        add_reviewer(layer, reviewer, actor=request.user)
        messages.success(request, f"{reviewer.username} reviews {layer}.")
    elif action == "mask_style":
        update_corpus(corpus, actor=request.user, mask_style=request.POST.get("mask_style", ""))
        messages.success(request, f"Masked documents now show: {corpus.get_mask_style_display()}.")
    else:
        raise DomainError(f"Unknown action {action!r}.")
