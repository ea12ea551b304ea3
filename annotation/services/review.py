"""The pair review (TAB Step 5): who reviews whom, reading the masked document first,
notes on disagreements, and the sign-off by both sides that makes a layer
``quality_checked``.

Flow: a confirmed layer gets its author's partner as reviewer; the reviewer reads the
masked document ("could I re-identify the person?"), which starts the review; obvious
mistakes are corrected directly in the workspace (each correction is an audit event
with the reviewer as actor, shown to the author); real disagreements become notes. When
no note is open, the reviewer and the author each confirm the layer as it then is; the
second confirmation of the current version makes the layer *reviewed*."""

from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from ..enums import LayerStatus, Role
from ..models import (
    AnnotationLayer,
    AuditEvent,
    Corpus,
    CorpusMembership,
    Entity,
    Mention,
    ReviewAssignment,
    ReviewComment,
    ReviewPair,
    ReviewThread,
)
from .audit import record_event
from .confirmation import confirmation_report
from .errors import DomainError, StaleLayerVersion
from .layer_states import refuse_unread
from .layers import add_reviewer, change_layer_status

OPEN_LAYER = (LayerStatus.ASSIGNED, LayerStatus.IN_PROGRESS)
MAX_NOTE = 5000


# --- Pairs -------------------------------------------------------------------------


def pair_annotators(
    corpus: Corpus, one: AbstractBaseUser, other: AbstractBaseUser, *, actor: AbstractBaseUser | None
) -> ReviewPair:
    """Pair two annotators of ``corpus`` to review each other's layers. Both get the
    reviewer role if they lack it; layers already confirmed get their reviewer now."""
    if one.pk == other.pk:
        raise DomainError("An annotator cannot be paired with themselves.", field="second")
    for user in (one, other):
        if not CorpusMembership.objects.filter(corpus=corpus, user=user, role=Role.ANNOTATOR).exists():
            raise DomainError(f"{user.username} is not an annotator of corpus {corpus.name}.", field="annotator")
    first, second = sorted((one, other), key=lambda user: user.pk)
    try:
        with transaction.atomic():
            pair = ReviewPair.objects.create(corpus=corpus, first=first, second=second)
            for user in (first, second):
                _, created = CorpusMembership.objects.get_or_create(corpus=corpus, user=user, role=Role.REVIEWER)
                if created:
                    record_event("membership.add", actor=actor, corpus=corpus, target=f"{user.username} as reviewer")
            record_event("review.pair", actor=actor, corpus=corpus, target=f"{first.username} ⇄ {second.username}")
            assign_due_reviews(corpus, actor=actor)
    except IntegrityError:
        raise DomainError(f"{first.username} and {second.username} are already paired.", field="second") from None
    return pair


def unpair(pair: ReviewPair, *, actor: AbstractBaseUser | None) -> None:
    """End a pairing; reviews already assigned go on (they may be half done)."""
    record_event(
        "review.unpair", actor=actor, corpus=pair.corpus, target=f"{pair.first.username} ⇄ {pair.second.username}"
    )
    pair.delete()


def assign_due_reviews(corpus: Corpus, *, documents=None, actor: AbstractBaseUser | None = None) -> int:
    """Give every confirmed layer of a paired annotator its partner as reviewer, unless
    the partner still has an unfinished layer on the same document: annotation is blind,
    and reviewing first would show them another's solution. Idempotent; returns the
    number of reviewers added."""
    pairs = list(ReviewPair.objects.filter(corpus=corpus))
    if not pairs:
        return 0
    partners: dict[int, set[int]] = {}
    for pair in pairs:
        partners.setdefault(pair.first_id, set()).add(pair.second_id)
        partners.setdefault(pair.second_id, set()).add(pair.first_id)
    layers = AnnotationLayer.objects.filter(
        document__corpus=corpus, annotator_id__in=list(partners), status=LayerStatus.CONFIRMED
    ).select_related("document__corpus", "annotator")
    if documents is not None:
        layers = layers.filter(document__in=documents)
    layers = list(layers)
    document_ids = {layer.document_id for layer in layers}
    unfinished = set(
        AnnotationLayer.objects.filter(document_id__in=document_ids, status__in=OPEN_LAYER).values_list(
            "document_id", "annotator_id"
        )
    )
    assigned = set(ReviewAssignment.objects.filter(layer__in=layers).values_list("layer_id", "reviewer_id"))
    users = get_user_model().objects.in_bulk(set().union(*partners.values()))
    added = 0
    for layer in layers:
        for partner in sorted(partners[layer.annotator_id]):
            if (layer.pk, partner) in assigned or (layer.document_id, partner) in unfinished:
                continue
            add_reviewer(layer, users[partner], actor=actor)
            added += 1
    return added


def assign_after_confirmation(sender, layer: AnnotationLayer, **kwargs) -> None:
    """Receiver of ``layer_changed``: a newly confirmed layer of the document may now
    have its reviewer (its own, or a partner's waiting for this author to finish)."""
    if layer.status == LayerStatus.CONFIRMED:
        assign_due_reviews(layer.document.corpus, documents=[layer.document_id])


# --- Reading the masked document ---------------------------------------------------


def assignment_of(layer: AnnotationLayer, reviewer: AbstractBaseUser) -> ReviewAssignment:
    assignment = ReviewAssignment.objects.filter(layer=layer, reviewer=reviewer).first()
    if assignment is None:
        raise DomainError(f"{reviewer.username} does not review this layer.", field="reviewer")
    return assignment


def record_masked_reading(
    assignment: ReviewAssignment, *, reidentifiable: str, comment: str = "", actor: AbstractBaseUser
) -> ReviewAssignment:
    """The reviewer's answer after reading the masked document; it starts the review."""
    if reidentifiable not in ReviewAssignment.Reidentification.values:
        raise DomainError("Say whether you could re-identify the person: no, perhaps or yes.", field="reidentifiable")
    layer = assignment.layer
    if layer.status in OPEN_LAYER:
        # Answering opens the annotations: not while the author is still at work.
        raise DomainError(
            f"{layer.annotator.username} has not confirmed this layer yet: its masked document exists, "
            "and the review starts, once it is confirmed.",
            field="status",
        )
    with transaction.atomic():
        assignment.masked_read_at = timezone.now()
        assignment.reidentifiable = reidentifiable
        assignment.reidentification_comment = comment.strip()[:MAX_NOTE]
        assignment.save(update_fields=["masked_read_at", "reidentifiable", "reidentification_comment"])
        record_event(
            "review.masked_read",
            actor=actor,
            layer=layer,
            target=str(layer),
            changes={"reidentifiable": reidentifiable, "comment": assignment.reidentification_comment},
        )
        start_review(layer, actor=actor)
    return assignment


def start_review(layer: AnnotationLayer, *, actor: AbstractBaseUser | None) -> None:
    if layer.status == LayerStatus.CONFIRMED:
        change_layer_status(layer, LayerStatus.UNDER_REVIEW, actor=actor)


# --- Notes ---------------------------------------------------------------------------


def _body(body: str) -> str:
    body = (body or "").strip()
    if not body:
        raise DomainError("Write something in the note.", field="body")
    if len(body) > MAX_NOTE:
        raise DomainError(f"A note is at most {MAX_NOTE} characters (this one has {len(body)}).", field="body")
    return body


def open_thread(
    layer: AnnotationLayer,
    *,
    actor: AbstractBaseUser,
    body: str,
    mention: Mention | None = None,
    entity: Entity | None = None,
) -> ReviewThread:
    """A disagreement about a mention or an entity of ``layer``, with its first comment."""
    body = _body(body)
    refuse_unread(layer, actor)
    if mention is None and entity is None:
        raise DomainError("Choose the mention or entity the note is about.", field="entity")
    for part in (mention, entity):
        if part is not None and part.layer_id != layer.pk:
            raise DomainError("The note must be about a mention or entity of this layer.", field="entity")
    if mention is not None:
        entity = entity or mention.entity
        anchor, start = mention.span_text, mention.start_offset
    else:
        first = entity.mentions.order_by("start_offset").first()
        anchor, start = (first.span_text, first.start_offset) if first else (entity.tab_entity_id, None)
    with transaction.atomic():
        thread = ReviewThread.objects.create(
            layer=layer, mention=mention, entity=entity, anchor=anchor[:300], anchor_start=start, opened_by=actor
        )
        ReviewComment.objects.create(thread=thread, author=actor, body=body)
        record_event("review.note", actor=actor, layer=layer, target=anchor, changes={"body": body})
    return thread


def reply(thread: ReviewThread, *, actor: AbstractBaseUser, body: str) -> ReviewComment:
    body = _body(body)
    refuse_unread(thread.layer, actor)
    comment = ReviewComment.objects.create(thread=thread, author=actor, body=body)
    record_event("review.reply", actor=actor, layer=thread.layer, target=thread.anchor, changes={"body": body})
    return comment


def settle(thread: ReviewThread, outcome: str, *, actor: AbstractBaseUser, body: str = "") -> ReviewThread:
    """Close a note as resolved or kept (or open it again), with an optional comment."""
    if outcome not in ReviewThread.Status.values:
        raise DomainError(f"A note is open, resolved or kept, not {outcome!r}.", field="status")
    refuse_unread(thread.layer, actor)
    with transaction.atomic():
        if body.strip():
            ReviewComment.objects.create(thread=thread, author=actor, body=_body(body))
        before = thread.status
        thread.status = outcome
        closed = outcome != ReviewThread.Status.OPEN
        thread.settled_by = actor if closed else None
        thread.settled_at = timezone.now() if closed else None
        thread.save(update_fields=["status", "settled_by", "settled_at"])
        record_event(
            "review.settle",
            actor=actor,
            layer=thread.layer,
            target=thread.anchor,
            changes={"before": before, "after": outcome},
        )
    return thread


# --- Sign-off ------------------------------------------------------------------------


@dataclass
class ReviewState:
    """Where the review of one layer stands, for the pages and the API."""

    layer: AnnotationLayer
    assignments: list[ReviewAssignment]
    open_notes: int
    author_confirmed: bool
    reviewers_confirmed: list[str] = field(default_factory=list)
    reviewers_waiting: list[str] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.layer.status == LayerStatus.REVIEWED


def review_state(layer: AnnotationLayer) -> ReviewState:
    assignments = list(layer.review_assignments.select_related("reviewer").order_by("id"))
    # Once reviewed, the final status change has moved the version on: every sign-off
    # that led there counts.
    done = layer.status == LayerStatus.REVIEWED
    version = layer.version

    def signed(value):
        return value is not None and (done or value == version)

    return ReviewState(
        layer=layer,
        assignments=assignments,
        open_notes=layer.review_threads.filter(status=ReviewThread.Status.OPEN).count(),
        author_confirmed=bool(assignments) and all(signed(a.author_confirmed_version) for a in assignments),
        reviewers_confirmed=[a.reviewer.username for a in assignments if signed(a.reviewer_confirmed_version)],
        reviewers_waiting=[a.reviewer.username for a in assignments if not signed(a.reviewer_confirmed_version)],
    )


def confirm_review(
    layer: AnnotationLayer, *, actor: AbstractBaseUser, expected_version: int | None = None
) -> ReviewState:
    """The reviewer's or the author's sign-off on the layer as it is now. Refused while
    a note is open or while the layer breaks a confirmation rule (a correction may have
    added an undecided entity). When both sides have signed off the current version, the layer
    becomes reviewed (TAB ``quality_checked``)."""
    with transaction.atomic():
        layer = (
            AnnotationLayer.objects.select_for_update().select_related("document__corpus", "annotator").get(pk=layer.pk)
        )
        if layer.status not in (LayerStatus.CONFIRMED, LayerStatus.UNDER_REVIEW):
            raise DomainError(f"Only a layer under review can be signed off (this one is {layer.status}).")
        if expected_version is not None and layer.version != expected_version:
            # A sign-off is on what the signer saw: never on a change made since.
            raise StaleLayerVersion(layer.pk, expected_version, layer.version)
        refuse_unread(layer, actor)
        open_notes = layer.review_threads.filter(status=ReviewThread.Status.OPEN).count()
        if open_notes:
            raise DomainError(
                f"{open_notes} note{'s are' if open_notes > 1 else ' is'} still open: settle "
                f"{'them' if open_notes > 1 else 'it'} (resolved or kept) before confirming.",
                field="notes",
            )
        problems = confirmation_report(layer).errors
        if problems:
            raise DomainError("Not yet: " + " ".join(finding.message for finding in problems), field="status")
        assignments = layer.review_assignments.all()
        if not assignments.exists():
            raise DomainError("Nobody reviews this layer yet: a manager pairs a reviewer first.", field="reviewer")
        if layer.annotator_id == actor.pk:
            if layer.status != LayerStatus.UNDER_REVIEW:
                raise DomainError("Your reviewer has not started the review yet.", field="status")
            assignments.update(author_confirmed_version=layer.version)
            role = "author"
        else:
            if not assignments.filter(reviewer=actor).exists():
                raise DomainError(f"{actor.username} neither wrote nor reviews this layer.", field="reviewer")
            start_review(layer, actor=actor)  # moves the version on: sign the version after it
            assignments.filter(reviewer=actor).update(reviewer_confirmed_version=layer.version)
            role = "reviewer"
        record_event("review.confirm", actor=actor, layer=layer, target=str(layer), changes={"as": role})
        if _all_signed(layer):
            change_layer_status(layer, LayerStatus.REVIEWED, actor=actor)
    return review_state(layer)


def _all_signed(layer: AnnotationLayer) -> bool:
    version = layer.version
    return not layer.review_assignments.filter(
        ~Q(reviewer_confirmed_version=version)
        | ~Q(author_confirmed_version=version)
        | Q(reviewer_confirmed_version__isnull=True)
        | Q(author_confirmed_version__isnull=True)
    ).exists()


def corrections_in_review(layer: AnnotationLayer, limit: int = 50) -> list[AuditEvent]:
    """Changes to the layer's annotations made by somebody other than its author
    after it was confirmed: what the author should look at."""
    events = AuditEvent.objects.filter(layer=layer).exclude(actor_id=layer.annotator_id).exclude(actor__isnull=True)
    events = events.exclude(action__startswith="review.").exclude(action__in=["layer.status", "layer.reviewer"])
    if layer.confirmed_at:
        events = events.filter(at__gte=layer.confirmed_at)
    return list(events.select_related("actor").order_by("-at", "-id")[:limit])
