"""Taking work back from an annotator without losing it.

- **Withdraw**: an unstarted layer (still *assigned*, and nobody has changed it: only the
  assignment and the engine's pre-annotation are in its audit trail) is deleted, since it
  holds no one's work; a started one is closed as *withdrawn* and kept read-only with its
  history (``layer_states``). Both are recorded in the audit trail.
- **Hand over**: an open layer goes to another annotator, with its annotations and its
  history; the new annotator sees it as theirs. Its TAB ids keep the first annotator's
  name (they are identifiers, unique in the layer, not attributions).

Finished layers (confirmed, under review, reviewed) are never withdrawn or handed over:
they are somebody's finished work; their author reopens a confirmed one first.
"""

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from ..enums import LayerStatus, Role
from ..models import AnnotationLayer, AuditEvent, CorpusMembership, ReviewAssignment
from .audit import record_event
from .errors import DomainError
from .layer_edit import layer_edit
from .layer_states import WITHDRAWABLE_STATUSES

# Audit actions on a layer that are not somebody's work on it.
NOT_WORK = ("layer.assign", "layer.reviewer", "preannotation.apply", "layer.handover")


def is_started(layer: AnnotationLayer) -> bool:
    """Somebody worked on the layer: it left *assigned*, or its audit trail holds a
    change other than its assignment and the engine's proposals."""
    if layer.status != LayerStatus.ASSIGNED:
        return True
    return AuditEvent.objects.filter(layer=layer).exclude(action__in=NOT_WORK).exists()


def _refuse_unless_open(layer: AnnotationLayer, doing: str) -> None:
    if layer.status == LayerStatus.WITHDRAWN:
        raise DomainError(f"Layer {layer} is already withdrawn: it cannot be {doing}.", field="layer")
    if layer.status not in WITHDRAWABLE_STATUSES:
        raise DomainError(
            f"Layer {layer} is {layer.get_status_display().lower()}: finished work is never {doing} "
            "(its annotator reopens a confirmed layer first).",
            field="layer",
        )


def withdraw_layer(layer: AnnotationLayer, *, actor: AbstractBaseUser | None) -> str:
    """Take an open layer back: "deleted" when it was unstarted, "withdrawn" when
    somebody had worked on it (then kept read-only)."""
    with transaction.atomic():
        locked = AnnotationLayer.objects.select_for_update().select_related("document__corpus", "annotator").get(
            pk=layer.pk
        )
        _refuse_unless_open(locked, "withdrawn")
        if not is_started(locked):
            record_event(
                "layer.withdraw",
                actor=actor,
                document=locked.document,
                target=str(locked),
                changes={"result": "deleted", "annotator": locked.annotator.username, "layer": locked.pk},
            )
            locked.delete()
            return "deleted"
        before = locked.status
        with layer_edit(locked, actor=actor, by_person=False, status_change=True) as editing:
            editing.status = LayerStatus.WITHDRAWN
            editing.save(update_fields=["status"])
            record_event(
                "layer.withdraw",
                actor=actor,
                layer=editing,
                target=str(editing),
                changes={"result": "withdrawn", "annotator": editing.annotator.username, "before": before},
            )
    layer.status = LayerStatus.WITHDRAWN
    return "withdrawn"


def hand_over_layer(
    layer: AnnotationLayer, new_annotator: AbstractBaseUser, *, actor: AbstractBaseUser | None
) -> AnnotationLayer:
    """Give an open layer to ``new_annotator``, an active annotator of the corpus who has
    no layer on the document and does not review one (they would have seen another
    annotator's solution). The layer keeps its annotations and history; its version
    moves on, so a page still open on the former annotator's screen is refused."""
    corpus = layer.document.corpus
    if new_annotator.pk == layer.annotator_id:
        raise DomainError(f"{new_annotator.username} already holds layer {layer}.", field="annotator")
    if not new_annotator.is_active:
        raise DomainError(f"{new_annotator.username}'s account is inactive: activate it first.", field="annotator")
    if not CorpusMembership.objects.filter(corpus=corpus, user=new_annotator, role=Role.ANNOTATOR).exists():
        raise DomainError(f"{new_annotator.username} is not an annotator of corpus {corpus.name}.", field="annotator")
    if ReviewAssignment.objects.filter(layer__document_id=layer.document_id, reviewer=new_annotator).exists():
        raise DomainError(
            f"{new_annotator.username} reviews a layer of document {layer.document.doc_id}: they have seen another "
            "annotator's solution and cannot annotate it blind.",
            field="annotator",
        )
    if AnnotationLayer.objects.filter(document_id=layer.document_id, annotator=new_annotator).exists():
        raise DomainError(
            f"{new_annotator.username} already has a layer on document {layer.document.doc_id}.", field="annotator"
        )
    try:
        with layer_edit(layer, actor=actor, by_person=False, status_change=True) as editing:
            _refuse_unless_open(editing, "handed over")
            former = editing.annotator  # as locked: a hand-over made meanwhile is seen
            if former.pk == new_annotator.pk:
                raise DomainError(f"{new_annotator.username} already holds layer {editing}.", field="annotator")
            editing.annotator = new_annotator
            editing.save(update_fields=["annotator"])
            record_event(
                "layer.handover",
                actor=actor,
                layer=editing,
                target=f"{layer.document.doc_id}: {former.username} → {new_annotator.username}",
                changes={"from": former.username, "to": new_annotator.username},
            )
    except IntegrityError:
        raise DomainError(
            f"{new_annotator.username} already has a layer on document {layer.document.doc_id}.", field="annotator"
        ) from None
    layer.annotator = new_annotator
    return layer
