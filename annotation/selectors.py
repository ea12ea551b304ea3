"""Read-side queries shared by the API and the HTML views (no state changes here)."""

import re

from django.db.models import Count, F, Max, OuterRef, Q, QuerySet, Subquery

from . import permissions as policy
from .models import AnnotationLayer, Corpus, Entity, Mention


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
