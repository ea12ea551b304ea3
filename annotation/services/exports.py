"""Exporting a corpus: one set of options for the corpus page, the API and the commands.

Two formats:

- the **TAB corpus JSON** (every document of the corpus with the chosen layers), and
- a **masked-output file** ``{"doc_id": [[start, end], ...]}`` (the official evaluation
  script's input) of one annotator's DIRECT and QUASI mentions, or of the spans the
  pre-annotation engine would mask.

Layers are the finished ones (confirmed, under review, reviewed) unless all are asked
for: an unfinished layer holds undecided mentions (no ``identifier_type``), which a TAB
release never contains. Options are checked before anything is written, so a refusal
is an error naming the option, never a truncated file; the file itself is produced
piece by piece (``CorpusExport.chunks``) while it is sent, so a large corpus is never
held in memory as one string.
"""

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import TextIO

from django.db.models import Count, Q, TextChoices
from django.utils import timezone

from ..corpus_io.masks import annotator_masked_spans
from ..corpus_io.tab_writer import iter_tab_documents, tab_json_chunks
from ..enums import FINISHED_LAYER_STATUSES, Role
from ..models import AnnotationLayer, Corpus, CorpusMembership, RunDocument
from ..selectors import natural_key
from .errors import DomainError
from .preannotation import predicted_masked_spans


class ExportFormat(TextChoices):
    TAB = "tab", "TAB corpus JSON"
    MASKS = "masks", "Masked-output file"


class LayerScope(TextChoices):
    FINISHED = "finished", "Finished layers only"
    ALL = "all", "All layers"


class MaskSource(TextChoices):
    ANNOTATOR = "annotator", "An annotator's layers"
    PREANNOTATION = "preannotation", "The pre-annotation engine"


class ExportError(DomainError):
    """Export options that cannot be honoured (``field`` names the option)."""


@dataclass(frozen=True)
class ExportOptions:
    """What to export. ``annotators``: for the TAB format, only these annotators' layers
    (empty: everybody's); for a masked-output file of the layers, exactly one name.
    ``source`` applies to masked-output files only."""

    format: str = ExportFormat.TAB
    layers: str = LayerScope.FINISHED
    annotators: tuple[str, ...] = ()
    source: str = MaskSource.ANNOTATOR

    @property
    def finished_only(self) -> bool:
        return self.layers == LayerScope.FINISHED


@dataclass
class CorpusExport:
    """A checked export: its file name, media type and text, produced lazily.
    ``stream``: send it piece by piece (a TAB corpus can be 100 MB); a masked-output
    file holds offsets only (a few MB for the whole TAB corpus) and can be sent whole,
    with its length."""

    filename: str
    content_type: str
    chunks: Iterator[str] = field(repr=False)
    stream: bool = True

    def write(self, out: TextIO) -> None:
        for chunk in self.chunks:
            out.write(chunk)

    def text(self) -> str:
        return "".join(self.chunks)


@dataclass(frozen=True)
class AnnotatorLayers:
    """An annotator of a corpus and how many of their layers there are (finished)."""

    username: str
    layers: int
    finished: int


def corpus_annotators(corpus: Corpus) -> list[AnnotatorLayers]:
    """The annotators an export can be restricted to: the corpus's annotator members and
    anybody with a layer in it, in natural name order."""
    counts = {
        row["annotator__username"]: row
        for row in AnnotationLayer.objects.filter(document__corpus=corpus)
        .values("annotator__username")
        .annotate(total=Count("id"), finished=Count("id", filter=Q(status__in=FINISHED_LAYER_STATUSES)))
    }
    members = CorpusMembership.objects.filter(corpus=corpus, role=Role.ANNOTATOR).values_list(
        "user__username", flat=True
    )
    none = {"total": 0, "finished": 0}
    return [
        AnnotatorLayers(name, counts.get(name, none)["total"], counts.get(name, none)["finished"])
        for name in sorted(set(counts) | set(members), key=natural_key)
    ]


@dataclass(frozen=True)
class ExportSummary:
    """What there is to export, for the export dialog."""

    documents: int
    layers: int
    finished: int
    preannotated: int
    annotators: list[AnnotatorLayers]


def export_summary(corpus: Corpus) -> ExportSummary:
    annotators = corpus_annotators(corpus)
    preannotated = (
        RunDocument.objects.filter(document__corpus=corpus, status=RunDocument.Status.DONE)
        .values("document_id")
        .distinct()
        .count()
    )
    return ExportSummary(
        documents=corpus.documents.count(),
        layers=sum(row.layers for row in annotators),
        finished=sum(row.finished for row in annotators),
        preannotated=preannotated,
        annotators=annotators,
    )


def prepare_export(corpus: Corpus, options: ExportOptions, *, today: date | None = None) -> CorpusExport:
    """Check ``options`` against the corpus (raising ``ExportError``) and return the
    export, whose text is read from the database only as it is consumed."""
    _check_choices(options)
    today = today or timezone.localdate()
    if options.format == ExportFormat.TAB:
        return _tab_export(corpus, options, today)
    if options.source == MaskSource.PREANNOTATION:
        return _preannotation_masks(corpus, options, today)
    return _annotator_masks(corpus, options, today)


def _check_choices(options: ExportOptions) -> None:
    for name, value, choices in (
        ("format", options.format, ExportFormat),
        ("layers", options.layers, LayerScope),
        ("source", options.source, MaskSource),
    ):
        if value not in choices.values:
            known = ", ".join(choices.values)
            raise ExportError(f"Unknown {name} {value!r}: use one of {known}.", field=name)


def _check_annotators(corpus: Corpus, names: tuple[str, ...], finished_only: bool) -> None:
    """Each chosen name is an annotator of the corpus with a layer in the chosen scope."""
    known = {row.username: row for row in corpus_annotators(corpus)}
    for name in names:
        row = known.get(name)
        if row is None:
            raise ExportError(f"{name} is not an annotator of corpus {corpus.name}.", field="annotators")
        if not row.layers:
            raise ExportError(f"{name} has no layer in corpus {corpus.name}.", field="annotators")
        if finished_only and not row.finished:
            raise ExportError(
                f"{name} has no finished layer in corpus {corpus.name} ({row.layers} layer"
                f"{'s' if row.layers != 1 else ''}, none confirmed yet): choose all layers to export work in progress.",
                field="annotators",
            )


def _tab_export(corpus: Corpus, options: ExportOptions, today: date) -> CorpusExport:
    annotators = tuple(dict.fromkeys(options.annotators))
    _check_annotators(corpus, annotators, options.finished_only)
    documents = iter_tab_documents(
        corpus.documents.all(), finished_only=options.finished_only, annotators=annotators or None
    )
    scope = [_names_part(annotators)] if annotators else []
    scope.append("finished" if options.finished_only else "all-layers")
    return CorpusExport(
        filename=_filename(corpus, "tab", *scope, today=today),
        content_type="application/json; charset=utf-8",
        chunks=tab_json_chunks(documents),
    )


def _annotator_masks(corpus: Corpus, options: ExportOptions, today: date) -> CorpusExport:
    if len(options.annotators) != 1:
        chosen = f" (you chose {len(options.annotators)})" if options.annotators else ""
        raise ExportError(
            f"A masked-output file holds one annotator's masks: choose exactly one annotator{chosen}.",
            field="annotators",
        )
    (name,) = options.annotators
    _check_annotators(corpus, (name,), options.finished_only)
    documents = corpus.documents.all()
    if options.finished_only:
        documents = documents.filter(layers__annotator__username=name, layers__status__in=FINISHED_LAYER_STATUSES)
    scope = "finished" if options.finished_only else "all-layers"
    return CorpusExport(
        filename=_filename(corpus, "masks", _safe(name), scope, today=today),
        content_type="application/json; charset=utf-8",
        chunks=_masks_chunks(lambda: annotator_masked_spans(documents, name)),
        stream=False,
    )


def _preannotation_masks(corpus: Corpus, options: ExportOptions, today: date) -> CorpusExport:
    if options.annotators:
        raise ExportError(
            "The pre-annotation's masked-output file is the engine's, not an annotator's: choose no annotator.",
            field="annotators",
        )
    # The engine's proposals are one set of spans per document, small next to the TAB
    # text: computing them here also tells whether there is anything to export.
    spans = predicted_masked_spans(corpus.documents.all())
    if not spans:
        raise ExportError(f"No document of corpus {corpus.name} has been pre-annotated.", field="source")
    return CorpusExport(
        filename=_filename(corpus, "masks", "preannotation", today=today),
        content_type="application/json; charset=utf-8",
        chunks=_masks_chunks(lambda: spans),
        stream=False,
    )


def _masks_chunks(compute) -> Iterator[str]:
    """The masked-output JSON object, one document per piece."""
    yield "{"
    for index, (doc_id, spans) in enumerate(compute().items()):
        yield (", " if index else "") + json.dumps(doc_id, ensure_ascii=False) + ": " + json.dumps(spans)
    yield "}"


MAX_NAMED = 3


def _names_part(names: tuple[str, ...]) -> str:
    if len(names) > MAX_NAMED:
        return f"{len(names)}-annotators"
    return "+".join(_safe(name) for name in names)


def _safe(text: str) -> str:
    """A file-name part: letters, digits, dot, dash and underscore; runs of anything
    else become one dash."""
    return re.sub(r"[^\w.-]+", "-", text).strip("-.") or "corpus"


def _filename(corpus: Corpus, *parts: str, today: date) -> str:
    """e.g. ``ECHR-tab-finished-2025-03-01.json``: corpus, format, scope, date."""
    return "-".join([_safe(corpus.name), *parts, today.isoformat()]) + ".json"
