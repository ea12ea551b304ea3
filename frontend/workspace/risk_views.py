"""The workspace's re-identification risk meter: the panel, fetched by the page (and again
after each change, see risk.js) for the layer as it is now."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotation.services.layer_states import unread_review
from annotation.services.risk_meter import RiskReading, layer_risk

from .views import visible_layer


def gauge(reading: RiskReading) -> dict:
    """<meter> bounds so that its colours follow the levels: value N + 1 - rank, the
    optimum at 0; red (high) for rank 1, amber for ranks 2..k, green beyond k."""
    people = reading.people
    return {
        "value": people + 1 - reading.rank,
        "high": people - 0.5,
        "low": max(people + 0.5 - reading.top_k, 0),
    }


@login_required
@require_GET
def risk_panel(request: HttpRequest, pk: int) -> HttpResponse:
    layer = visible_layer(request, pk)
    if unread_review(layer, request.user):
        raise Http404("Read the masked document first.")
    reading = layer_risk(layer)
    if reading is None:  # the corpus has no background (any more)
        return HttpResponse('<section id="risk-panel" hidden></section>')
    context = {"layer": layer, "reading": reading, "editable": layer.user_can_edit}
    if reading.ready:
        context["gauge"] = gauge(reading)
    return render(request, "frontend/workspace/risk_panel.html", context)
