"""Confirming a layer and reading its masked review (TAB Step 5 for the author)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotation import permissions as policy
from annotation.enums import LayerStatus
from annotation.models import MaskedReview
from annotation.services.confirmation import confirmation_report
from annotation.services.errors import DomainError, StaleLayerVersion
from annotation.services.layers import ConfirmationRefused, change_layer_status, confirm_layer
from annotation.services.masked_review import (
    FINISHED,
    download_name,
    is_current,
    masked_review_html,
    render_masked_review,
    review_segments,
)
from annotation.tasks import request_masked_review

from .views import MISSING_VERSION, STALE_MESSAGE, can_reopen, visible_layer


def _posted_version(request: HttpRequest) -> int | None:
    """The layer version the page showed, or None when the form did not send one."""
    version = request.POST.get("layer_version", "")
    return int(version) if version.isdigit() else None


def _require_status_change(request: HttpRequest, layer, to: str) -> None:
    if not policy.can_change_status(request.user, layer, to):
        raise PermissionDenied(f"You may not move this layer from {layer.status} to {to}.")


@login_required
@require_GET
def confirm_dialog(request: HttpRequest, pk: int) -> HttpResponse:
    layer = visible_layer(request, pk)
    return render(
        request,
        "frontend/workspace/confirm_dialog.html",
        {
            "layer": layer,
            "report": confirmation_report(layer),
            "can_confirm": policy.can_change_status(request.user, layer, LayerStatus.CONFIRMED),
        },
    )


@login_required
@require_POST
def confirm(request: HttpRequest, pk: int) -> HttpResponse:
    layer = visible_layer(request, pk)
    _require_status_change(request, layer, LayerStatus.CONFIRMED)
    version = _posted_version(request)
    if version is None:
        return HttpResponse(MISSING_VERSION, status=400, content_type="text/plain; charset=utf-8")
    try:
        confirm_layer(
            layer,
            actor=request.user,
            expected_version=version,
            accept_warnings=request.POST.get("accept_warnings") == "1",
        )
    except (ConfirmationRefused, StaleLayerVersion):
        # Show the checks again, as they are now.
        layer.refresh_from_db()
        return render(
            request,
            "frontend/workspace/confirm_dialog.html",
            {
                "layer": layer,
                "report": confirmation_report(layer),
                "can_confirm": True,
                "refused": True,
            },
            status=422,
        )
    response = HttpResponse(status=204)
    response["HX-Redirect"] = reverse("masked-review", args=[layer.pk])
    return response


@login_required
@require_GET
def masked_review(request: HttpRequest, pk: int) -> HttpResponse:
    layer = visible_layer(request, pk)
    review = current_masked_review(layer)
    context = {
        "layer": layer,
        "document": layer.document,
        "review": review,
        "segments": review_segments(review) if review else [],
        "can_reopen": can_reopen(request, layer),
    }
    template = "frontend/workspace/masked_review_body.html" if request.htmx else "frontend/workspace/masked_review.html"
    return render(request, template, context)


def current_masked_review(layer) -> MaskedReview | None:
    """The rendering of the layer as it is now, or None while it is being prepared
    (asked for once per layer version)."""
    review = MaskedReview.objects.filter(layer=layer).first()
    if is_current(layer, review):
        return review
    if layer.status not in (LayerStatus.ASSIGNED, LayerStatus.IN_PROGRESS):
        request_masked_review(layer)
        # Embedded, the task ran just now: show its rendering rather than "preparing".
        review = MaskedReview.objects.filter(layer=layer).first()
        if is_current(layer, review):
            return review
    return None


@login_required
@require_GET
def masked_download(request: HttpRequest, pk: int, extension: str) -> HttpResponse:
    """The masked document as plain text or standalone HTML (once it is rendered)."""
    layer = visible_layer(request, pk)
    review = current_masked_review(layer)
    if review is None and layer.status in FINISHED:
        review = render_masked_review(layer)  # a download waits for nobody: rendering takes milliseconds
    if review is None:
        return HttpResponse(
            "The masked document is not ready: it exists once the layer is confirmed. Try again in a moment.",
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    if extension == "txt":
        response = HttpResponse(review.masked_text, content_type="text/plain; charset=utf-8")
    else:
        response = HttpResponse(masked_review_html(review), content_type="text/html; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{download_name(review, extension)}"'
    return response


@login_required
@require_POST
def reopen(request: HttpRequest, pk: int) -> HttpResponse:
    layer = visible_layer(request, pk)
    _require_status_change(request, layer, LayerStatus.IN_PROGRESS)
    version = _posted_version(request)
    if version is None:
        return HttpResponse(MISSING_VERSION, status=400, content_type="text/plain; charset=utf-8")
    try:
        change_layer_status(layer, LayerStatus.IN_PROGRESS, actor=request.user, expected_version=version)
    except StaleLayerVersion:
        messages.warning(request, STALE_MESSAGE)
    except DomainError as exc:
        raise PermissionDenied(exc.message) from exc
    else:
        messages.success(
            request, "Reopened: the layer is in progress again and counts as finished once you confirm it again."
        )
    return redirect("workspace", pk=layer.pk)
