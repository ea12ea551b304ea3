"""Promotion: which trained version the pre-annotation uses for each kind, guarded by
``promotion_guard`` (a model not shown to be at least as good as the one in use needs a
written reason), and the way back (roll back, unguarded)."""

from django.contrib.auth.models import AbstractBaseUser
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from ..models import Corpus, TrainedModel
from . import promotion_guard
from .audit import record_event
from .engine import forget_engines
from .errors import DomainError

Status = TrainedModel.Status


def promote(model: TrainedModel, *, actor: AbstractBaseUser | None, reason: str = "") -> TrainedModel:
    """Make ``model`` the one the pre-annotation uses for its kind. A model that is not
    shown to be at least as good as the one in use on ER_di and ER_qi (held-out
    documents, like for like) needs a written ``reason``, which is stored and audited."""
    if model.status != Status.SUCCEEDED:
        raise DomainError(f"{model.label} is {model.get_status_display().lower()}: only a trained model is used.")
    reason = (reason or "").strip()
    with transaction.atomic():
        # The models in use are locked first: the guard compares with what is in use.
        list(TrainedModel.objects.select_for_update().filter(corpus=model.corpus, kind=model.kind, is_active=True))
        refused = promotion_guard.refusal(model, reason)
        if refused:
            raise DomainError(refused, field="reason")
        overridden = promotion_guard.objection(model)
        return _activate(model, actor=actor, reason=reason, changes={"reason": reason, "overrides": overridden})


def _activate(model: TrainedModel, *, actor: AbstractBaseUser | None, reason: str, changes: dict) -> TrainedModel:
    if model.archive and not default_storage.exists(model.archive):
        # Every pre-annotation would refuse to run with it (services.model_store).
        raise DomainError(
            f"{model.label} cannot be used: its archive {model.archive} is missing from the storage.", field="model"
        )
    with transaction.atomic():
        previous = TrainedModel.objects.select_for_update().filter(corpus=model.corpus, kind=model.kind, is_active=True)
        before = [m.label for m in previous]
        previous.update(is_active=False)
        model.is_active = True
        model.activated_at = timezone.now()
        model.promoted_by = actor if actor is not None and actor.is_authenticated else None
        model.promotion_reason = reason
        model.save(update_fields=["is_active", "activated_at", "promoted_by", "promotion_reason"])
        record_event(
            "model.promote", actor=actor, corpus=model.corpus, target=model.label, changes={"before": before, **changes}
        )
    transaction.on_commit(forget_engines)
    return model


def auto_promote(model: TrainedModel) -> tuple[bool, str]:
    """The schedule's promotion: only a model that needs no reason (no worse than the
    model in use on ER_di and ER_qi, on held-out documents). Returns whether it was
    promoted and why (or why not), in words."""
    objection = promotion_guard.objection(model)
    if not objection:
        try:
            promote(model, actor=None)
        except DomainError as exc:  # the model in use changed meanwhile
            objection = exc.message
    if objection:
        return False, f"not promoted automatically: {objection}"
    return True, "promoted automatically: no worse than the model in use on ER_di and ER_qi"


def roll_back(corpus: Corpus, kind: str, *, actor: AbstractBaseUser | None) -> TrainedModel | None:
    """Go back from the active model of ``kind`` to the newest earlier version that was
    once in use, or to the configured default when there is none. Returns the model now
    active (None: the default). Not guarded: it returns to what was in use before, the
    way out of a promotion that went wrong."""
    current = TrainedModel.objects.filter(corpus=corpus, kind=kind, is_active=True).first()
    if current is None:
        raise DomainError(f"No {kind} model is active: the configured default is already in use.", field="kind")
    earlier = (
        TrainedModel.objects.filter(
            corpus=corpus,
            kind=kind,
            status=Status.SUCCEEDED,
            activated_at__isnull=False,
            version__lt=current.version,
        )
        .order_by("-version")
        .first()
    )
    if earlier is not None:
        return _activate(earlier, actor=actor, reason="", changes={"rollback_from": current.label})
    with transaction.atomic():
        TrainedModel.objects.filter(pk=current.pk).update(is_active=False)
        record_event("model.rollback", actor=actor, corpus=corpus, target=current.label, changes={"to": "default"})
    transaction.on_commit(forget_engines)
    return None
