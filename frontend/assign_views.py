"""The assignment page of a corpus: choose documents (filters, or every document
matching them) and annotators, pick a strategy, preview the layers it would create,
apply. The strategies, the checks and the atomic apply are
``annotation.services.assignment``'s; this module reads the form and shows the result.

Apply posts the preview's input again with a fingerprint of the pairs shown: if the
same input now gives other pairs (another manager assigned meanwhile, a load changed),
nothing is applied and the new preview is shown instead, so a manager only ever applies
what they have seen."""

import hashlib

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Exists, OuterRef, Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotation.enums import LayerStatus, Role
from annotation.models import AnnotationLayer, Document, Prediction
from annotation.services import assignment, team
from annotation.services.errors import DomainError

from .access import managed_corpus
from .team_forms import STRATEGIES, DocumentFilterForm

REFUSAL = "Only managers of this corpus assign its documents."
PAGE = 50
OPEN = (LayerStatus.ASSIGNED, LayerStatus.IN_PROGRESS)
INPUT_FIELDS = ("all_matching", "documents", "annotators", "strategy", "per_document", "pairs", "page")


@login_required
@require_GET
def assign_page(request: HttpRequest, pk: int) -> HttpResponse:
    corpus = managed_corpus(request, pk, REFUSAL)
    return _render(request, corpus, DocumentFilterForm(request.GET), page_number=request.GET.get("page"))


@login_required
@require_POST
def assign_preview(request: HttpRequest, pk: int) -> HttpResponse:
    corpus = managed_corpus(request, pk, REFUSAL)
    filters = DocumentFilterForm(request.POST)
    try:
        preview = assignment.preview_assignment(corpus, **_assignment_input(request, corpus, filters))
    except DomainError as exc:
        return _render(request, corpus, filters, page_number=request.POST.get("page"), error=exc.message, status=422)
    return _render(request, corpus, filters, page_number=request.POST.get("page"), preview=preview)


@login_required
@require_POST
def assign_apply(request: HttpRequest, pk: int) -> HttpResponse:
    corpus = managed_corpus(request, pk, REFUSAL)
    filters = DocumentFilterForm(request.POST)
    page_number = request.POST.get("page")
    try:
        preview = assignment.preview_assignment(corpus, **_assignment_input(request, corpus, filters))
        if fingerprint(preview) != request.POST.get("shown", ""):
            changed = "The assignment is no longer the one you previewed (layers or loads changed meanwhile): "
            messages.error(request, changed + "here it is again; apply it if it is right.")
            return _render(request, corpus, filters, page_number=page_number, preview=preview, status=409)
        layers = assignment.apply_assignment(corpus, preview, actor=request.user)
    except DomainError as exc:
        return _render(request, corpus, filters, page_number=page_number, error=exc.message, status=422)
    people = sorted({layer.annotator.username for layer in layers})
    messages.success(
        request,
        f"{len(layers)} layer{'s' if len(layers) != 1 else ''} assigned"
        + (f" to {', '.join(people)}." if people else "."),
    )
    for document, user, reason in layers.skipped:
        messages.info(request, f"Skipped {document.doc_id} for {user.username}: {reason}.")
    return redirect(reverse("corpus-assign", args=[corpus.pk]))


def fingerprint(preview: assignment.AssignmentPreview) -> str:
    """What the preview would create, in a few characters (order included)."""
    pairs = ";".join(f"{document.pk}:{user.pk}" for document, user in preview.pairs)
    return hashlib.sha256(pairs.encode()).hexdigest()[:16]


# --- Reading the form -------------------------------------------------------------------


def _ids(values: list[str]) -> list[int]:
    return [int(value) for value in values if value.isdigit()]


def _assignment_input(request: HttpRequest, corpus, filters: DocumentFilterForm) -> dict:
    """The keyword arguments of ``preview_assignment`` from the posted form. With "all
    matching", the documents are those the posted filters select now, on every page."""
    post = request.POST
    strategy = post.get("strategy", "")
    per_document = post.get("per_document", "1").strip()
    if not per_document.isdigit():
        raise DomainError(
            f"Annotators per document must be a whole number, not {per_document!r}.", field="per_document"
        )
    if strategy == "explicit":
        return {"document_ids": [], "annotator_ids": [], "strategy": strategy, "pairs": _pairs(corpus, post)}
    if post.get("all_matching") == "1":
        if not filters.is_valid():
            raise DomainError("The document filters are not valid: filter the documents again.", field="documents")
        documents = assignment.document_filter(corpus, **filters.filter_arguments()).values_list("pk", flat=True)
    else:
        documents = _ids(post.getlist("documents"))
    return {
        "document_ids": list(documents),
        "annotator_ids": _ids(post.getlist("annotators")),
        "strategy": strategy,
        "per_document": int(per_document),
    }


def _pairs(corpus, post) -> list[tuple[int, int]]:
    """Explicit pairs, one per line: a document id and a username (comma or spaces)."""
    lines = [
        (number, line.replace(",", " ").split()) for number, line in enumerate(post.get("pairs", "").splitlines(), 1)
    ]
    lines = [(number, words) for number, words in lines if words]
    for number, words in lines:
        if len(words) != 2:
            raise DomainError(f"Line {number} of the pairs should be a document id and a username.", field="pairs")
    documents = dict(
        Document.objects.filter(corpus=corpus, doc_id__in=[w[0] for _, w in lines]).values_list("doc_id", "pk")
    )
    users = dict(get_user_model().objects.filter(username__in=[w[1] for _, w in lines]).values_list("username", "pk"))
    pairs = []
    for number, (doc_id, username) in lines:
        if doc_id not in documents:
            raise DomainError(f"Line {number}: corpus {corpus.name} has no document {doc_id}.", field="pairs")
        if username not in users:
            raise DomainError(f"Line {number}: there is no account {username}.", field="pairs")
        pairs.append((documents[doc_id], users[username]))
    return pairs


def _chosen(request: HttpRequest) -> dict:
    """What the manager chose, to show the form as they left it."""
    post = request.POST
    return {
        "documents": set(_ids(post.getlist("documents"))),
        "all_matching": post.get("all_matching") == "1",
        "annotators": set(_ids(post.getlist("annotators"))),
        "strategy": post.get("strategy", "balanced"),
        "per_document": post.get("per_document", "2"),
        "pairs": post.get("pairs", ""),
    }


def _echo(request: HttpRequest) -> list[tuple[str, str]]:
    """The posted input as hidden fields, for Apply to post it again."""
    names = (*DocumentFilterForm.FIELDS, *INPUT_FIELDS)
    return [(name, value) for name in names for value in request.POST.getlist(name)]


# --- The page ------------------------------------------------------------------------------


def _render(request, corpus, filters, *, page_number, preview=None, error=None, status=200) -> HttpResponse:
    documents = Document.objects.none()
    if filters.is_valid():
        try:
            documents = assignment.document_filter(corpus, **filters.filter_arguments())
        except DomainError as exc:
            error = error or exc.message
    layers = AnnotationLayer.objects.select_related("annotator").order_by("position", "id")
    documents = (
        documents.defer("text")
        .annotate(preannotated=Exists(Prediction.objects.filter(document=OuterRef("pk"))))
        .prefetch_related(Prefetch("layers", queryset=layers, to_attr="all_layers"))
    )
    page = Paginator(documents, PAGE).get_page(page_number)
    rows = team.members_overview(corpus)
    annotators = [row for row in rows if Role.ANNOTATOR in row.roles and row.is_active]
    for row in annotators:
        row.load = row.assigned + row.in_progress
    chosen = _chosen(request) if request.method == "POST" else {"strategy": "balanced", "per_document": "2"}
    return render(
        request,
        "frontend/team/assign.html",
        {
            "corpus": corpus,
            "filters": filters,
            "page": page,
            "annotators": annotators,
            "inactive_annotators": sum(1 for row in rows if Role.ANNOTATOR in row.roles and not row.is_active),
            "strategies": STRATEGIES,
            "chosen": chosen,
            "error": error,
            "preview": preview,
            "preview_groups": _by_document(preview) if preview else [],
            "load_rows": _load_rows(preview) if preview else [],
            "shown": fingerprint(preview) if preview else "",
            "echo": _echo(request) if preview else [],
            **_open_layers(request, corpus, rows),
        },
        status=status,
    )


def _by_document(preview) -> list[tuple]:
    groups: dict[int, tuple] = {}
    for document, user in preview.pairs:
        groups.setdefault(document.pk, (document, []))[1].append(user)
    return list(groups.values())


def _load_rows(preview) -> list[tuple[str, int, int, int]]:
    """Each annotator's open layers before and after, and the difference."""
    return [
        (name, before, preview.loads_after[name], preview.loads_after[name] - before)
        for name, before in preview.loads_before.items()
    ]


def _open_layers(request: HttpRequest, corpus, rows) -> dict:
    """The open layers of the corpus, each with whom it could be handed over to: the
    active annotators without a layer on its document (the service checks again)."""
    layers = (
        AnnotationLayer.objects.filter(document__corpus=corpus, status__in=OPEN)
        .select_related("document", "annotator")
        .order_by("document__position", "document_id", "annotator__username")
    )
    holder = request.GET.get("holder", "")
    if holder:
        layers = layers.filter(annotator__username=holder)
    page = Paginator(layers, PAGE).get_page(request.GET.get("lpage"))
    annotators = [row.user for row in rows if Role.ANNOTATOR in row.roles and row.is_active]
    members = {row.user.pk for row in rows if Role.ANNOTATOR in row.roles}
    taken: dict[int, set[int]] = {}
    documents = {layer.document_id for layer in page}
    for document_id, user_id in AnnotationLayer.objects.filter(document_id__in=documents).values_list(
        "document_id", "annotator_id"
    ):
        taken.setdefault(document_id, set()).add(user_id)
    for layer in page:
        layer.candidates = [user for user in annotators if user.pk not in taken.get(layer.document_id, ())]
        layer.holder_removed = layer.annotator_id not in members
    holders = sorted(
        set(
            AnnotationLayer.objects.filter(document__corpus=corpus, status__in=OPEN).values_list(
                "annotator__username", flat=True
            )
        )
    )
    return {"open_layers": page, "holder": holder, "holders": holders}
