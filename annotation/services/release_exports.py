"""Files of a finished release. Only sanitized text leaves: never the original text, nor a
decision's ``original`` or the attacker's guesses (they repeat the original).

Formats (``export_release(release, fmt)``):
- "json": ``[{doc_id, text, spans: [{start, end, replacement, entity_type,
  identifier_type, reason}]}]``; ``text`` is the sanitized text, the offsets are into the
  original (so the release can be scored with the TAB metrics against any layer);
- "zip": ``<doc_id>.txt`` per document (the sanitized text), with ``manifest.json``
  (release, corpus, strategy, source, settings, metrics, documents) and a ``README.txt``;
- "masks": the official masked-output file of the TAB evaluation script,
  ``{"doc_id": [[start, end], ...]}``;
- "tri": a TRI frame in the WikiActors layout (issue 16 reads either): a JSON list of rows
  ``{"name": <the person to protect>, "doc_id": ..., "<strategy>_abstract": <sanitized
  text>}``, i.e. pandas ``orient="records"``, the column named like the published
  ``<method>_abstract`` columns. It names each protected person, the ground truth a
  re-identification attack is scored against: a file for measuring risk, never to publish.

Only the release's done documents are written, in corpus order."""

import io
import json
import re
import zipfile
from collections.abc import Iterator

from ..models import Document, Release, ReleaseDocument
from .errors import DomainError

FORMATS = ("json", "zip", "masks", "tri")
SPAN_KEYS = ("start", "end", "replacement", "entity_type", "identifier_type", "reason")
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def export_release(release: Release, fmt: str) -> tuple[str, str, bytes]:
    """(file name, content type, content) of ``release`` in format ``fmt``."""
    if fmt not in FORMATS:
        raise DomainError(f"Unknown export format {fmt!r}: one of {', '.join(FORMATS)}.", field="format")
    if release.status != Release.Status.SUCCEEDED:
        raise DomainError(
            f"Release {release.pk} is {release.status}: only a succeeded release can be exported.", field="release"
        )
    stem = f"release-{release.pk}-{release.strategy}"
    if fmt == "json":
        rows = [
            {"doc_id": doc_id, "text": text, "spans": [public_span(span, original) for span in spans]}
            for doc_id, _, text, spans, original in released_documents(release, with_original=True)
        ]
        return f"{stem}.json", "application/json", dump(rows)
    if fmt == "masks":
        masks = {
            doc_id: [[span["start"], span["end"]] for span in spans]
            for doc_id, _, _, spans, _ in released_documents(release)
        }
        return f"{stem}-masks.json", "application/json", dump(masks)
    if fmt == "tri":
        column = tri_column(release)
        rows = [
            {"name": person, "doc_id": doc_id, column: text}
            for doc_id, person, text, _, _ in released_documents(release)
        ]
        return f"{stem}-tri.json", "application/json", dump(rows)
    return f"{stem}.zip", "application/zip", zip_release(release)


def tri_column(release: Release) -> str:
    return f"{release.strategy}_abstract"


def public_span(span: dict, original: str) -> dict:
    """The span's public keys; a reason that quotes the original span (an attacker's
    explanation may) has it replaced."""
    public = {key: span[key] for key in SPAN_KEYS}
    replaced = original[span["start"] : span["end"]]
    if replaced.strip() and replaced.lower() in public["reason"].lower():
        public["reason"] = re.sub(re.escape(replaced), "the original", public["reason"], flags=re.IGNORECASE)
    return public


def dump(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, indent=1).encode("utf-8")


def released_documents(release: Release, *, with_original: bool = False) -> Iterator[tuple]:
    """(doc_id, person to protect, sanitized text, spans, original text or "") of each
    done document; the original is read only to check what leaves, never written."""
    fields = ["document__doc_id", "document__person_to_protect", "document__task", "sanitized_text", "spans"]
    rows = (
        ReleaseDocument.objects.filter(release=release, status=ReleaseDocument.Status.DONE)
        .order_by("document__position", "document_id")
        .values_list(*fields, *(["document__text"] if with_original else []))
    )
    for doc_id, person, task, text, spans, *original in rows.iterator(chunk_size=50):
        yield doc_id, person or Document.person_from_task(task), text, spans, original[0] if original else ""


def manifest(release: Release, doc_ids: list[str]) -> dict:
    return {
        "release": release.pk,
        "corpus": release.corpus.name,
        "strategy": release.strategy,
        "source": release.source,
        "annotator": release.annotator.get_username() if release.annotator else "",
        "created_at": release.created_at.isoformat(),
        "finished_at": release.finished_at.isoformat() if release.finished_at else None,
        "settings": release.settings,
        "metrics": release.metrics,
        "documents": doc_ids,
    }


def file_name(doc_id: str, used: set[str]) -> str:
    """``<doc_id>.txt``, characters unsafe in a path replaced, unique in the archive."""
    base = _UNSAFE_NAME.sub("_", doc_id).strip("._") or "document"
    name, number = f"{base}.txt", 2
    while name in used:
        name, number = f"{base}-{number}.txt", number + 1
    used.add(name)
    return name


def zip_release(release: Release) -> bytes:
    buffer, used, doc_ids = io.BytesIO(), {"README.txt", "manifest.json"}, []
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for doc_id, _, text, _, _ in released_documents(release):
            archive.writestr(file_name(doc_id, used), text)
            doc_ids.append(doc_id)
        archive.writestr("manifest.json", dump(manifest(release, doc_ids)))
        archive.writestr("README.txt", readme(release, len(doc_ids)))
    return buffer.getvalue()


def readme(release: Release, documents: int) -> str:
    metrics = release.metrics or {}
    return (
        f"Sanitized release {release.pk} of corpus {release.corpus.name}\n"
        f"Strategy: {release.get_strategy_display()} ({release.strategy})\n"
        f"Source of the spans: {release.source}"
        + (f" ({release.annotator.get_username()})" if release.annotator else "")
        + f"\nDocuments: {documents}, one <doc_id>.txt each (the sanitized text only).\n"
        f"TPS: {metrics.get('TPS')}  ER_di: {metrics.get('ER_di')}  ER_qi: {metrics.get('ER_qi')}\n"
        "manifest.json gives the settings and metrics of the release.\n"
    )
