"""Assigning documents to annotators in bulk: the strategies, a preview, and applying it.

The strategies are plain functions on ids (no database), deterministic: ties are broken
by the order of the annotators given. A pair ``(document, annotator)`` that already
exists (the annotator has a layer on the document, whatever its status) is never made
again and counts towards the document's annotators, so applying the same assignment
twice adds nothing.

A manager previews the result (pairs, skipped pairs with the reason, each annotator's
load before and after) and applies it: all layers or none, each started from the newest
pre-annotation of its document (``layers.assign_layer``).

An annotator's **load** is the number of their open layers (assigned or in progress) in
the corpus: the work they still have to do.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from ..enums import FINISHED_LAYER_STATUSES, DatasetType, LayerStatus, Role
from ..models import AnnotationLayer, AuditEvent, Corpus, CorpusMembership, Document, RunDocument
from ..selectors import natural_key
from .audit import record_event
from .errors import DomainError
from .layers import assign_layer

OPEN_STATUSES = (LayerStatus.ASSIGNED, LayerStatus.IN_PROGRESS)
STRATEGIES = ("balanced", "round_robin", "explicit")
ALREADY_ASSIGNED = "already has a layer on this document"

Pair = tuple[int, int]


# --- Strategies (pure) ---------------------------------------------------------------


def balanced(
    documents: Sequence[int],
    annotators: Sequence[int],
    per_document: int,
    current_load: Mapping[int, int] | None = None,
    existing: set[Pair] | frozenset[Pair] = frozenset(),
) -> list[Pair]:
    """Each document to ``per_document`` distinct annotators, each time the least loaded
    (``current_load`` counts; ties go to the annotator given first). An existing pair
    counts towards the document's ``per_document`` and is not repeated. From equal loads,
    the loads after differ by at most 1. Pairs come document by document, in the order
    of ``annotators`` within a document."""
    load = {annotator: (current_load or {}).get(annotator, 0) for annotator in annotators}
    rank = {annotator: index for index, annotator in enumerate(annotators)}
    pairs: list[Pair] = []
    for document in documents:
        already = [annotator for annotator in annotators if (document, annotator) in existing]
        candidates = [annotator for annotator in annotators if (document, annotator) not in existing]
        needed = max(per_document - len(already), 0)
        chosen = sorted(candidates, key=lambda annotator: (load[annotator], rank[annotator]))[:needed]
        for annotator in sorted(chosen, key=rank.__getitem__):
            load[annotator] += 1
            pairs.append((document, annotator))
    return pairs


def round_robin(
    documents: Sequence[int], annotators: Sequence[int], existing: set[Pair] | frozenset[Pair] = frozenset()
) -> list[Pair]:
    """One annotator per document, in turn. A document that one of the annotators already
    has is left out (it is covered) and does not use up a turn."""
    if not annotators:
        return []
    pairs: list[Pair] = []
    turn = 0
    for document in documents:
        if any((document, annotator) in existing for annotator in annotators):
            continue
        pairs.append((document, annotators[turn % len(annotators)]))
        turn += 1
    return pairs


def explicit(pairs: Iterable[Pair]) -> list[Pair]:
    """The pairs given, checked to be (document id, annotator id) integers, each once,
    in the order given."""
    checked: list[Pair] = []
    for index, pair in enumerate(pairs):
        try:
            document, annotator = pair
        except (TypeError, ValueError):
            message = f"Pair {index + 1} is not a (document, annotator) pair: {pair!r}."
            raise DomainError(message, field="pairs") from None
        if not isinstance(document, int) or not isinstance(annotator, int) or isinstance(document, bool):
            raise DomainError(f"Pair {index + 1} must name a document id and an annotator id: {pair!r}.", field="pairs")
        if (document, annotator) not in checked:
            checked.append((document, annotator))
    return checked


# --- Preview and apply -----------------------------------------------------------------


@dataclass
class AssignmentPreview:
    """What applying an assignment would do. Loads are keyed by username."""

    pairs: list[tuple[Document, AbstractBaseUser]]
    skipped: list[tuple[Document, AbstractBaseUser, str]]
    loads_before: dict[str, int]
    loads_after: dict[str, int]
    corpus: Corpus | None = field(default=None, repr=False)


class AppliedAssignment(list):
    """The layers created (a list), with ``skipped``: pairs left out because the
    annotator had a layer on the document by then, each with the reason."""

    def __init__(self, layers=(), skipped=()):
        super().__init__(layers)
        self.skipped: list[tuple[Document, AbstractBaseUser, str]] = list(skipped)


def open_loads(corpus: Corpus, annotator_ids: Iterable[int]) -> dict[int, int]:
    """Each annotator's open layers (assigned or in progress) in ``corpus``."""
    rows = (
        AnnotationLayer.objects.filter(document__corpus=corpus, annotator_id__in=list(annotator_ids))
        .filter(status__in=OPEN_STATUSES)
        .values("annotator_id")
        .annotate(n=Count("id"))
        .values_list("annotator_id", "n")
    )
    return dict(rows)


def _checked_documents(corpus: Corpus, document_ids: Iterable[int]) -> list[Document]:
    ids = list(dict.fromkeys(document_ids))
    documents = list(Document.objects.filter(corpus=corpus, pk__in=ids).order_by("position", "id"))
    missing = sorted(set(ids) - {document.pk for document in documents})
    if missing:
        raise DomainError(
            f"Document id {', '.join(map(str, missing))} is not a document of corpus {corpus.name}.", field="documents"
        )
    return documents


def _checked_annotators(corpus: Corpus, annotator_ids: Iterable[int]) -> list[AbstractBaseUser]:
    ids = list(dict.fromkeys(annotator_ids))
    users = get_user_model().objects.in_bulk(ids)
    unknown = [str(pk) for pk in ids if pk not in users]
    if unknown:
        raise DomainError(f"No account with id {', '.join(unknown)}.", field="annotators")
    annotators = set(
        CorpusMembership.objects.filter(corpus=corpus, role=Role.ANNOTATOR, user_id__in=ids).values_list(
            "user_id", flat=True
        )
    )
    for pk in ids:
        user = users[pk]
        if pk not in annotators:
            raise DomainError(f"{user.username} is not an annotator of corpus {corpus.name}.", field="annotators")
        if not user.is_active:
            raise DomainError(f"{user.username}'s account is inactive: activate it first.", field="annotators")
    return [users[pk] for pk in ids]


@dataclass
class _Plan:
    """The checked documents and annotators, the pairs the strategy asks for, and what
    it was computed from (read once: the preview reports from the same rows)."""

    documents: list[Document]
    annotators: list[AbstractBaseUser]
    wanted: list[Pair]
    existing: set[Pair]
    loads: dict[int, int]


def _plan(
    corpus: Corpus,
    document_ids: Iterable[int],
    annotator_ids: Iterable[int],
    strategy: str,
    per_document: int,
    pairs: Iterable[Pair] | None,
) -> _Plan:
    """The checked documents and annotators and the pairs the strategy asks for."""
    if strategy not in STRATEGIES:
        raise DomainError(f"Unknown strategy {strategy!r}: choose one of {', '.join(STRATEGIES)}.", field="strategy")
    if strategy == "explicit":
        wanted = explicit(pairs or [])
        if not wanted:
            raise DomainError("Name at least one (document, annotator) pair.", field="pairs")
        document_ids = [document for document, _ in wanted]
        annotator_ids = [annotator for _, annotator in wanted]
    documents = _checked_documents(corpus, document_ids)
    annotators = _checked_annotators(corpus, annotator_ids)
    if not documents:
        raise DomainError("Choose at least one document.", field="documents")
    if not annotators:
        raise DomainError("Choose at least one annotator.", field="annotators")
    if strategy == "balanced" and not 1 <= per_document <= len(annotators):
        raise DomainError(
            f"Annotators per document must be between 1 and the {len(annotators)} annotators chosen, "
            f"not {per_document}.",
            field="per_document",
        )
    document_order, annotator_order = [d.pk for d in documents], [a.pk for a in annotators]
    existing = _existing_pairs(document_order, annotator_order)
    loads = open_loads(corpus, annotator_order)
    if strategy == "balanced":
        wanted = balanced(document_order, annotator_order, per_document, loads, existing)
    elif strategy == "round_robin":
        wanted = round_robin(document_order, annotator_order, existing)
    return _Plan(documents, annotators, wanted, existing, loads)


def _existing_pairs(document_ids: list[int], annotator_ids: list[int]) -> set[Pair]:
    return set(
        AnnotationLayer.objects.filter(document_id__in=document_ids, annotator_id__in=annotator_ids).values_list(
            "document_id", "annotator_id"
        )
    )


def _preview(corpus: Corpus, plan: _Plan, *, strategy: str) -> AssignmentPreview:
    annotators, wanted, existing = plan.annotators, plan.wanted, plan.existing
    by_document = {document.pk: document for document in plan.documents}
    by_user = {user.pk: user for user in annotators}
    # Explicit pairs report only themselves; a strategy reports every chosen annotator who
    # already has a chosen document (those pairs count towards the document's annotators).
    considered = wanted if strategy == "explicit" else [(d, a) for d in by_document for a in by_user]
    skipped = [(by_document[d], by_user[a], ALREADY_ASSIGNED) for d, a in considered if (d, a) in existing]
    pairs = [(by_document[d], by_user[a]) for d, a in wanted if (d, a) not in existing]
    before = {user.username: plan.loads.get(user.pk, 0) for user in annotators}
    after = dict(before)
    for _, user in pairs:
        after[user.username] += 1
    order = sorted(before, key=natural_key)
    return AssignmentPreview(
        pairs=pairs,
        skipped=skipped,
        loads_before={name: before[name] for name in order},
        loads_after={name: after[name] for name in order},
        corpus=corpus,
    )


def preview_assignment(
    corpus: Corpus,
    document_ids: Iterable[int],
    annotator_ids: Iterable[int],
    *,
    strategy: str,
    per_document: int = 1,
    pairs: Iterable[Pair] | None = None,
) -> AssignmentPreview:
    """What ``apply_assignment`` would do with these arguments; changes nothing.

    ``strategy`` is "balanced" (``per_document`` annotators per document, least loaded
    first), "round_robin" (one per document in turn) or "explicit" (``pairs`` of document
    id and annotator id; ``document_ids`` and ``annotator_ids`` are then ignored).
    Documents must belong to ``corpus``; annotators must be active annotators of it.
    ``skipped`` lists the chosen annotators who already have a layer on a chosen
    document."""
    plan = _plan(corpus, document_ids, annotator_ids, strategy, per_document, pairs)
    return _preview(corpus, plan, strategy=strategy)


def apply_assignment(
    corpus: Corpus,
    document_ids: Iterable[int] | AssignmentPreview | None = None,
    annotator_ids: Iterable[int] | None = None,
    *,
    strategy: str = "balanced",
    per_document: int = 1,
    pairs: Iterable[Pair] | None = None,
    actor: AbstractBaseUser | None,
) -> AppliedAssignment:
    """Create the layers of an assignment, all or none. Pass either a preview (its pairs
    are applied as shown) or the arguments of ``preview_assignment``. Under the
    transaction every annotator is checked again (still an active annotator of the
    corpus); a pair that exists by now is skipped and reported in ``skipped``."""
    with transaction.atomic():
        if isinstance(document_ids, AssignmentPreview):
            shown = document_ids
            if shown.corpus is not None and shown.corpus.pk != corpus.pk:
                raise DomainError(f"This preview is of corpus {shown.corpus.name}, not {corpus.name}.", field="corpus")
            wanted = [(document.pk, user.pk) for document, user in shown.pairs]
            documents = _checked_documents(corpus, [d for d, _ in wanted])
            annotators = _checked_annotators(corpus, [a for _, a in wanted])
        else:
            plan = _plan(corpus, document_ids or [], annotator_ids or [], strategy, per_document, pairs)
            documents, annotators, wanted = plan.documents, plan.annotators, plan.wanted
        # Lock the documents: a concurrent assignment of the same documents waits here.
        list(Document.objects.select_for_update().filter(pk__in=[d.pk for d in documents]).values_list("pk"))
        by_document = {document.pk: document for document in documents}
        by_user = {user.pk: user for user in annotators}
        existing = _existing_pairs(list(by_document), list(by_user))
        result = AppliedAssignment()
        for document_id, user_id in wanted:
            document, user = by_document[document_id], by_user[user_id]
            if (document_id, user_id) in existing:
                result.skipped.append((document, user, ALREADY_ASSIGNED))
                continue
            result.append(assign_layer(document, user, actor=actor))
        if result:
            record_event(
                "assignment.apply",
                actor=actor,
                corpus=corpus,
                target=f"{len(result)} layers",
                changes={"pairs": [[layer.document.doc_id, layer.annotator.username] for layer in result]},
            )
    return result


# --- Choosing documents ------------------------------------------------------------------

DOCUMENT_STATUSES = ("unassigned", "open", "finished")


def document_filter(
    corpus: Corpus,
    *,
    dataset_type: str | None = None,
    status: str | None = None,
    has_preannotation: bool | None = None,
    query: str = "",
) -> QuerySet[Document]:
    """Documents of ``corpus`` for the assignment page, in corpus order.

    ``status``: "unassigned" (no layer was given out here: none is open, and none was
    assigned, withdrawn ones aside; layers imported from a file are the file's
    annotations, not work given out, so they do not count), "open" (some layer is
    assigned or in progress), "finished" (some layer is finished and none is open).
    ``has_preannotation``: a pre-annotation run has finished it (an assigned layer starts
    from that run's proposals). ``query``: part of the
    document id or of the person to protect."""
    documents = Document.objects.filter(corpus=corpus)
    if dataset_type:
        if dataset_type not in DatasetType.values:
            raise DomainError(
                f"The split is one of {', '.join(DatasetType.values)}, not {dataset_type!r}.", field="dataset_type"
            )
        documents = documents.filter(dataset_type=dataset_type)
    if status:
        documents = documents.filter(_status_condition(status))
    if has_preannotation is not None:
        predicted = Exists(RunDocument.objects.filter(document=OuterRef("pk"), status=RunDocument.Status.DONE))
        documents = documents.filter(predicted if has_preannotation else ~predicted)
    query = (query or "").strip()
    if query:
        documents = documents.filter(Q(doc_id__icontains=query) | Q(person_to_protect__icontains=query))
    return documents.order_by("position", "id")


def _status_condition(status: str) -> Q:
    layers = AnnotationLayer.objects.filter(document=OuterRef("pk"))
    open_layer = Exists(layers.filter(status__in=OPEN_STATUSES))
    finished_layer = Exists(layers.filter(status__in=FINISHED_LAYER_STATUSES))
    if status == "open":
        return Q(open_layer)
    if status == "finished":
        return Q(finished_layer) & ~Q(open_layer)
    if status == "unassigned":
        # Every assignment goes through ``layers.assign_layer``, which records "layer.assign"
        # on the layer; an imported layer has no such event.
        assigned_here = Exists(
            AuditEvent.objects.filter(layer__document=OuterRef("pk"), action="layer.assign").exclude(
                layer__status=LayerStatus.WITHDRAWN
            )
        )
        return ~Q(open_layer) & ~Q(assigned_here)
    raise DomainError(f"The status filter is one of {', '.join(DOCUMENT_STATUSES)}, not {status!r}.", field="status")
