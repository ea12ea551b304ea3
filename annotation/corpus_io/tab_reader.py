"""Streaming the documents out of a TAB file (a JSON list) without loading it whole."""

from collections.abc import Iterator
from typing import BinaryIO

import ijson

from .errors import Problem, TabImportError

_BOM = b"\xef\xbb\xbf"


def _skip_to_content(stream: BinaryIO) -> None:
    """Position the stream after an optional UTF-8 BOM and check that the file is a list."""
    head = stream.read(64)
    offset = len(_BOM) if head.startswith(_BOM) else 0
    first = head[offset:].lstrip()[:1]
    if not first:
        raise TabImportError([Problem("the file is empty: a TAB corpus is a JSON list of documents")])
    if first != b"[":
        raise TabImportError(
            [
                Problem(
                    "a TAB corpus must be a JSON list of documents, "
                    f"but the file starts with {first.decode(errors='replace')!r}"
                )
            ]
        )
    stream.seek(offset)


def iter_raw_documents(stream: BinaryIO) -> Iterator[object]:
    """Yield each element of the top-level JSON list, parsed, one at a time.

    Malformed JSON raises ``TabImportError`` saying after which document it broke."""
    _skip_to_content(stream)
    count = 0
    last_id = None
    try:
        for item in ijson.items(stream, "item", use_float=True):
            count += 1
            last_id = item.get("doc_id") if isinstance(item, dict) else None
            yield item
    except ijson.JSONError as exc:
        after = f" after document {count} (doc_id {last_id})" if count else " before the first document"
        detail = " ".join(str(exc).split())
        raise TabImportError([Problem(f"malformed JSON{after}: {detail}")]) from None
