"""Protected documents read from files, for an attack outside any corpus (the
``reidentify`` command): a release file, or a column of a published WikiActors frame.

- A release file: the TRI frame export (rows ``{name, doc_id, <strategy>_abstract}``) or
  rows ``{name, doc_id, text}`` (the JSON export with each row's person added). The person
  to protect is the row's ``name``; a row without one is refused, naming the field.
- A WikiActors frame (``name`` and one column per method: ``original_abstract``,
  ``spacy_abstract``, ``manual_abstract`` ...): the protected texts are one column, the
  persons ``name``. A row whose cell is empty (the frame's ``dev_abstract`` is often
  null) is left out, with why."""

from dataclasses import dataclass, field
from pathlib import Path

from sanitize_app.engine.reidentification.types import ProtectedText

from .background import json_objects
from .errors import DomainError

PERSON = "name"


@dataclass
class ProtectedFile:
    texts: list[ProtectedText]
    skipped: list[dict] = field(default_factory=list)  # [{doc_id, reason}]
    label: str = ""  # what was attacked, in words: "frame.json: manual_abstract"


def read_rows(path: Path) -> list[dict]:
    """The file's objects (``background.json_objects``); a file with none is refused."""
    rows = json_objects(path)
    if not rows:
        raise DomainError(f"{path.name} has no row.", field="file")
    return rows


def release_text_column(path: Path, row: dict, number: int) -> str:
    """The column of a release file's row that holds the sanitized text."""
    columns = [key for key in row if key.endswith("_abstract")] or [key for key in ("text",) if key in row]
    if len(columns) != 1:
        raise DomainError(
            f"{path.name}: row {number} has {'no' if not columns else 'more than one'} text column "
            f"(a TRI frame's <strategy>_abstract or 'text'; it has {', '.join(row) or 'none'}).",
            field="text",
        )
    return columns[0]


def protected_from_release_file(path: Path) -> ProtectedFile:
    rows = read_rows(path)
    texts = []
    column = release_text_column(path, rows[0], 1)
    for number, row in enumerate(rows, start=1):
        doc_id = str(row.get("doc_id") or f"row {number}")
        person = row.get(PERSON)
        if not isinstance(person, str) or not person.strip():
            raise DomainError(
                f"{path.name}: row {number} ({doc_id}) has no {PERSON!r}, the person the document protects "
                "(export the release's TRI frame, which names them).",
                field=PERSON,
            )
        text = row.get(column)
        if not isinstance(text, str):
            raise DomainError(f"{path.name}: row {number} ({doc_id}) has no text in {column!r}.", field=column)
        texts.append(ProtectedText(doc_id=doc_id, person=person.strip(), text=text))
    return ProtectedFile(texts=texts, label=f"{path.name}: {column}")


def protected_from_wikiactors(path: Path, column: str) -> ProtectedFile:
    rows = read_rows(path)
    present = list(rows[0])
    if column not in present:
        raise DomainError(
            f"{path.name} has no column {column!r}; its columns are {', '.join(present)}.", field="column"
        )
    protected = ProtectedFile(texts=[], label=f"{path.name}: {column}")
    for number, row in enumerate(rows, start=1):
        person = row.get(PERSON)
        if not isinstance(person, str) or not person.strip():
            raise DomainError(f"{path.name}: row {number} has no {PERSON!r} (the person it is about).", field=PERSON)
        doc_id = str(row.get("doc_id") or person.strip())
        text = row.get(column)
        if not isinstance(text, str) or not text.strip():
            protected.skipped.append({"doc_id": doc_id, "reason": f"row {number} has no text in {column!r}"})
            continue
        protected.texts.append(ProtectedText(doc_id=doc_id, person=person.strip(), text=text))
    if not protected.texts:
        raise DomainError(f"{path.name}: no row has a text in column {column!r}.", field="column")
    return protected
