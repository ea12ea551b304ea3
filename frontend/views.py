"""Server-rendered pages. Thin: access via ``annotation.permissions``, reads via
``annotation.selectors``, changes via ``annotation.services`` and tasks."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count, Prefetch, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation import permissions as policy
from annotation.enums import FINISHED_LAYER_STATUSES, EntityType, LayerStatus
from annotation.models import ImportJob
from annotation.selectors import corpora_overview, with_corpus_counts, with_progress
from annotation.services import notifications
from annotation.services.active_learning import most_uncertain_first
from annotation.services.corpora import background_collections
from annotation.services.errors import DomainError
from annotation.tasks import submit_import_job

from .access import managed_corpus, managed_jobs
from .forms import DocumentSearchForm, ImportUploadForm
from .workspace.html import render_blocks, render_entity_list, render_plain_text
from .workspace.model import LayerView


@login_required
def home(request):
    user = request.user
    layers = (
        policy.visible_layers(user)
        .filter(annotator=user)
        .exclude(status=LayerStatus.REVIEWED)
        .select_related("document__corpus")
        .annotate(mention_count=Count("mentions"))
        .order_by("status", "document__position")
    )
    reviewing = (
        policy.visible_layers(user)
        .filter(review_assignments__reviewer=user)
        .select_related("document__corpus", "annotator")
        .order_by("status", "document__position")
    )
    return render(
        request,
        "frontend/home.html",
        {
            "corpora": corpora_overview(user),
            "my_layers": layers[:50],
            "reviewing": reviewing[:50],
        },
    )


@login_required
def my_work(request):
    """The annotator's queue: assigned layers with status, progress and the person to
    protect; filters by status and corpus. Above it, what is new (``notifications``)."""
    layers = with_progress(
        policy.visible_layers(request.user).filter(annotator=request.user).select_related("document__corpus")
    ).order_by("document__corpus__name", "document__position")
    status = request.GET.get("status", "open")
    if status == "open":
        layers = layers.exclude(status__in=FINISHED_LAYER_STATUSES)
    elif status in LayerStatus.values:
        layers = layers.filter(status=status)
    corpus = request.GET.get("corpus", "")
    if corpus.isdigit():
        layers = layers.filter(document__corpus_id=int(corpus))
    order = request.GET.get("order", "")
    order_note = ""
    if order == "uncertain":
        ordered = most_uncertain_first(list(layers))
        layers, order_note = ordered.layers, ordered.message
    page = Paginator(layers, 50).get_page(request.GET.get("page"))
    for layer in page:
        layer.decided_count = layer.entity_count - layer.undecided_count
        layer.percent = round(100 * layer.decided_count / layer.entity_count) if layer.entity_count else 0
    return render(
        request,
        "frontend/my_work.html",
        {
            "page": page,
            "status": status,
            "statuses": [("open", "To do"), *LayerStatus.choices, ("all", "All")],
            "corpora": policy.visible_corpora(request.user).order_by("name"),
            "corpus": corpus,
            "order": order,
            "order_note": order_note,
            "recent_days": notifications.RECENT.days,
            "newly_assigned": notifications.newly_assigned(request.user),
            "back_from_review": notifications.back_from_review(request.user),
            "engine_refreshes": notifications.engine_refreshes(request.user),
        },
    )


@login_required
def corpus_detail(request, pk: int):
    user = request.user
    corpus = get_object_or_404(with_corpus_counts(policy.visible_corpora(user)), pk=pk)
    form = DocumentSearchForm(request.GET or None)
    documents = policy.visible_documents(user).filter(corpus=corpus).order_by("position", "id")
    if form.is_valid():
        if form.cleaned_data["q"]:
            query = form.cleaned_data["q"]
            documents = documents.filter(Q(doc_id__icontains=query) | Q(person_to_protect__icontains=query))
        if form.cleaned_data["dataset_type"]:
            documents = documents.filter(dataset_type=form.cleaned_data["dataset_type"])
    visible = policy.visible_layers(user).select_related("annotator").annotate(mention_count=Count("mentions"))
    documents = documents.prefetch_related(
        Prefetch("layers", queryset=visible.order_by("position", "id"), to_attr="shown_layers")
    )
    page = Paginator(documents.defer("text"), 50).get_page(request.GET.get("page"))
    is_manager = policy.is_manager(user, corpus)
    return render(
        request,
        "frontend/corpus_detail.html",
        {
            "corpus": corpus,
            "page": page,
            "form": form,
            "is_manager": is_manager,
            "import_form": ImportUploadForm() if is_manager else None,
            "imports": corpus.import_jobs.all()[:5] if is_manager else [],
            "runs": corpus.preannotation_runs.all()[:5] if is_manager else [],
            "team": corpus.memberships.select_related("user").order_by("role", "user__username") if is_manager else [],
            "background_collections": background_collections() if is_manager else [],
        },
    )


@login_required
def document_detail(request, pk: int):
    """A document with one of the layers the user may see, read-only (the workspace is
    where layers change)."""
    user = request.user
    document = get_object_or_404(policy.visible_documents(user).select_related("corpus"), pk=pk)
    layers = list(
        policy.readable_layers(user).filter(document=document).select_related("annotator").order_by("position", "id")
    )
    if not layers and not policy.is_manager(user, document.corpus):
        # A reviewer who has not yet answered the masked reading reads the masked text
        # first: the plain text would give the person away before they are asked.
        unread = policy.visible_layers(user).filter(document=document).first()
        if unread is not None:
            return redirect("review-start", pk=unread.pk)
    selected = next(
        (layer for layer in layers if str(layer.pk) == request.GET.get("layer")), layers[0] if layers else None
    )
    view = LayerView(selected, text=document.text) if selected else None
    return render(
        request,
        "frontend/document_detail.html",
        {
            "document": document,
            "layers": layers,
            "layer": selected,
            # With no layer to show, the text is still worth reading.
            "text_html": render_blocks(view) if view else render_plain_text(document.text),
            "entity_list_html": render_entity_list(view) if view else "",
            "entity_count": len(view.entities) if view else 0,
            "mention_count": len(view.mentions) if view else 0,
            "entity_types": EntityType,
        },
    )


@login_required
def corpus_audit(request, pk: int):
    corpus = managed_corpus(request, pk, "Only managers read a corpus's audit trail.")
    events = corpus.audit_events.select_related("actor", "document").order_by("-at", "-id")
    action = request.GET.get("action", "")
    if action:
        events = events.filter(action__startswith=action)
    page = Paginator(events, 100).get_page(request.GET.get("page"))
    return render(request, "frontend/corpus_audit.html", {"corpus": corpus, "page": page, "action": action})


@login_required
@require_POST
def corpus_import(request, pk: int):
    corpus = managed_corpus(request, pk, "Only managers import documents.")
    form = ImportUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "Choose a TAB JSON file to import.")
        return redirect("corpus-detail", pk=corpus.pk)
    try:
        job = submit_import_job(corpus, form.cleaned_data["file"], actor=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("corpus-detail", pk=corpus.pk)
    return redirect("import-job", pk=job.pk)


@login_required
def import_job_detail(request, pk: int):
    job = get_object_or_404(managed_jobs(request.user, ImportJob).select_related("corpus"), pk=pk)
    template = "frontend/partials/import_job_status.html" if request.htmx else "frontend/import_job.html"
    return render(request, template, {"job": job})
