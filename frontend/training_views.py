"""The manager's model registry page: train a model now, follow it, compare versions
side by side, promote one for pre-annotation, roll back. Rules live in
``annotation.services.training``."""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation.models import TrainedModel
from annotation.services import training
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


def _sections(corpus) -> list[dict]:
    models = list(TrainedModel.objects.filter(corpus=corpus).select_related("created_by").order_by("kind", "-version"))
    sections = []
    for kind, label in TrainedModel.Kind.choices:
        versions = [m for m in models if m.kind == kind]
        for model in versions:
            model.metric_values = [model.metrics.get(key) for key, _ in METRICS]
            model.recall_by_type = sorted((model.metrics.get("recall_by_type") or {}).items())
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
    training.fail_lost_trainings(corpus)
    sections = _sections(corpus)
    context = {
        "corpus": corpus,
        "sections": sections,
        "metrics": METRICS,
        "polling": any(section["running"] for section in sections),
        "layers": training.training_layers(corpus).count(),
        "due": training.due_trainings(corpus),
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
    model = training.promote(get_object_or_404(TrainedModel, pk=model_id, corpus=corpus), actor=request.user)
    return f"{model.label} is now used for pre-annotation."


@registry_action
def roll_back(request, corpus) -> str:
    now = training.roll_back(corpus, request.POST.get("kind", ""), actor=request.user)
    return f"Rolled back: {now.label if now else 'the configured default'} is used for pre-annotation."
