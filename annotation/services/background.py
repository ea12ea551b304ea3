"""The background corpus: importing it, searching it (the web-search indicator) and
reading it pretreated (the re-identification attacker).

``DatabaseSearchBackend`` is the engine's default search backend: documents of the
background corpus stand for web pages; a query returns the best-ranked documents that
contain every phrase (PostgreSQL text search, or SQLite FTS5)."""

import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from django.db import connection, transaction
from django.db.models import Count, Max

from sanitize_app.engine.reidentification.types import BackgroundText

from ..corpus_io.errors import Problem, TabImportError
from ..models import BackgroundDocument
from .errors import DomainError

BATCH = 500
# Documents pretreated then saved together: spaCy reads a batch at a time, progress moves
# and a worker that is lost redoes little.
PRETREATMENT_BATCH = 20

Progress = Callable[[int, int], None]


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "_", text.strip().lower()).strip("_")


def json_objects(path: Path) -> list[dict]:
    """The objects of a file holding a JSON list of objects (pandas ``orient="records"``),
    one object, or JSON lines; DomainError (field "file") naming what is wrong."""
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DomainError(f"{path} cannot be read: {exc}", field="file") from None
    try:
        data = json.loads(raw)
        rows = data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        try:
            rows = [json.loads(line) for line in raw.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise DomainError(f"{path.name} is neither JSON nor JSON lines: {exc}", field="file") from None
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise DomainError(f"{path.name}: row {number} is not an object.", field="file")
    return rows


def _rows(path: Path, collection: str) -> Iterator[dict]:
    """Rows of a background file: a JSON list of WikiActors rows (``name``,
    ``public_knowledge``) or of ``{"title", "url", "text"}`` objects, or JSON lines."""
    try:
        items = json_objects(path)
    except DomainError as exc:
        raise TabImportError([Problem(exc.message)]) from None
    for number, item in enumerate(items, start=1):
        text = item.get("text") or item.get("public_knowledge")
        title = item.get("title") or item.get("name") or ""
        if not isinstance(text, str) or not text.strip():
            raise TabImportError(
                [Problem(f"{path.name}: row {number} ({title or 'untitled'}) has no text", field="text")]
            )
        url = item.get("url") or f"{collection}:{_slug(title) or number}"
        yield {"title": str(title)[:300], "url": str(url)[:500], "text": text}


@transaction.atomic
def import_background(path: Path, collection: str, *, replace: bool = False) -> int:
    """Store the documents of ``path`` in ``collection``; all or nothing."""
    if replace:
        BackgroundDocument.objects.filter(collection=collection).delete()
    existing = set(BackgroundDocument.objects.filter(collection=collection).values_list("url", flat=True))
    batch, count = [], 0
    for row in _rows(path, collection):
        if row["url"] in existing:
            continue
        existing.add(row["url"])
        batch.append(BackgroundDocument(collection=collection, **row))
        if len(batch) >= BATCH:
            BackgroundDocument.objects.bulk_create(batch)
            count, batch = count + len(batch), []
    BackgroundDocument.objects.bulk_create(batch)
    return count + len(batch)


def background_state(collection: str) -> tuple[int, int]:
    """(documents, newest id) of ``collection``: what changes when it is re-imported.
    A collection without documents is refused, naming the field."""
    state = BackgroundDocument.objects.filter(collection=collection).aggregate(count=Count("id"), last=Max("id"))
    if not state["count"]:
        raise DomainError(
            f"The background collection {collection!r} has no document "
            f"(python manage.py import_background FILE --collection {collection}).",
            field="background_collection",
        )
    return state["count"], state["last"]


def pretreated_background(collection: str, pretreatment, progress: Progress | None = None) -> list[BackgroundText]:
    """The documents of ``collection`` as the attacker reads them (``pretreat_stale``
    first). A collection without documents is refused."""
    background_state(collection)
    pretreat_stale(collection, pretreatment, progress)
    rows = (
        BackgroundDocument.objects.filter(collection=collection)
        .order_by("id")
        .values_list("title", "url", "pretreated", "augmented")
    )
    return [
        BackgroundText(person=title or url, words=split_words(words), augmented=split_words(augmented))
        for title, url, words, augmented in rows.iterator(chunk_size=BATCH)
    ]


def pretreat_stale(collection: str, pretreatment, progress: Progress | None = None) -> int:
    """Pretreat the documents of ``collection`` that another pretreatment (or none) left,
    a batch at a time, and save them, so every worker after this one reads them from the
    database (``progress(done, total)`` counts them). Returns how many there were."""
    documents = BackgroundDocument.objects.filter(collection=collection).exclude(pretreatment=pretreatment.key)
    stale = list(documents.order_by("id").values_list("id", flat=True))
    # Workers that start on the same stale collection at once take its batches in their
    # own random orders and skip what another has saved meanwhile: they share the work
    # instead of each doing all of it.
    starts = list(range(0, len(stale), PRETREATMENT_BATCH))
    random.shuffle(starts)
    for done, start in enumerate(starts, start=1):
        ids = stale[start : start + PRETREATMENT_BATCH]
        batch = list(BackgroundDocument.objects.filter(pk__in=ids).exclude(pretreatment=pretreatment.key).only("text"))
        if batch:  # else all saved by another worker meanwhile
            _pretreat_batch(batch, pretreatment)
        if progress:
            progress(min(done * PRETREATMENT_BATCH, len(stale)), len(stale))
    return len(stale)


def _pretreat_batch(batch: list[BackgroundDocument], pretreatment) -> None:
    for document, (words, augmented) in zip(
        batch, pretreatment.background([document.text for document in batch]), strict=True
    ):
        document.pretreated, document.augmented = " ".join(words), " ".join(augmented)
        document.pretreatment = pretreatment.key
    BackgroundDocument.objects.bulk_update(batch, ["pretreated", "augmented", "pretreatment"])


def pretreated_file(
    path: Path, pretreatment, progress: Progress | None = None, *, collection: str = "file"
) -> list[BackgroundText]:
    """The rows of a background file (see ``_rows``) pretreated in memory, for an attack
    that needs no database collection."""
    rows = list(_rows(path, collection))
    texts = []
    for start in range(0, len(rows), PRETREATMENT_BATCH):
        batch = rows[start : start + PRETREATMENT_BATCH]
        for row, (words, augmented) in zip(batch, pretreatment.background([row["text"] for row in batch]), strict=True):
            texts.append(
                BackgroundText(person=row["title"] or row["url"], words=tuple(words), augmented=tuple(augmented))
            )
        if progress:
            progress(len(texts), len(rows))
    return texts


def split_words(joined: str) -> tuple[str, ...]:
    """Stored pretreated words back as words (they hold no space)."""
    return tuple(joined.split(" ")) if joined else ()


class DatabaseSearchBackend:
    """Searches the background corpus stored in the database."""

    def __init__(self, collections: list[str] | None = None):
        self.collections = collections
        self.name = "background corpus" + (f" ({', '.join(collections)})" if collections else "")
        self._cache: dict[tuple, list[str]] = {}

    def forget(self) -> None:
        """Drop remembered results (the background corpus may have changed)."""
        self._cache.clear()

    def _documents(self):
        documents = BackgroundDocument.objects.all()
        return documents.filter(collection__in=self.collections) if self.collections else documents

    @property
    def available(self) -> bool:
        return self._documents().exists()

    @property
    def unavailable_reason(self) -> str:
        return "" if self.available else "the background corpus is empty (python manage.py import_background FILE)"

    def urls(self, phrases: list[str], limit: int = 10) -> list[str]:
        phrases = [p.strip() for p in phrases if p.strip()]
        if not phrases:
            return []
        key = (tuple(sorted(phrases)), limit)
        if key not in self._cache:
            self._cache[key] = self._search(phrases, limit)
        return self._cache[key]

    def _search(self, phrases: list[str], limit: int) -> list[str]:
        collections = self.collections or []
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                vector = "to_tsvector('english', d.title || ' ' || d.text)"
                conditions = " AND ".join([f"{vector} @@ phraseto_tsquery('english', %s)"] * len(phrases))
                where = f"{conditions}" + (" AND d.collection = ANY(%s)" if collections else "")
                params = [*phrases, *([collections] if collections else []), phrases[0], limit]
                cursor.execute(
                    f"SELECT d.url FROM annotation_backgrounddocument d WHERE {where} "
                    f"ORDER BY ts_rank({vector}, phraseto_tsquery('english', %s)) DESC, d.id LIMIT %s",
                    params,
                )
            else:
                query = " AND ".join('"' + p.replace('"', '""') + '"' for p in phrases)
                collection_filter = (
                    f" AND d.collection IN ({', '.join(['%s'] * len(collections))})" if collections else ""
                )
                cursor.execute(
                    "SELECT d.url FROM annotation_backgrounddocument_fts f "
                    "JOIN annotation_backgrounddocument d ON d.id = f.rowid "
                    f"WHERE annotation_backgrounddocument_fts MATCH %s{collection_filter} "
                    "ORDER BY f.rank, d.id LIMIT %s",
                    [query, *collections, limit],
                )
            return [row[0] for row in cursor.fetchall()]
