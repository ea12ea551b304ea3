"""Manager pages of sanitized releases: start one and compare a corpus's releases,
follow one while it runs then read its metrics and documents, look at one document side
by side with its original, and download the release files.

Every release is looked up through the user's managed corpora: a release of a corpus
the user does not manage is answered 404, as its existence is not theirs to know."""

from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from annotation.models import Release, ReleaseDocument
from annotation.services import releases as release_service
from annotation.services.errors import DomainError
from annotation.services.reidentification_report import newest_succeeded_runs
from annotation.services.release_exports import export_release
from annotation.tasks import submit_release
from sanitize_app.engine.release.types import PATHS

from .access import managed_corpus, managed_release
from .reidentification_views import panel_context
from .release_forms import STRATEGY_SHORT, ReleaseForm
from .release_segments import SpansDoNotFit, decision_trail, side_by_side
from .setting_text import setting_text

DOWNLOADS = {
    "json": "Sanitized texts (JSON)",
    "zip": "Plain text per document (zip)",
    "masks": "Masked-output file (TAB evaluation)",
    "tri": "TRI frame (name, text)",
}
DOCUMENTS_PER_PAGE = 100


def llm_note() -> dict:
    """Whether INTACT asks a configured LLM (named by model and host, never by key) or
    falls back to the offline attacker and the rule candidates."""
    config = settings.SANITIZE_RELEASE
    base_url = config.get("llm_base_url", "")
    parts = urlsplit(base_url)
    if parts.username or parts.password:  # a user or password in the address is no one's to read
        parts = parts._replace(netloc=parts.hostname + (f":{parts.port}" if parts.port else ""))
    return {"configured": bool(base_url), "model": config.get("llm_model", ""), "base_url": urlunsplit(parts)}


def comparison_rows(corpus) -> list[dict]:
    """The service's rows of the corpus's releases, the one with the highest TPS marked
    best (none while no release has a TPS)."""
    rows = release_service.corpus_releases(corpus)
    scored = [row for row in rows if isinstance(row["TPS"], int | float)]
    best = max(scored, key=lambda row: row["TPS"]) if scored else None
    attacks = newest_succeeded_runs(row["id"] for row in rows)
    for row in rows:
        row["attack"] = attacks.get(row["id"])
        row["best"] = row is best
        row["strategy_name"] = STRATEGY_SHORT.get(row["strategy"], row["strategy"])
        row["path_counts"] = [row["paths"].get(path) for path in PATHS] if row["paths"] else [None] * len(PATHS)
    return rows


@login_required
def corpus_releases(request, pk: int):
    corpus = managed_corpus(request, pk, "Only managers release a corpus.")
    form = ReleaseForm(request.POST if request.method == "POST" else None, corpus=corpus)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        annotator = data["annotator"] if data["source"] == Release.Source.ANNOTATOR else None
        try:
            release = submit_release(
                corpus,
                source=data["source"],
                annotator=annotator,
                strategy=data["strategy"],
                actor=request.user,
                attack_guided_top_k=data.get("attack_guided_top_k"),
            )
        except DomainError as error:
            form.refused(error)
        else:
            return redirect("release-detail", pk=release.pk)
    context = {
        "corpus": corpus,
        "form": form,
        "rows": comparison_rows(corpus),
        "llm": llm_note(),
    }
    return render(request, "frontend/release/corpus_releases.html", context, status=400 if form.errors else 200)


# The order the engine's recorded settings are read in (PostgreSQL's jsonb keeps no key
# order of its own); anything else follows alphabetically.
SETTINGS_ORDER = (
    "strategy", "source", "source_rule", "annotator", "candidates", "llm_candidates", "attacker", "llm",
    "llm_unavailable", "llm_limits", "min_place_set", "frequent_lemmas_ignored", "ic", "embedder",
)  # fmt: skip


def _ordered_settings(settings_: dict) -> list[tuple[str, str]]:
    rank = {key: position for position, key in enumerate(SETTINGS_ORDER)}
    keys = sorted(settings_, key=lambda key: (rank.get(key, len(rank)), key))
    return [
        (key.replace("_", " "), _attack_guided_text(settings_[key]) if key == "attack_guided" else setting_text(value))
        for key, value in ((key, settings_[key]) for key in keys)
    ]


def _attack_guided_text(guided: dict) -> str:
    """Attack-guided masking's record in one line: k, the attacker and what it learnt from."""
    described = guided.get("attacker_description") or {}
    people = f", {described['people']} people" if described.get("people") else ""
    settings_ = described.get("settings") or {}
    fitted = f" ({setting_text(settings_)})" if settings_ else ""
    return (
        f"keep the person out of the top {guided.get('top_k')} · attacker {guided.get('attacker')}{fitted} "
        f"trained on {guided.get('background')}{people}"
    )


@login_required
@require_GET
def release_detail(request, pk: int):
    release = managed_release(request, pk)
    context = {
        "release": release,
        "downloads": DOWNLOADS,
        "engine_settings": _ordered_settings(release.settings),
    }
    documents = release.documents.select_related("document").only(
        "status", "error", "seconds", "tps", "spans", "document__doc_id", "release_id"
    )
    context["failures"] = documents.filter(status=ReleaseDocument.Status.FAILED)[:50]
    if release.finished:
        done = documents.filter(status=ReleaseDocument.Status.DONE)
        context["page"] = Paginator(done, DOCUMENTS_PER_PAGE).get_page(request.GET.get("page"))
    if release.status == Release.Status.SUCCEEDED:
        context.update(panel_context(release))
    template = "frontend/release/live.html" if request.htmx else "frontend/release/detail.html"
    return render(request, template, context)


@login_required
@require_GET
def release_download(request, pk: int, fmt: str):
    release = managed_release(request, pk)
    if fmt not in DOWNLOADS:
        raise Http404(f"There is no release file of format {fmt!r}.")
    try:  # refused while the release is not succeeded: its files would be partial
        filename, content_type, content = export_release(release, fmt)
    except DomainError as error:
        return HttpResponse(error.message, status=409, content_type="text/plain; charset=utf-8")
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


def _neighbours(release: Release, doc_pk: int) -> dict:
    """The sanitized documents before and after this one, in corpus order."""
    order = list(
        release.documents.filter(status=ReleaseDocument.Status.DONE)
        .order_by("document__position", "document_id")
        .values_list("document_id", flat=True)
    )
    if doc_pk not in order:
        return {}
    index = order.index(doc_pk)
    return {
        "previous": order[index - 1] if index > 0 else None,
        "next": order[index + 1] if index + 1 < len(order) else None,
    }


@login_required
@require_GET
def release_document(request, pk: int, doc_pk: int):
    release = managed_release(request, pk)
    item = get_object_or_404(release.documents.select_related("document"), document_id=doc_pk)
    decisions = list(item.decisions.all())
    context = {"release": release, "item": item, "document": item.document, **_neighbours(release, doc_pk)}
    try:
        view = side_by_side(item.document.text, item.sanitized_text, item.spans, decisions, doc_id=item.document.doc_id)
    except SpansDoNotFit as error:
        context["layout_error"] = str(error)
    else:
        context["side"] = view
        context["decisions"] = [(decision, decision_trail(decision)) for decision in decisions]
    return render(request, "frontend/release/document.html", context)
