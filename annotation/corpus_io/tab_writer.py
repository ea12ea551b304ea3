"""Writing a corpus in the TAB format, streaming one document at a time.

Keys follow the order most common in the official files; optional keys that the
imported document did not have stay absent, keys this application does not model are
written back as they came. Layers are written in their imported order, mentions by
offset (the order of the official files)."""

import json
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator
from typing import TextIO

from django.db.models import QuerySet

from ..enums import FINISHED_LAYER_STATUSES as FINISHED
from ..enums import LayerStatus
from ..models import AnnotationLayer, Document, Mention, MentionLink

CHUNK = 50
_MENTION_FIELDS = (
    "id",
    "layer_id",
    "tab_mention_id",
    "entity__tab_entity_id",
    "entity_type",
    "start_offset",
    "end_offset",
    "span_text",
    "edit_type",
    "identifier_type",
    "confidential_status",
    "related_mentions_present",
    "tab_extra",
)


def _chunks(queryset: QuerySet, size: int) -> Iterator[list]:
    chunk = []
    for item in queryset.iterator(chunk_size=size):
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _mention_dict(row: dict, related: list[str] | None) -> dict:
    mention = {
        "entity_type": row["entity_type"],
        "entity_mention_id": row["tab_mention_id"],
        "start_offset": row["start_offset"],
        "end_offset": row["end_offset"],
        "span_text": row["span_text"],
        "edit_type": row["edit_type"],
        "identifier_type": row["identifier_type"],
    }
    if related is not None:
        mention["related_mentions"] = related
    mention["entity_id"] = row["entity__tab_entity_id"]
    mention["confidential_status"] = row["confidential_status"]
    # An enum left unset was absent from the source (or is undecided): omit it.
    for key in ("edit_type", "identifier_type", "confidential_status"):
        if mention[key] is None:
            del mention[key]
    mention.update(row["tab_extra"])
    return mention


def _annotations(
    documents: list[Document], finished_only: bool, annotators: Collection[str] | None
) -> tuple[dict, dict]:
    """Layers and their mentions for a chunk of documents, in three queries."""
    layers = AnnotationLayer.objects.filter(document__in=documents).order_by("document_id", "position", "id")
    if finished_only:
        layers = layers.filter(status__in=FINISHED)
    if annotators is not None:
        layers = layers.filter(annotator__username__in=annotators)
    layer_rows = list(layers.values("id", "document_id", "annotator__username", "status", "tab_extra"))
    layer_ids = [row["id"] for row in layer_rows]
    links = defaultdict(list)
    for source_id, target in (
        MentionLink.objects.filter(source__layer_id__in=layer_ids)
        .order_by("source_id", "position", "id")
        .values_list("source_id", "target__tab_mention_id")
    ):
        links[source_id].append(target)
    mentions = defaultdict(list)
    for row in (
        Mention.objects.filter(layer_id__in=layer_ids)
        .order_by("layer_id", "start_offset", "end_offset", "position", "id")
        .values(*_MENTION_FIELDS)
    ):
        related = links.get(row["id"], []) if row["related_mentions_present"] else None
        mentions[row["layer_id"]].append(_mention_dict(row, related))
    by_document = defaultdict(list)
    for row in layer_rows:
        by_document[row["document_id"]].append(row)
    return by_document, mentions


def _document_dict(document: Document, layers: list[dict], mentions: dict) -> dict:
    absent = set(document.tab_absent_keys)
    annotations = {
        row["annotator__username"]: {"entity_mentions": mentions.get(row["id"], []), **row["tab_extra"]}
        for row in layers
    }
    quality_checked = [row["annotator__username"] for row in layers if row["status"] == LayerStatus.REVIEWED]
    fields = {
        "annotations": annotations,
        "quality_checked": quality_checked,
        "text": document.text,
        "task": document.task,
        "meta": document.meta,
        "doc_id": document.doc_id,
        "dataset_type": document.dataset_type,
    }
    # An optional key absent from the source stays absent, unless it now has content.
    keep_if_filled = {"annotations": annotations, "quality_checked": quality_checked}
    result = {}
    for key, value in fields.items():
        if key in absent and not keep_if_filled.get(key):
            continue
        result[key] = value
    result.update(document.tab_extra)
    return result


def iter_tab_documents(
    documents: QuerySet[Document], *, finished_only: bool = False, annotators: Collection[str] | None = None
) -> Iterator[dict]:
    """Yield each document as a TAB dict, reading the database in chunks. ``annotators``:
    only these annotators' layers (None: everybody's)."""
    ordered = documents.order_by("corpus_id", "position", "id")
    for chunk in _chunks(ordered, CHUNK):
        layers, mentions = _annotations(chunk, finished_only, annotators)
        for document in chunk:
            yield _document_dict(document, layers.get(document.pk, []), mentions)


def tab_json_chunks(documents: Iterable[dict]) -> Iterator[str]:
    """The text of a TAB file, piece by piece, in the official files' style (one JSON
    list, UTF-8 characters not escaped)."""
    yield "["
    for index, document in enumerate(documents):
        yield (", " if index else "") + json.dumps(document, ensure_ascii=False)
    yield "]"


def write_tab_json(documents: Iterable[dict], out: TextIO) -> int:
    """Write a TAB file; returns the number of documents written."""
    count = 0

    def counted():
        nonlocal count
        for document in documents:
            count += 1
            yield document

    for chunk in tab_json_chunks(counted()):
        out.write(chunk)
    return count
