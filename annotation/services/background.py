"""The background corpus of the web-search indicator: importing it, and searching it.

``DatabaseSearchBackend`` is the engine's default search backend: documents of the
background corpus stand for web pages; a query returns the best-ranked documents that
contain every phrase (PostgreSQL text search, or SQLite FTS5)."""

import json
import re
from collections.abc import Iterator
from pathlib import Path

from django.db import connection, transaction

from ..corpus_io.errors import Problem, TabImportError
from ..models import BackgroundDocument

BATCH = 500


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "_", text.strip().lower()).strip("_")


def _rows(path: Path, collection: str) -> Iterator[dict]:
    """Rows of a background file: a JSON list of WikiActors rows (``name``,
    ``public_knowledge``) or of ``{"title", "url", "text"}`` objects, or JSON lines."""
    raw = path.read_text(encoding="utf-8")
    try:
        data = json.loads(raw)
        items = data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        try:
            items = [json.loads(line) for line in raw.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise TabImportError([Problem(f"{path.name} is neither JSON nor JSON lines: {exc}")]) from None
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise TabImportError([Problem(f"{path.name}: row {number} is not an object")])
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
