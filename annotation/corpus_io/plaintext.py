"""Plain-text documents: a folder of ``.txt`` files plus a table naming, for each
document, the person to protect.

The table is a CSV file with a header (columns ``file`` or ``doc_id``, ``person``, and
optionally ``dataset_type``) or a JSON file: either ``{"file.txt": "Person"}`` or a list
of objects with those keys. A document's ``doc_id`` is the file name without ``.txt``.
"""

import csv
import json
from collections.abc import Iterator
from pathlib import Path

from ..enums import DatasetType
from ..models import Document
from .errors import Problem, TabImportError
from .records import DocumentRecord

Entry = dict[str, str]


def _entries_from_rows(rows: list, source: Path) -> dict[str, Entry]:
    entries: dict[str, Entry] = {}
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise TabImportError([Problem(f"{source.name} entry {number} is not an object")])
        name = str(row.get("file") or row.get("doc_id") or "").strip()
        if not name:
            raise TabImportError([Problem(f"{source.name} entry {number} has no 'file' or 'doc_id'", field="file")])
        doc_id = name[:-4] if name.endswith(".txt") else name
        if doc_id in entries:
            raise TabImportError([Problem(f"{source.name} names {doc_id} twice", document=doc_id)])
        entries[doc_id] = {
            "person": str(row.get("person") or "").strip(),
            "dataset_type": str(row.get("dataset_type") or "").strip(),
        }
    return entries


def read_person_table(path: Path) -> dict[str, Entry]:
    """doc_id -> {"person", "dataset_type"} from a CSV or JSON table."""
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            rows = [{"file": key, "person": value} for key, value in data.items()] if isinstance(data, dict) else data
            if not isinstance(rows, list):
                raise TabImportError([Problem(f"{path.name} must hold an object or a list")])
            return _entries_from_rows(rows, path)
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            if not reader.fieldnames or "person" not in reader.fieldnames:
                raise TabImportError(
                    [Problem(f"{path.name} needs a header with a 'person' column and a 'file' or 'doc_id' column")]
                )
            return _entries_from_rows(list(reader), path)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, csv.Error) as exc:
        raise TabImportError([Problem(f"cannot read {path.name}: {exc}")]) from None


def iter_plaintext_records(
    folder: Path, table: Path, existing_doc_ids: set[str] = frozenset()
) -> Iterator[tuple[DocumentRecord | None, list[Problem]]]:
    """One record per ``.txt`` file, in file-name order, with the problems of each."""
    if not folder.is_dir():
        raise TabImportError([Problem(f"{folder} is not a folder")])
    entries = read_person_table(table)
    files = sorted(folder.glob("*.txt"))
    for index, path in enumerate(files):
        doc_id = path.stem
        entry = entries.pop(doc_id, None)
        problems = []
        if doc_id in existing_doc_ids:
            problems.append(
                Problem("a document with this doc_id is already in the corpus", document=doc_id, field="doc_id")
            )
        if entry is None or not entry["person"]:
            problems.append(
                Problem(f"{table.name} gives no person to protect for {path.name}", document=doc_id, field="person")
            )
        elif entry["dataset_type"] not in (*DatasetType.values, ""):
            problems.append(
                Problem(
                    f"dataset_type {entry['dataset_type']!r} is not one of train, dev, test",
                    document=doc_id,
                    field="dataset_type",
                )
            )
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as exc:
            problems.append(
                Problem(
                    f"{path.name} is not UTF-8 text ({exc.reason} at byte {exc.start})", document=doc_id, field="text"
                )
            )
            text = ""
        if not problems and not text.strip():
            problems.append(Problem(f"{path.name} is empty", document=doc_id, field="text"))
        if problems:
            yield None, problems
            continue
        person = entry["person"]
        yield (
            DocumentRecord(
                doc_id=doc_id,
                text=text,
                person_to_protect=person,
                task=Document.task_for(person),
                meta={},
                dataset_type=entry["dataset_type"],
                layers=[],
                position=index,
                absent_keys=[] if entry["dataset_type"] else ["dataset_type"],
            ),
            [],
        )
    for doc_id in sorted(entries):
        yield (
            None,
            [Problem(f"{table.name} names {doc_id}.txt, which is not in {folder}", document=doc_id, field="file")],
        )
    if not files and not entries:
        yield None, [Problem(f"no .txt files in {folder}")]
