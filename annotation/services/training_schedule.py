"""When the retraining loop retrains by itself: Celery beat asks which kinds of model
enough newly finished layers made due (``annotation.tasks.retrain_due_models``)."""

from django.conf import settings

from ..models import Corpus, TrainedModel
from .engine import sequence_backbone
from .errors import DomainError
from .training import training_layers

Kind = TrainedModel.Kind
Status = TrainedModel.Status


def due_trainings(corpus: Corpus) -> list[str]:
    """Kinds to retrain: at least ``retrain_every`` layers were finished since the
    newest training of that kind started (or ever, before the first one)."""
    every = settings.SANITIZE_TRAINING.get("retrain_every") or 0
    if every <= 0:
        return []
    kinds = [Kind.RECOGNIZER, Kind.MASKING]
    try:
        sequence_backbone()
        kinds.append(Kind.SEQUENCE)
    except DomainError:
        pass  # no backbone: no sequence labeller to retrain
    due = []
    layers = training_layers(corpus)
    for kind in kinds:
        newest = TrainedModel.objects.filter(corpus=corpus, kind=kind).order_by("-created_at").first()
        if newest is not None and newest.status in (Status.PENDING, Status.RUNNING):
            continue
        since = layers if newest is None else layers.filter(confirmed_at__gt=newest.created_at)
        if since.count() >= every:
            due.append(kind)
    return due
