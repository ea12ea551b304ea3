"""Workspace endpoints. Each action parses its input, calls one domain service and
answers with the pieces of the page that changed (see ``updates``)."""

from collections.abc import Callable
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotation import permissions as policy
from annotation.enums import ConfidentialStatus, EntityType, IdentifierType, LayerStatus
from annotation.models import AnnotationLayer, Entity, Mention
from annotation.services import coreference, decisions, mentions, occurrences, preannotation_apply, undo
from annotation.services.errors import DomainError, StaleLayerVersion
from annotation.services.layer_states import READ_MASKED_FIRST, unread_review
from annotation.services.notifications import only_engine_changed

from .html import render_blocks, render_entity_list, render_progress, render_status
from .model import LayerView
from .panel import entity_panel_context
from .review_panel import review_panel_context
from .updates import full_refresh, message_only, workspace_update

MISSING_VERSION = (
    "This change did not say which version of the layer it was made on (layer_version), so it was not saved. "
    "Reload the page."
)
STALE_MESSAGE = (
    "This layer was changed in another tab or by someone else, so your last change was not saved. "
    "You now see the current annotations."
)
ENGINE_REFRESHED = (
    "The pre-annotation was refreshed; nothing you changed was touched. Your last change was not saved: do it again."
)


def visible_layer(request: HttpRequest, pk: int) -> AnnotationLayer:
    """The layer if the user may see it (else 404), with ``user_can_edit`` set."""
    layer, access = policy.layer_with_access(request.user, pk)
    if not access.visible:
        raise Http404("No such layer.")
    layer.user_can_edit = access.editable
    layer.access = access  # write refusals reuse it
    return layer


def can_reopen(request: HttpRequest, layer: AnnotationLayer) -> bool:
    """The page offers "Reopen" on a confirmed layer to whoever may move it back."""
    return layer.status == LayerStatus.CONFIRMED and policy.can_change_status(
        request.user, layer, LayerStatus.IN_PROGRESS
    )


def _int(request: HttpRequest, name: str) -> int | None:
    value = request.POST.get(name, "")
    return int(value) if value.lstrip("-").isdigit() else None


def workspace_action(handler: Callable) -> Callable:
    """POST-only, login required; loads the layer the user can see, refuses a change the
    user may not make, and turns domain errors into messages on the page."""

    @login_required
    @require_POST
    @wraps(handler)
    def action(request: HttpRequest, pk: int, **kwargs) -> HttpResponse:
        layer = visible_layer(request, pk)
        if not layer.user_can_edit:
            return message_only(layer, policy.write_refusal(request.user, layer, layer.access), status=403)
        version = _int(request, "layer_version")
        if version is None:
            return message_only(layer, MISSING_VERSION, status=400)
        try:
            return handler(request, layer, version=version, **kwargs)
        except StaleLayerVersion as stale:
            engine = only_engine_changed(layer.pk, stale.expected, stale.current)
            message = ENGINE_REFRESHED if engine else STALE_MESSAGE
            return full_refresh(request, layer, editable=True, message=message, status=409)
        except DomainError as exc:
            return message_only(layer, exc.message)

    return action


@login_required
@require_GET
def workspace(request: HttpRequest, pk: int) -> HttpResponse:
    layer = visible_layer(request, pk)
    if unread_review(layer, request.user):
        # The review order: the masked document first, unbiased by the annotations.
        messages.info(request, READ_MASKED_FIRST)
        return redirect("review-start", pk=layer.pk)
    view = LayerView(layer)
    return render(
        request,
        "frontend/workspace/page.html",
        {
            "layer": layer,
            "document": layer.document,
            "editable": layer.user_can_edit,
            "lock_reason": None if layer.user_can_edit else policy.write_refusal(request.user, layer, layer.access),
            "can_reopen": can_reopen(request, layer),
            "text_html": render_blocks(view),
            "entity_list_html": render_entity_list(view),
            "progress_html": render_progress(view),
            "status_html": render_status(layer),
            "review": review_panel_context(request, layer),
            # The re-identification risk meter, when the corpus has a background (risk_views).
            "risk_meter": bool(layer.document.corpus.background_collection),
            "entity_types": EntityType.choices,
            "identifier_types": IdentifierType.choices,
            "confidential_statuses": ConfidentialStatus.choices,
        },
    )


@login_required
@require_GET
def entity_panel(request: HttpRequest, pk: int, entity_id: int) -> HttpResponse:
    layer = visible_layer(request, pk)
    if unread_review(layer, request.user):
        raise Http404("Read the masked document first.")
    view = LayerView(layer)
    entity = view.entity(entity_id)
    if entity is None:
        return HttpResponse('<section id="entity-panel" class="card panel"></section>')
    context = entity_panel_context(view, entity, layer.user_can_edit)
    return render(request, "frontend/workspace/entity_panel.html", context)


def _mention(layer: AnnotationLayer, mention_id: int) -> Mention:
    mention = get_object_or_404(Mention.objects.select_related("entity"), pk=mention_id, layer=layer)
    mention.layer = layer
    return mention


def _entity(layer: AnnotationLayer, entity_id: int) -> Entity:
    entity = get_object_or_404(Entity, pk=entity_id, layer=layer)
    entity.layer = layer  # already loaded; the services then bump its version in place
    return entity


@workspace_action
def create_mention(request, layer, *, version):
    mention = mentions.create_mention(
        layer,
        actor=request.user,
        start_offset=_int(request, "start"),
        end_offset=_int(request, "end"),
        entity_type=request.POST.get("entity_type"),
        expected_version=version,
        snap=True,
    )
    return workspace_update(
        request,
        layer,
        editable=True,
        ranges=[(mention.start_offset, mention.end_offset)],
        entities=[mention.entity_id],
        structure=True,
        select=(mention.entity_id, mention.pk),
        message=f"Added “{mention.span_text}” as {mention.entity_type}.",
    )


@workspace_action
def update_mention(request, layer, *, version, mention_id):
    mention = _mention(layer, mention_id)
    before = (mention.start_offset, mention.end_offset)
    changed = mentions.update_mention(
        mention,
        actor=request.user,
        start_offset=_int(request, "start"),
        end_offset=_int(request, "end"),
        entity_type=request.POST.get("entity_type") or None,
        expected_version=version,
        snap=_int(request, "start") is not None,
    )
    return workspace_update(
        request,
        layer,
        editable=True,
        ranges=[before],
        entities=[changed.entity_id],
        structure=True,
        select=(changed.entity_id, changed.pk),
        message=f"“{changed.span_text}” is now {changed.entity_type}.",
    )


@workspace_action
def delete_mention(request, layer, *, version, mention_id):
    mention = _mention(layer, mention_id)
    span, text = (mention.start_offset, mention.end_offset), mention.span_text
    mentions.delete_mention(mention, actor=request.user, expected_version=version)
    return workspace_update(
        request, layer, editable=True, ranges=[span], structure=True, message=f"Deleted “{text}”. (u to undo)"
    )


@workspace_action
def split_mention(request, layer, *, version, mention_id):
    mention = _mention(layer, mention_id)
    old_entity = mention.entity_id
    new_entity = coreference.split_mention(mention, actor=request.user, expected_version=version)
    return workspace_update(
        request,
        layer,
        editable=True,
        entities=[old_entity, new_entity.pk],
        structure=True,
        select=(new_entity.pk, mention.pk),
        message=f"“{mention.span_text}” is now an entity of its own.",
    )


@workspace_action
def set_decision(request, layer, *, version, entity_id):
    entity = _entity(layer, entity_id)
    if request.POST.get("take") == "suggestion":
        return take_suggestion(request, layer, entity, version)
    decisions.set_entity_decision(
        entity,
        actor=request.user,
        identifier_type=request.POST.get("identifier_type") or None,
        confidential_status=request.POST.get("confidential_status") or None,
        expected_version=version,
    )
    return workspace_update(request, layer, editable=True, entities=[entity.pk], decision_only=True)


def take_suggestion(request, layer, entity: Entity, version: int) -> HttpResponse:
    """``g``: the engine's suggestion, decided on the server as it stands now (its
    identifier type; its confidential status unless a person chose one)."""
    identifier, confidential = preannotation_apply.take_suggestion(entity, actor=request.user, expected_version=version)
    taken = IdentifierType(identifier).label + (f", {ConfidentialStatus(confidential).label}" if confidential else "")
    return workspace_update(
        request,
        layer,
        editable=True,
        entities=[entity.pk],
        decision_only=True,
        message=f"Took the suggestion: {taken}.",
    )


@workspace_action
def annotate_occurrences(request, layer, *, version, entity_id):
    entity = _entity(layer, entity_id)
    created = occurrences.annotate_all_occurrences(entity, actor=request.user, expected_version=version)
    return workspace_update(
        request,
        layer,
        editable=True,
        ranges=[(m.start_offset, m.end_offset) for m in created],
        entities=[entity.pk],
        message=f"Annotated {len(created)} more occurrence(s)." if created else "No other occurrence to annotate.",
    )


@workspace_action
def merge_entities(request, layer, *, version, entity_id):
    target = _entity(layer, entity_id)
    source = _entity(layer, _int(request, "source") or 0)
    moved = list(source.mentions.values_list("start_offset", "end_offset"))
    coreference.merge_entities(target, source, actor=request.user, expected_version=version)
    return workspace_update(
        request,
        layer,
        editable=True,
        ranges=moved,
        entities=[target.pk],
        structure=True,
        select=(target.pk, 0),
        message=f"Merged {len(moved)} mention(s) into this entity.",
    )


@workspace_action
def undo_last(request, layer, *, version):
    undone = undo.undo_last_change(layer, actor=request.user, expected_version=version)
    return workspace_update(
        request, layer, editable=True, ranges=undone.ranges, structure=True, message=undone.description
    )
