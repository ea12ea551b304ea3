"""The manager's model registry page: train a model now, follow it, compare versions
side by side (each with the engine in use and the zero-shot engine on its held-out
documents), promote one for pre-annotation (with a written reason when it is not shown
to be at least as good as the model in use), roll back. Rules live in
``annotation.services.training`` and ``promotion_guard``."""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation.models import TrainedModel
from annotation.services import promotion_guard, training, training_schedule
from annotation.services.engine import sequence_backbone
from annotation.services.errors import DomainError
from annotation.tasks import submit_training

from .access import managed_corpus

REFUSAL = "Only managers train and promote models."
METRICS = (
    ("ER_di", "ER_di"),
    ("ER_qi", "ER_qi"),
    ("WP", "WP"),
    ("token_recall", "Token recall"),
    ("entity_type_f1", "Entity-type F1"),
)
# The comparison's columns: the guarded metrics and precision first, then the recall
# of each entity type (the direct identifiers' types first).
COMPARED = (("ER_di", "ER_di"), ("ER_qi", "ER_qi"), ("token_precision", "Token precision"), ("WP", "WP"))
TYPE_ORDER = ("CODE", "PERSON", "DATETIME", "LOC", "ORG", "DEM", "QUANTITY", "MISC")


def _types(entries: list[dict]) -> list[str]:
    found = {t for entry in entries for t in entry.get("recall_by_type") or {}}
    return [t for t in TYPE_ORDER if t in found] + sorted(found - set(TYPE_ORDER))


def _value(entry: dict, key: str) -> float | None:
    value = entry.get(key) if key in dict(COMPARED) else (entry.get("recall_by_type") or {}).get(key)
    return value if isinstance(value, int | float) else None


def _cells(entry: dict, keys: list[str], in_use: dict | None) -> list[dict]:
    """The values of one engine; with ``in_use``, those lower than its are drops."""
    cells = []
    for key in keys:
        value = _value(entry, key)
        reference = _value(in_use, key) if in_use is not None else None
        drop = value is not None and reference is not None and value < reference - promotion_guard.TOLERANCE
        cells.append({"value": value, "drop": drop})
    return cells


def _note(entry: dict) -> str:
    if entry.get("same_as"):
        return "the same engine: nothing was promoted"
    return entry.get("error") or entry.get("skipped") or ""


def comparison_table(model: TrainedModel) -> dict | None:
    """The version beside the engine in use and the zero-shot engine (same held-out
    documents): one row per engine, the version's cells lower than the in-use engine's
    marked as drops."""
    comparison = promotion_guard.comparison_of(model)
    if not comparison:
        return None
    named = {
        "candidate": model.label,
        "in_use": f"in use when trained ({comparison.get('in_use_model') or 'configured default'})",
        "zero_shot": "zero-shot",
    }
    entries = {name: comparison.get(name) or {} for name in named}
    types = _types(list(entries.values()))
    keys = [key for key, _ in COMPARED] + types
    rows = [
        {
            "name": name,
            "title": title,
            "engine": entries[name].get("engine", ""),
            "cells": _cells(entries[name], keys, entries["in_use"] if name == "candidate" else None),
            "note": _note(entries[name]),
        }
        for name, title in named.items()
    ]
    return {
        "columns": [label for _, label in COMPARED] + [f"{t} recall" for t in types],
        "rows": rows,
        "drops": sum(cell["drop"] for cell in rows[0]["cells"]),
        "documents": comparison.get("documents", 0),
        "note": comparison.get("skipped") or comparison.get("error") or "",
    }


def _sections(corpus) -> list[dict]:
    models = list(
        TrainedModel.objects.filter(corpus=corpus)
        .select_related("created_by", "promoted_by")
        .order_by("kind", "-version")
    )
    active = promotion_guard.active_labels(models)
    sections = []
    for kind, label in TrainedModel.Kind.choices:
        versions = [m for m in models if m.kind == kind]
        for model in versions:
            model.metric_values = [model.metrics.get(key) for key, _ in METRICS]
            model.recall_by_type = sorted((model.metrics.get("recall_by_type") or {}).items())
            model.comparison = comparison_table(model)
            model.objection = promotion_guard.needs_reason(model, active)
            model.auto_promotion = (model.metrics.get("auto_promotion") or {}).get("why", "")
        sections.append(
            {
                "kind": kind,
                "label": label,
                "versions": versions,
                "active": next((m for m in versions if m.is_active), None),
                "running": any(not m.finished for m in versions),
                "unavailable": _unavailable(kind),
            }
        )
    return sections


def _unavailable(kind: str) -> str:
    if kind == TrainedModel.Kind.SEQUENCE:
        try:
            sequence_backbone()
        except DomainError as exc:
            return exc.message
    return ""


@login_required
def corpus_models(request: HttpRequest, pk: int) -> HttpResponse:
    corpus = managed_corpus(request, pk, REFUSAL)
    sections = _sections(corpus)
    context = {
        "corpus": corpus,
        "sections": sections,
        "metrics": METRICS,
        "polling": any(section["running"] for section in sections),
        "layers": training.training_layers(corpus).count(),
        "due": training_schedule.due_trainings(corpus),
    }
    template = "frontend/training/models_body.html" if request.htmx else "frontend/training/models.html"
    return render(request, template, context)


def registry_action(handler):
    """POST by a manager of the corpus; the handler's message (or the domain error) is
    shown on the models page it returns to."""

    @login_required
    @require_POST
    @wraps(handler)
    def action(request: HttpRequest, pk: int, **kwargs) -> HttpResponse:
        corpus = managed_corpus(request, pk, REFUSAL)
        try:
            messages.success(request, handler(request, corpus, **kwargs))
        except DomainError as exc:
            messages.error(request, exc.message)
        return redirect("corpus-models", pk=corpus.pk)

    return action


@registry_action
def train_now(request, corpus) -> str:
    model = submit_training(corpus, request.POST.get("kind", ""), actor=request.user)
    return f"{model.label} is queued for training."


@registry_action
def promote(request, corpus, model_id: int) -> str:
    model = get_object_or_404(TrainedModel, pk=model_id, corpus=corpus)
    model = training.promote(model, actor=request.user, reason=request.POST.get("reason", ""))
    return f"{model.label} is now used for pre-annotation."


@registry_action
def roll_back(request, corpus) -> str:
    now = training.roll_back(corpus, request.POST.get("kind", ""), actor=request.user)
    return f"Rolled back: {now.label if now else 'the configured default'} is used for pre-annotation."
