"""The manager's progress dashboard of a corpus: per annotator, how far the layers are,
how much was annotated, how the pre-annotations were treated and how long it took.

Read-only. Everything comes from a handful of aggregate queries (one per table, never
one per layer), so the page stays fast on a corpus of thousands of layers.

What the numbers mean:

- **Statuses** count every layer of the annotator (one layer = one document).
- **Entities, mentions and edit types** count the *finished* layers only (confirmed,
  under review or reviewed): in an open layer an untouched pre-annotation still reads
  as "kept" although nobody has looked at it yet.
- **Edit types** are TAB's ``edit_type``: ``check`` = a pre-annotated span kept as
  proposed, ``correct`` = a pre-annotated span changed, ``insert`` = a span the
  annotator added; imported mentions without one are "unknown". **Removed** counts the
  pre-annotated spans (edit type check or correct) deleted from the annotator's layers
  (by them or a reviewer), read from the audit trail's ``mention.delete`` events that
  were not undone. Kept, corrected and
  inserted are shares of the final mentions with a known edit type. Removed is a share
  of the pre-annotated spans handled *in this app* (kept + corrected + removed, on
  layers assigned here): an imported layer carries no record of its deletions, so
  counting its spans would only dilute the share; removed is counted on the same layers.
- **Active time** is estimated from the annotator's own audit events on their layer
  (see ``active_seconds``): imported layers, which have no such events, have no time.
"""

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from datetime import datetime, timedelta
from itertools import pairwise

from django.db.models import Count, Exists, F, OuterRef, Q

from ..enums import FINISHED_LAYER_STATUSES as FINISHED
from ..enums import EditType, LayerStatus, Role
from ..models import AnnotationLayer, AuditEvent, Corpus, CorpusMembership, Entity, Mention
from ..selectors import natural_key

# Two edits further apart than this belong to different working sessions: the pause
# between them is not counted (the annotator may have gone for lunch).
IDLE_CUTOFF = timedelta(minutes=5)
# Each working session is credited this much for what happens before its first edit
# (reading the text): a session of a single edit then counts for something.
SESSION_START_CREDIT = timedelta(seconds=30)
TIME_RULE = "active time, estimated from edits; pauses over 5 minutes are not counted"

EDIT_KINDS = ("kept", "corrected", "inserted", "unknown", "removed")
PREANNOTATED = (EditType.CHECK, EditType.CORRECT)
CSV_TABLES = ("status", "edits", "work")


@dataclass
class AnnotatorProgress:
    """One annotator's row (or the corpus total, summed over the rows)."""

    annotator: str
    statuses: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LayerStatus.values, 0))
    entities: int = 0
    mentions: int = 0
    kept: int = 0
    corrected: int = 0
    inserted: int = 0
    unknown: int = 0
    removed: int = 0
    tracked: int = 0  # kept + corrected on finished layers assigned in this app
    active_seconds: float = 0.0  # on all the annotator's layers
    finished_seconds: float = 0.0  # on finished layers only
    timed_finished: int = 0  # finished layers with at least one event of the annotator

    @property
    def documents(self) -> int:
        return sum(self.statuses.values())

    @property
    def finished(self) -> int:
        return sum(self.statuses[status] for status in FINISHED)

    @property
    def known_edits(self) -> int:
        return self.kept + self.corrected + self.inserted

    @property
    def preannotated(self) -> int:
        """Pre-annotated spans handled in this app: kept, corrected or removed."""
        return self.tracked + self.removed

    def share(self, kind: str) -> float | None:
        """``kind``'s share of its denominator (see the module docstring); None if empty."""
        total = self.preannotated if kind == "removed" else self.known_edits
        return getattr(self, kind) / total if total else None

    def per_finished(self, count: int) -> float | None:
        return count / self.finished if self.finished else None

    @property
    def seconds_per_finished(self) -> float | None:
        """Average over the finished layers that have a time (imported ones have none)."""
        return self.finished_seconds / self.timed_finished if self.timed_finished else None

    def add(self, other: "AnnotatorProgress") -> None:
        for status, count in other.statuses.items():
            self.statuses[status] = self.statuses.get(status, 0) + count
        for name in (f.name for f in fields(self) if f.name not in ("annotator", "statuses")):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class ProgressReport:
    rows: list[AnnotatorProgress]
    total: AnnotatorProgress


def corpus_progress(corpus: Corpus) -> ProgressReport:
    """Per-annotator progress of ``corpus`` and its total, in six queries."""
    rows: dict[int, AnnotatorProgress] = {}

    def row(user_id: int, username: str = "") -> AnnotatorProgress:
        return rows.setdefault(user_id, AnnotatorProgress(username))

    for user_id, username in _idle_annotators(corpus):
        row(user_id, username)
    for entry in _status_counts(corpus):
        row(entry.pop("annotator_id"), entry.pop("annotator__username")).statuses.update(entry)
    for entry in _mention_counts(corpus):
        annotator = row(entry.pop("layer__annotator_id"))
        for name, count in entry.items():
            setattr(annotator, name, count)
    for user_id, count in _entity_counts(corpus):
        row(user_id).entities = count
    for user_id, count in _removed_counts(corpus):
        row(user_id).removed = count
    for (user_id, status), seconds in _layer_times(corpus):
        annotator = row(user_id)
        annotator.active_seconds += seconds
        if status in FINISHED:
            annotator.finished_seconds += seconds
            annotator.timed_finished += 1
    ordered = sorted(rows.values(), key=lambda r: natural_key(r.annotator))
    total = AnnotatorProgress("All annotators")
    for entry in ordered:
        total.add(entry)
    return ProgressReport(rows=ordered, total=total)


def _layers(corpus: Corpus):
    return AnnotationLayer.objects.filter(document__corpus=corpus)


def _idle_annotators(corpus: Corpus) -> Iterable[tuple[int, str]]:
    """Members with the annotator role, so that one with nothing assigned shows up too."""
    members = CorpusMembership.objects.filter(corpus=corpus, role=Role.ANNOTATOR)
    return members.values_list("user_id", "user__username")


def _status_counts(corpus: Corpus) -> Iterable[dict]:
    per_status = {status: Count("id", filter=Q(status=status)) for status in LayerStatus.values}
    return _layers(corpus).order_by().values("annotator_id", "annotator__username").annotate(**per_status)


def _mention_counts(corpus: Corpus) -> Iterable[dict]:
    mentions = Mention.objects.filter(layer__document__corpus=corpus, layer__status__in=FINISHED).order_by()
    return mentions.values("layer__annotator_id").annotate(
        mentions=Count("id"),
        kept=Count("id", filter=Q(edit_type=EditType.CHECK)),
        corrected=Count("id", filter=Q(edit_type=EditType.CORRECT)),
        inserted=Count("id", filter=Q(edit_type=EditType.INSERT)),
        unknown=Count("id", filter=Q(edit_type__isnull=True)),
        tracked=Count("id", filter=Q(edit_type__in=PREANNOTATED) & Q(_assigned_here())),
    )


def _assigned_here() -> Exists:
    """For a query of rows with a ``layer_id``: the layer was assigned in this app, so every
    deletion from it is on record. An imported layer has no ``layer.assign`` event (later
    events, such as pairing a reviewer, do not make its past deletions known)."""
    return Exists(AuditEvent.objects.filter(layer_id=OuterRef("layer_id"), action="layer.assign"))


def _entity_counts(corpus: Corpus) -> Iterable[tuple[int, int]]:
    entities = Entity.objects.filter(layer__document__corpus=corpus, layer__status__in=FINISHED).order_by()
    return entities.values("layer__annotator_id").annotate(n=Count("id")).values_list("layer__annotator_id", "n")


def _removed_counts(corpus: Corpus) -> Iterable[tuple[int, int]]:
    """Pre-annotated spans deleted from finished layers assigned here (a deletion taken
    back by undo does not count). The snapshot of the deleted mention holds its edit type."""
    deletions = (
        AuditEvent.objects.filter(
            corpus=corpus,
            action="mention.delete",
            undone=False,
            layer__status__in=FINISHED,
            changes__before__edit_type__in=list(PREANNOTATED),
        )
        .filter(_assigned_here())
        .order_by()
    )
    return deletions.values("layer__annotator_id").annotate(n=Count("id")).values_list("layer__annotator_id", "n")


def _layer_times(corpus: Corpus) -> Iterable[tuple[tuple[int, str], float]]:
    """((annotator, layer status), active seconds) per layer, from one ordered query of
    the annotator's own events on their layers (a manager's or reviewer's do not count)."""
    events = (
        AuditEvent.objects.filter(corpus=corpus, layer__isnull=False, actor_id=F("layer__annotator_id"))
        .order_by("layer_id", "at", "id")
        .values_list("layer_id", "layer__annotator_id", "layer__status", "at")
    )
    times: dict[int, list] = {}
    for layer_id, annotator_id, status, at in events.iterator():
        times.setdefault(layer_id, [(annotator_id, status), []])[1].append(at)
    return [(key, active_seconds(moments)) for key, moments in times.values()]


def active_seconds(moments: list[datetime]) -> float:
    """Active time of one person on one layer, from the sorted times of their edits.

    The edits are cut into working sessions wherever two consecutive ones are more than
    ``IDLE_CUTOFF`` apart; that pause counts for nothing. A session counts the gaps
    between its edits plus ``SESSION_START_CREDIT`` for the reading before its first
    edit. So edits at 0 s, 60 s and 20 min give 30 + 60 (first session) + 30 (second)."""
    if not moments:
        return 0.0
    total = SESSION_START_CREDIT
    for before, after in pairwise(moments):
        gap = after - before
        total += gap if gap <= IDLE_CUTOFF else SESSION_START_CREDIT
    return total.total_seconds()


def _ratio(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def progress_csv(report: ProgressReport, table: str) -> str:
    """One of the dashboard's tables as CSV: status, edits or work (raw numbers: shares
    as fractions, times in seconds)."""
    if table not in CSV_TABLES:
        raise ValueError(f"unknown table {table!r}")
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(_CSV_HEADERS[table])
    for row in [*report.rows, report.total]:
        writer.writerow(_CSV_ROWS[table](row))
    return out.getvalue()


_CSV_HEADERS = {
    "status": ["annotator", "documents", *LayerStatus.values],
    "edits": ["annotator", "mentions", *EDIT_KINDS, *(f"{kind}_share" for kind in EDIT_KINDS if kind != "unknown")],
    "work": [
        "annotator",
        "finished_documents",
        "entities",
        "entities_per_document",
        "mentions_per_document",
        "active_seconds",
        "seconds_per_finished_document",
    ],
}
_CSV_ROWS = {
    "status": lambda r: [r.annotator, r.documents, *(r.statuses[s] for s in LayerStatus.values)],
    "edits": lambda r: [
        r.annotator,
        r.mentions,
        *(getattr(r, kind) for kind in EDIT_KINDS),
        *(_ratio(r.share(kind)) for kind in EDIT_KINDS if kind != "unknown"),
    ],
    "work": lambda r: [
        r.annotator,
        r.finished,
        r.entities,
        _ratio(r.per_finished(r.entities)),
        _ratio(r.per_finished(r.mentions)),
        round(r.active_seconds),
        "" if r.seconds_per_finished is None else round(r.seconds_per_finished),
    ],
}
