"""The life of an annotation layer: assignment, confirmation, review."""

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from ..enums import ConfidentialStatus, LayerStatus, Role
from ..models import AnnotationLayer, CorpusMembership, Document, ReviewAssignment
from .audit import record_event
from .confirmation import ConfirmationReport, confirmation_report
from .errors import DomainError, InvalidTransition
from .layer_edit import layer_edit
from .layer_states import ALLOWED_TRANSITIONS
from .preannotation_apply import apply_latest_predictions


def _require_role(corpus, user, role: str) -> None:
    if not CorpusMembership.objects.filter(corpus=corpus, user=user, role=role).exists():
        raise DomainError(f"{user.username} does not have the {role} role in corpus {corpus.name}.", field=role)


def layer_of(corpus, doc_id: str, username: str) -> AnnotationLayer:
    """The layer of ``username`` on document ``doc_id`` of ``corpus`` (as a manager
    names it in a form), or an error naming both."""
    doc_id = (doc_id or "").strip()
    layer = (
        AnnotationLayer.objects.select_related("document__corpus", "annotator")
        .filter(document__corpus=corpus, document__doc_id=doc_id, annotator__username=username)
        .first()
    )
    if layer is None:
        raise DomainError(
            f"No layer of {username or '(nobody)'} on document “{doc_id}” in this corpus.", field="doc_id"
        )
    return layer


def assign_layer(document: Document, annotator: AbstractBaseUser, *, actor: AbstractBaseUser | None) -> AnnotationLayer:
    """Give ``annotator`` an empty layer on ``document``."""
    _require_role(document.corpus, annotator, Role.ANNOTATOR)
    try:
        with transaction.atomic():
            position = document.layers.count()
            layer = AnnotationLayer.objects.create(document=document, annotator=annotator, position=position)
    except IntegrityError:
        raise DomainError(
            f"{annotator.username} already has a layer on document {document.doc_id}.", field="annotator"
        ) from None
    record_event("layer.assign", actor=actor, layer=layer, target=annotator.username)
    # The engine's latest proposals for the document become the layer's starting point.
    apply_latest_predictions(layer, actor=actor)
    return layer


class ConfirmationRefused(InvalidTransition):
    """Confirmation blocked by errors, or by warnings not acknowledged."""

    def __init__(self, report: ConfirmationReport, *, unacknowledged_warnings: bool = False):
        findings = report.warnings if unacknowledged_warnings and not report.errors else report.errors
        lead = "Please look at these warnings first" if unacknowledged_warnings and not report.errors else "Not yet"
        super().__init__(f"{lead}: " + " ".join(f.message for f in findings), field="status")
        self.report = report


def confirm_layer(
    layer: AnnotationLayer,
    *,
    actor: AbstractBaseUser | None,
    expected_version: int | None = None,
    accept_warnings: bool = False,
) -> AnnotationLayer:
    """Confirm a layer: errors always block, warnings block until acknowledged."""
    report = confirmation_report(layer)
    if report.warnings and not report.errors and not accept_warnings:
        raise ConfirmationRefused(report, unacknowledged_warnings=True)
    return change_layer_status(layer, LayerStatus.CONFIRMED, actor=actor, expected_version=expected_version)


def change_layer_status(
    layer: AnnotationLayer, to: str, *, actor: AbstractBaseUser | None, expected_version: int | None = None
) -> AnnotationLayer:
    """Move a layer along the workflow (see ``layer_states``); confirming needs the
    confirmation checks to pass."""
    with layer_edit(layer, actor=actor, expected_version=expected_version, status_change=True) as locked:
        current = locked.status
        if to not in ALLOWED_TRANSITIONS.get(current, set()):
            raise InvalidTransition(f"A layer cannot go from {current} to {to}.", field="status")
        if to == LayerStatus.CONFIRMED and current in (LayerStatus.ASSIGNED, LayerStatus.IN_PROGRESS):
            report = confirmation_report(locked)
            if report.errors:
                raise ConfirmationRefused(report)
            # A confidential status nobody set means "not confidential" (the TAB default).
            locked.mentions.filter(confidential_status__isnull=True).update(
                confidential_status=ConfidentialStatus.NOT_CONFIDENTIAL
            )
        now = timezone.now()
        locked.status = to
        if to == LayerStatus.IN_PROGRESS:
            locked.started_at = locked.started_at or now  # reopening keeps the first start
        elif to == LayerStatus.CONFIRMED:
            locked.confirmed_at = now
        elif to == LayerStatus.REVIEWED:
            locked.reviewed_at = now
        locked.save(update_fields=["status", "started_at", "confirmed_at", "reviewed_at"])
        record_event(
            "layer.status", actor=actor, layer=locked, target=str(locked), changes={"before": current, "after": to}
        )
    return locked


def add_reviewer(
    layer: AnnotationLayer, reviewer: AbstractBaseUser, *, actor: AbstractBaseUser | None
) -> ReviewAssignment:
    """Pair ``reviewer`` on ``layer`` (TAB Step 5); nobody reviews their own layer."""
    if reviewer.pk == layer.annotator_id:
        raise DomainError(f"{reviewer.username} cannot review their own layer.", field="reviewer")
    _require_role(layer.document.corpus, reviewer, Role.REVIEWER)
    unfinished = AnnotationLayer.objects.filter(
        document_id=layer.document_id,
        annotator=reviewer,
        status__in=[LayerStatus.ASSIGNED, LayerStatus.IN_PROGRESS],
    )
    if unfinished.exists():
        raise DomainError(
            f"{reviewer.username} still annotates document {layer.document.doc_id}: reviewing now would show them "
            "another annotator's solution. Pair them once their own layer is confirmed.",
            field="reviewer",
        )
    assignment, created = ReviewAssignment.objects.get_or_create(layer=layer, reviewer=reviewer)
    if created:
        record_event(
            "layer.reviewer", actor=actor, layer=layer, target=f"{reviewer.username} reviews {layer.annotator.username}"
        )
    return assignment
