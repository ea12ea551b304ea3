"""Read-side queries shared by the API and the HTML views (no state changes here)."""

import re
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, F, Max, OuterRef, Q, QuerySet, Subquery

from . import permissions as policy
from .enums import FINISHED_LAYER_STATUSES, LayerStatus, Role
from .models import AnnotationLayer, AuditEvent, Corpus, CorpusMembership, Entity, Mention, ReviewAssignment


def natural_key(name: str) -> list:
    """Sort key for names with numbers: annotator2 before annotator10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name.lower())]


def layers_state(corpus: Corpus) -> str:
    """A token that changes whenever a layer of ``corpus`` is added, edited or removed:
    the key under which results computed from its layers are cached."""
    state = AnnotationLayer.objects.filter(document__corpus=corpus).aggregate(n=Count("id"), at=Max("updated_at"))
    return f"{state['n']}:{state['at'].isoformat() if state['at'] else ''}"


def with_entity_summary(entities: QuerySet[Entity]) -> QuerySet[Entity]:
    """Annotate each entity with its mention count and how its mentions' values agree
    (an imported entity may mix identifier types: it is then flagged inconsistent)."""
    first = Mention.objects.filter(entity=OuterRef("pk")).order_by("start_offset", "id")
    return entities.annotate(
        mention_count=Count("mentions"),
        identifier_type_count=Count("mentions__identifier_type", distinct=True),
        entity_type_count=Count("mentions__entity_type", distinct=True),
        confidential_status_count=Count("mentions__confidential_status", distinct=True),
        undecided_count=Count("mentions", filter=Q(mentions__identifier_type__isnull=True)),
        max_identifier_type=Max("mentions__identifier_type"),
        max_confidential_status=Max("mentions__confidential_status"),
        first_entity_type=Subquery(first.values("entity_type")[:1]),
        first_span_text=Subquery(first.values("span_text")[:1]),
    )


def inconsistency_condition() -> Q:
    """On a queryset annotated by ``with_entity_summary``: mentions of the entity differ
    in entity type, identifier type or confidential status, or only some are decided."""
    return (
        Q(identifier_type_count__gt=1)
        | Q(entity_type_count__gt=1)
        | Q(confidential_status_count__gt=1)
        | (Q(undecided_count__gt=0) & Q(undecided_count__lt=F("mention_count")))
    )


def inconsistent_entities(entities: QuerySet[Entity]) -> QuerySet[Entity]:
    return with_entity_summary(entities).filter(inconsistency_condition())


def with_layer_counts(layers: QuerySet[AnnotationLayer]) -> QuerySet[AnnotationLayer]:
    return (
        layers.annotate(mention_count=Count("mentions", distinct=True))
        .select_related("document", "annotator")
        .prefetch_related("review_assignments__reviewer")
    )


def with_corpus_counts(corpora: QuerySet[Corpus]) -> QuerySet[Corpus]:
    return corpora.annotate(document_count=Count("documents", distinct=True))


def with_progress(layers: QuerySet[AnnotationLayer]) -> QuerySet[AnnotationLayer]:
    """Annotate layers with their entity count and how many are still undecided."""
    return layers.annotate(
        entity_count=Count("entities", distinct=True),
        undecided_count=Count("entities", distinct=True, filter=Q(entities__mentions__identifier_type__isnull=True)),
    )


def corpora_overview(user) -> list[Corpus]:
    """The user's corpora with ``document_count`` and ``visible_count``: the whole corpus
    for its managers, the documents they have a layer on for everybody else."""
    corpora = list(with_corpus_counts(policy.visible_corpora(user)).order_by("name"))
    managed = set(policy.managed_corpora(user).values_list("pk", flat=True))
    mine = dict(
        policy.visible_documents(user)
        .order_by()
        .values("corpus")
        .annotate(n=Count("id", distinct=True))
        .values_list("corpus", "n")
    )
    for corpus in corpora:
        corpus.is_managed = corpus.pk in managed
        corpus.visible_count = corpus.document_count if corpus.is_managed else mine.get(corpus.pk, 0)
    return corpora


# A review still to do: the layer is confirmed (waiting for the masked reading) or under review.
OPEN_REVIEW_STATUSES = (LayerStatus.CONFIRMED, LayerStatus.UNDER_REVIEW)


@dataclass
class MemberRow:
    """One member of a corpus and their workload in it.

    ``assigned``, ``in_progress`` and ``finished`` count the member's own layers in the
    corpus (finished: confirmed, under review or reviewed, as exports count them);
    ``in_review`` counts the layers **they review** that are not reviewed yet (confirmed
    or under review): their pending review work. ``withdrawn`` counts their layers closed
    as withdrawn."""

    user: AbstractBaseUser
    roles: list[str]
    is_active: bool
    last_activity: datetime | None
    assigned: int
    in_progress: int
    finished: int
    in_review: int
    withdrawn: int = 0


def members_overview(corpus: Corpus) -> list[MemberRow]:
    """Every user with a role in ``corpus``, by name, with their workload (four queries
    whatever the team's size)."""
    memberships = CorpusMembership.objects.filter(corpus=corpus).select_related("user")
    roles: dict[int, list[str]] = {}
    users = {}
    role_order = {role: index for index, role in enumerate(Role.values)}
    for membership in memberships:
        users[membership.user_id] = membership.user
        roles.setdefault(membership.user_id, []).append(membership.role)
    layer_counts = (
        AnnotationLayer.objects.filter(document__corpus=corpus, annotator_id__in=list(users))
        .values("annotator_id")
        .annotate(
            assigned=Count("id", filter=Q(status=LayerStatus.ASSIGNED)),
            in_progress=Count("id", filter=Q(status=LayerStatus.IN_PROGRESS)),
            finished=Count("id", filter=Q(status__in=FINISHED_LAYER_STATUSES)),
            withdrawn=Count("id", filter=Q(status=LayerStatus.WITHDRAWN)),
        )
    )
    counts = {row.pop("annotator_id"): row for row in layer_counts}
    reviewing = dict(
        ReviewAssignment.objects.filter(
            layer__document__corpus=corpus, reviewer_id__in=list(users), layer__status__in=OPEN_REVIEW_STATUSES
        )
        .values("reviewer_id")
        .annotate(n=Count("layer_id", distinct=True))
        .values_list("reviewer_id", "n")
    )
    last_seen = dict(
        AuditEvent.objects.filter(corpus=corpus, actor_id__in=list(users))
        .values("actor_id")
        .annotate(at=Max("at"))
        .values_list("actor_id", "at")
    )
    empty = {"assigned": 0, "in_progress": 0, "finished": 0, "withdrawn": 0}
    rows = [
        MemberRow(
            user=user,
            roles=sorted(roles[pk], key=role_order.__getitem__),
            is_active=user.is_active,
            last_activity=last_seen.get(pk),
            in_review=reviewing.get(pk, 0),
            **counts.get(pk, empty),
        )
        for pk, user in users.items()
    ]
    return sorted(rows, key=lambda row: natural_key(row.user.username))
