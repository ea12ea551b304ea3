"""The life of a layer as a state machine, and when its annotations may change.

::

    assigned ──(first edit)──▶ in_progress ──(confirm: the checks pass)──▶ confirmed
        │                           ▲                                         │
        └──────(confirm)────────────┼─────────────────────────────────────────┤
                                    └──────────(reopen, by its author)────────┤
                                                                              ▼
                         reviewed ◀──(both sign off)── under_review ◀──(the reviewer answers
                             │                              ▲          the masked reading)
                             └─────(a manager reopens)──────┘

    assigned, in_progress ──(a manager withdraws it; see ``reassignment``)──▶ withdrawn

- **confirmed** is locked: nobody changes the annotations (author, reviewer, manager or
  a task) until the author presses Reopen, which moves the layer back to in_progress
  (recorded in the audit trail; the masked review becomes stale because the version
  moves; the layer stops counting as finished for evaluation, export and training until
  it is confirmed again).
- **under_review**: the author and the paired reviewers (once the reviewer has answered
  the masked reading) may change it; every change moves the version on and so withdraws
  earlier sign-offs, and each sign-off runs the confirmation checks again.
- **reviewed** is final; a manager may reopen the review (back to under_review).
- **withdrawn**: a manager took an open layer back (its annotator left, or the document
  went to somebody else). Reached from assigned or in_progress by withdrawal only
  (``reassignment.withdraw_layer``; an unstarted layer is deleted instead), never by a
  status change; nothing follows it. It is read-only for everybody, kept with its
  history, and never counts as finished (export, evaluation, agreement, training).

Every annotation change goes through ``layer_edit``, which calls ``refuse_write`` under
the layer's row lock: the API, the pages and the tasks obey one rule."""

from django.contrib.auth.models import AbstractBaseUser

from ..enums import LayerStatus
from ..models import AnnotationLayer, ReviewAssignment
from .errors import LayerLocked

# Which status may follow which. Nothing jumps ahead; reopening goes back one step.
ALLOWED_TRANSITIONS = {
    LayerStatus.ASSIGNED: {LayerStatus.IN_PROGRESS, LayerStatus.CONFIRMED},
    LayerStatus.IN_PROGRESS: {LayerStatus.CONFIRMED},
    LayerStatus.CONFIRMED: {LayerStatus.IN_PROGRESS, LayerStatus.UNDER_REVIEW},
    LayerStatus.UNDER_REVIEW: {LayerStatus.REVIEWED},
    LayerStatus.REVIEWED: {LayerStatus.UNDER_REVIEW},
    # Withdrawn is final, and reached only by ``reassignment.withdraw_layer`` (which
    # deletes an unstarted layer instead): never by a status change.
    LayerStatus.WITHDRAWN: set(),
}

# The statuses a manager may withdraw a layer from: work not yet handed on.
WITHDRAWABLE_STATUSES = (LayerStatus.ASSIGNED, LayerStatus.IN_PROGRESS)

# Statuses in which a layer's annotations may change at all.
WRITABLE_STATUSES = (LayerStatus.ASSIGNED, LayerStatus.IN_PROGRESS, LayerStatus.UNDER_REVIEW)

CONFIRMED_LOCKED = (
    "This layer is confirmed, so it is read-only: its annotator presses Reopen to change it "
    "(it then stops counting as finished until it is confirmed again)."
)
REVIEWED_LOCKED = "This layer is reviewed (quality checked) and final: a manager can reopen the review to change it."
WITHDRAWN_LOCKED = "This layer was withdrawn by a manager: it is kept read-only with its history."
READ_MASKED_FIRST = (
    "Read the masked document and answer whether you could re-identify the person first: "
    "the annotations are shown once you have answered."
)


def unread_review(layer: AnnotationLayer, user: AbstractBaseUser | None) -> bool:
    """``user`` reviews ``layer`` (and did not write it) but has not yet answered the
    masked reading: the review order hides the annotations from them until then."""
    if user is None or not getattr(user, "is_authenticated", False) or layer.annotator_id == user.pk:
        return False
    # One query on every write (``layer_edit``): a reviewer has at most one assignment
    # per layer (``review_assignment_unique``), so "paired and not read" is one row.
    return ReviewAssignment.objects.filter(layer_id=layer.pk, reviewer_id=user.pk, masked_read_at__isnull=True).exists()


def refuse_unread(layer: AnnotationLayer, actor: AbstractBaseUser | None) -> None:
    """The review order: a reviewer changes, discusses or signs off a layer only after
    the masked reading (``LayerLocked`` telling them to read it first)."""
    if unread_review(layer, actor):
        raise LayerLocked(READ_MASKED_FIRST, status=layer.status)


def refuse_write(layer: AnnotationLayer, actor: AbstractBaseUser | None) -> None:
    """Raise ``LayerLocked`` (naming why) when ``actor`` may not change the annotations
    of ``layer`` in its current status. ``layer`` is the row locked by ``layer_edit``."""
    # A reviewer who has not read the masked document is told what to do first (the
    # reading itself starts the review and so unlocks a confirmed layer for them).
    refuse_unread(layer, actor)
    if layer.status == LayerStatus.CONFIRMED:
        raise LayerLocked(CONFIRMED_LOCKED, status=layer.status)
    if layer.status == LayerStatus.REVIEWED:
        raise LayerLocked(REVIEWED_LOCKED, status=layer.status)
    if layer.status == LayerStatus.WITHDRAWN:
        raise LayerLocked(WITHDRAWN_LOCKED, status=layer.status)
