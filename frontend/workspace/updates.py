"""Responses of the workspace's actions: only what changed, swapped in place by HTMX
(out-of-band swaps): the lines of text that hold affected mentions, the affected
entity rows (or the whole list when entities appear or disappear), the progress, the
panel of the current entity, the layer version and a message."""

from collections.abc import Iterable

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.html import escape

from annotation.enums import ConfidentialStatus, IdentifierType
from annotation.models import AnnotationLayer

from .html import render_blocks, render_entity_list, render_entity_row, render_progress, render_status
from .model import LayerView
from .panel import engine_suggestion, entity_panel_context


def state_html(layer: AnnotationLayer, select: tuple[int, int] | None = None) -> str:
    """The layer version the next change must carry, the status chip, and the entity
    and mention to make current (the page does so unless the user moved on meanwhile)."""
    selected = f' data-select="{select[0]}:{select[1]}"' if select else ""
    return (
        f'<div id="ws-state" hx-swap-oob="true" data-version="{layer.version}" data-status="{layer.status}"'
        f"{selected} hidden></div>{render_status(layer, oob=True)}"
    )


def flash_html(message: str = "", level: str = "info") -> str:
    role = "alert" if level == "error" else "status"
    body = f'<p class="flash-{level}">{escape(message)}</p>' if message else ""
    return f'<div id="flash" hx-swap-oob="true" role="{role}" aria-live="polite">{body}</div>'


def panel_html(request: HttpRequest, view: LayerView, entity_id: int | None, editable: bool) -> str:
    entity = view.entity(entity_id) if entity_id else None
    context = entity_panel_context(view, entity, editable) if entity else {"entity": None, "layer": view.layer}
    return render_to_string("frontend/workspace/entity_panel.html", {**context, "oob": True}, request=request)


def decision_html(request: HttpRequest, view: LayerView, entity_id: int, editable: bool) -> str:
    """Only the decision buttons of the panel (a decision changes nothing else in it)."""
    entity = view.entity(entity_id)
    if entity is None:
        return ""
    context = {
        "entity": entity,
        "editable": editable,
        "oob": True,
        "identifier_types": IdentifierType.choices,
        "confidential_statuses": ConfidentialStatus.choices,
        "suggestion": engine_suggestion(entity),
    }
    return render_to_string("frontend/workspace/entity_decision.html", context, request=request)


def workspace_update(
    request: HttpRequest,
    layer: AnnotationLayer,
    *,
    editable: bool,
    ranges: Iterable[tuple[int, int]] = (),
    entities: Iterable[int] = (),
    structure: bool = False,
    decision_only: bool = False,
    select: tuple[int, int] | None = None,
    message: str = "",
    status: int = 200,
) -> HttpResponse:
    """Render what an action changed. ``ranges`` are text ranges touched (before or
    after), ``entities`` the entities whose mentions or decision changed, ``structure``
    says that entities appeared or disappeared, ``decision_only`` that only decisions
    changed, ``select`` is (entity, mention) to make current.

    ``layer`` must be the object the service changed (its version is then current)."""
    view = LayerView(layer)
    entity_ids = set(entities)
    all_ranges = list(ranges)
    for entity_id in entity_ids:
        entity = view.entity(entity_id)
        if entity is not None:
            all_ranges += [(m.start_offset, m.end_offset) for m in entity.mentions]
    parts = [render_blocks(view, view.blocks_touching(all_ranges), oob=True)]
    if structure:
        parts.append(render_entity_list(view, oob=True))
    else:
        parts += [render_entity_row(view.entity(i), oob=True) for i in entity_ids if view.entity(i)]
    current = select[0] if select else _current_entity(request)
    if decision_only:
        # The panel shows another entity (unchanged) or this one: redraw its buttons only.
        panel = decision_html(request, view, current, editable) if current in entity_ids else ""
    else:
        panel = panel_html(request, view, current, editable)
    parts += [render_progress(view, oob=True), panel, state_html(layer, select), flash_html(message)]
    return HttpResponse("".join(parts), status=status)


def full_refresh(
    request: HttpRequest, layer: AnnotationLayer, *, editable: bool, message: str, status: int
) -> HttpResponse:
    """Everything again (after a refused stale edit): the text, the list, the panel."""
    layer.refresh_from_db(fields=["version", "status"])
    view = LayerView(layer)
    parts = [
        f'<div id="doc-text" class="doc-text" lang="en" tabindex="0" hx-swap-oob="true">{render_blocks(view)}</div>',
        render_entity_list(view, oob=True),
        render_progress(view, oob=True),
        panel_html(request, view, _current_entity(request), editable),
        state_html(layer),
        flash_html(message, "error"),
    ]
    return HttpResponse("".join(parts), status=status)


def message_only(layer: AnnotationLayer, message: str, *, level: str = "error", status: int = 422) -> HttpResponse:
    return HttpResponse(state_html(layer) + flash_html(message, level), status=status)


def _current_entity(request: HttpRequest) -> int | None:
    raw = request.POST.get("current_entity") or request.GET.get("current_entity")
    return int(raw) if raw and raw.isdigit() else None
