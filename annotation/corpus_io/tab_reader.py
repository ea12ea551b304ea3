"""Streaming the documents out of a TAB file (a JSON list) without loading it whole.

The documents are assembled here from the parser's events (ijson ``basic_parse``)
rather than by ``ijson.items``, so that every limit of ``limits`` is checked as each
value arrives, before anything deep or large is built, and so that a problem can be
named by the document and the field where it sits. Besides the limits, a document is
refused for what JSON allows but a corpus cannot hold: a key twice in one object, NUL
characters in strings, integers beyond 64 bits. (Invalid UTF-8 and lone surrogate
escapes such as ``"\\udc00"`` never reach the parser: ``checked_stream`` stops them.)

Such a document is skipped to its end (only depth is counted, nothing is built) and
yielded as ``Unreadable`` so that the rest of the file is still checked. A limit
exceeded, malformed JSON and invalid UTF-8 stop the reading at once (``TabImportError``):
going on through a hostile file would only spend time.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import BinaryIO

import ijson

from . import limits
from .checked_stream import CheckedStream, InvalidBytes
from .errors import Problem, TabImportError, quote

try:  # the C parser; the pure-Python one is 20 times slower but gives the same results here
    _backend = ijson.get_backend("yajl2_c")
except ImportError:  # pragma: no cover - depends on the installed wheel
    _backend = ijson.get_backend("python")

# NUL cannot be stored by PostgreSQL (nor exported faithfully). (A lone surrogate, which
# is not a character, cannot reach a string: ``CheckedStream`` refuses its escape.)
_NUL = "\x00"
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,59}\Z")
_USERNAME = re.compile(r"[\w.@+-]{1,150}\Z")
_INT64 = 2**63


@dataclass(frozen=True)
class Unreadable:
    """A document refused while it was read (its content was never built)."""

    problems: list[Problem]


class _Refused(Exception):
    """The current document breaks a rule; ``message`` says which, at the current path."""

    def __init__(self, message: str, *, key: str | None = None, limit: bool = False):
        super().__init__(message)
        self.message = message
        self.key = key  # when the culprit is a key of the innermost object
        self.limit = limit  # a limit was exceeded: stop reading


def iter_raw_documents(stream: BinaryIO) -> Iterator[object]:
    """Yield each element of the top-level JSON list, built, one at a time, or an
    ``Unreadable`` for one that breaks a rule while it was read."""
    source = CheckedStream(stream, limits.MAX_FILE_BYTES)
    return _Assembler(source).documents(_backend.basic_parse(source, use_float=True))


class _Assembler:
    """Builds one document at a time from parser events, checking every limit."""

    def __init__(self, source: CheckedStream):
        self.source = source
        self.index = -1  # of the current document in the file
        self.last_doc_id = None  # of the last complete document
        self.closed = False  # the top-level list has ended
        self._new_document()

    def _new_document(self) -> None:
        self.stack: list = []  # containers from the document down to the current one
        self.keys: list = []  # for each dict of the stack, the key being read
        self.caps: list = []  # for each container, how many members it may have (None: no cap)
        self.chars = self.values = 0
        self.skipping = 0  # depth still open in a refused document (0: not skipping)
        self.refused: Problem | None = None
        self.skipped_key = self.skipped_doc_id = None  # a doc_id met while skipping names the document

    def documents(self, events) -> Iterator[object]:
        events = iter(events)
        try:
            self._expect_list(next(events, None))
            yield from self._assemble(events)
        except (ijson.JSONError, UnicodeDecodeError, InvalidBytes, ValueError) as exc:
            raise TabImportError(self._fatal(exc)) from None

    def _assemble(self, events) -> Iterator[object]:
        """The loop over every event of the file. Keys and scalars that pass every check
        are stored inline, with the counters in local variables (most events: this loop
        is the import's inner loop); anything else goes through ``_feed``, which checks
        again and says what is wrong."""
        max_string, max_values, max_chars = (
            limits.MAX_STRING_CHARS,
            limits.MAX_DOCUMENT_VALUES,
            limits.MAX_DOCUMENT_CHARS,
        )
        stack, keys, caps = self.stack, self.keys, self.caps
        values = chars = skipping = 0
        for event, value in events:
            if skipping:
                done = self._skip(event, value)
                skipping = self.skipping
            else:
                if stack and values < max_values and caps[-1] is None:
                    if event == "map_key":
                        if (
                            len(value) <= max_string
                            and chars + len(value) <= max_chars
                            and value not in stack[-1]
                            and _NUL not in value
                        ):
                            values += 1
                            chars += len(value)
                            keys[-1] = value
                            continue
                    elif (
                        (
                            (event == "string" and len(value) <= max_string and chars + len(value) <= max_chars)
                            and _NUL not in value
                        )
                        or (event == "number" and (type(value) is float or -_INT64 <= value < _INT64))
                        or event == "boolean"
                        or event == "null"
                    ):
                        values += 1
                        if event == "string":
                            chars += len(value)
                        parent = stack[-1]
                        if type(parent) is dict:
                            parent[keys[-1]] = value
                        else:
                            parent.append(value)
                        continue
                self.values, self.chars = values, chars
                try:
                    done = self._feed(event, value)
                except _Refused as refusal:
                    if refusal.limit:
                        raise TabImportError([self._problem(refusal.message)]) from None
                    done = self._refuse(refusal, event)
                values, chars, skipping = self.values, self.chars, self.skipping
            if done is not None:
                yield done[0]
                document = done[0]
                self.last_doc_id = (
                    document.problems[0].document if type(document) is Unreadable else self._doc_id(document)
                )
                self._new_document()
                stack, keys, caps = self.stack, self.keys, self.caps
                values = chars = skipping = 0

    def _expect_list(self, first) -> None:
        if first is None:  # no event and no error: nothing but whitespace
            raise TabImportError([Problem("the file is empty: a TAB corpus is a JSON list of documents")])
        if first[0] != "start_array":
            kind = {"start_map": "an object", "string": "a string", "number": "a number"}.get(first[0], "a scalar")
            raise TabImportError([Problem(f"a TAB corpus must be a JSON list of documents, but the file holds {kind}")])

    # -- building ---------------------------------------------------------------------

    def _feed(self, event: str, value) -> tuple | None:
        """Apply one event; return ``(document,)`` when a document is complete."""
        stack = self.stack
        if not stack and event != "end_array" and event != "end_map":
            self.index += 1  # a new element of the top-level list
        if event == "map_key":
            self._check_string(value, key=value)
            if value in stack[-1]:
                raise _Refused("this key appears twice in the same object", key=value)
            self.keys[-1] = value
            return None
        if event == "string":
            self._check_string(value)
        elif event == "number":
            self._count()
            if isinstance(value, int) and not -_INT64 <= value < _INT64:
                raise _Refused("an integer is out of range (beyond 64 bits)")
        elif event == "start_map" or event == "start_array":
            self._count()
            if len(stack) + 2 > limits.MAX_DEPTH:  # the top-level list is one level
                raise _Refused(f"nesting deeper than the limit of {limits.MAX_DEPTH} levels", limit=True)
            container = {} if event == "start_map" else []
            if stack:
                cap = self._cap(event)
                self._attach(container)
            else:
                cap = None
            stack.append(container)
            self.keys.append(None)
            self.caps.append(cap)
            return None
        elif event == "end_map" or event == "end_array":
            if not stack:  # the end of the top-level list
                self.closed = True
                return None
            done = stack.pop()
            self.keys.pop()
            self.caps.pop()
            return None if stack else (done,)
        else:  # boolean, null
            self._count()
        if not stack:  # a scalar where a document should be: the parser names it
            return (value,)
        self._attach(value)
        return None

    def _attach(self, value) -> None:
        parent = self.stack[-1]
        cap = self.caps[-1]
        if cap is not None and len(parent) >= cap[0]:
            raise _Refused(cap[1], limit=True)
        if type(parent) is dict:
            parent[self.keys[-1]] = value
        else:
            parent.append(value)

    def _cap(self, event: str) -> tuple[int, str] | None:
        """The members a new container may hold, when its place in a TAB document
        calls for a cap: layers of a document, mentions of a layer."""
        keys, depth = self.keys, len(self.stack)
        if depth == 1 and keys[0] == "annotations" and event == "start_map":
            limit = limits.MAX_LAYERS_PER_DOCUMENT
            return limit, f"more layers (annotators) than the limit of {limit:,} per document"
        if depth == 3 and keys[0] == "annotations" and keys[2] == "entity_mentions" and event == "start_array":
            limit = limits.MAX_MENTIONS_PER_LAYER
            return limit, f"more mentions than the limit of {limit:,} per layer"
        return None

    def _check_string(self, value: str, key: str | None = None) -> None:
        self._count(len(value))
        if len(value) > limits.MAX_STRING_CHARS:
            raise _Refused(
                f"a string of {len(value):,} characters exceeds the limit of {limits.MAX_STRING_CHARS:,}",
                key=key,
                limit=True,
            )
        if _NUL in value:
            what = "key" if key is not None else "string"
            raise _Refused(f"the {what} holds a NUL character (\\u0000), which cannot be stored", key=key)

    def _count(self, chars: int = 0) -> None:
        self.values += 1
        self.chars += chars
        if self.values > limits.MAX_DOCUMENT_VALUES:
            raise _Refused(
                f"the document has more than the limit of {limits.MAX_DOCUMENT_VALUES:,} JSON values", limit=True
            )
        if self.chars > limits.MAX_DOCUMENT_CHARS:
            raise _Refused(
                f"the document has more than the limit of {limits.MAX_DOCUMENT_CHARS:,} characters", limit=True
            )

    # -- refusing -----------------------------------------------------------------------

    def _refuse(self, refusal: _Refused, event: str) -> tuple | None:
        """Record the refusal and skip the rest of the document, building nothing."""
        self.refused = self._problem(refusal.message, key=refusal.key)
        self.skipping = len(self.stack)
        if event in ("start_map", "start_array"):
            self.skipping += 1  # the container that was refused is open too
        elif event in ("end_map", "end_array"):  # pragma: no cover - closing never refuses
            self.skipping -= 1
        return self._skip(None, None)

    def _skip(self, event: str | None, value) -> tuple | None:
        if event == "start_map" or event == "start_array":
            self.skipping += 1
        elif event == "end_map" or event == "end_array":
            self.skipping -= 1
        elif self.skipping == 1 and event == "map_key":  # a key of the document itself
            self.skipped_key = value
        elif self.skipping == 1 and event == "string" and self.skipped_key == "doc_id":
            self.skipped_doc_id = value
        if self.skipping:
            return None
        refused = self.refused
        if self._doc_id({"doc_id": self.skipped_doc_id}) and refused.document == self._label():
            refused = replace(refused, document=self.skipped_doc_id)
        return (Unreadable([refused]),)

    def _fatal(self, exc: Exception) -> list[Problem]:
        if isinstance(exc, InvalidBytes):
            detail = str(exc)
        elif isinstance(exc, UnicodeDecodeError):  # yajl decodes "\udc00" to bytes it cannot read back
            detail = "a string holds a lone surrogate escape (such as \\udc00), which is not a character"
        else:
            text = exc.args[0] if exc.args else ""
            if isinstance(text, bytes):  # yajl's message, quoting the file's bytes
                text = text.decode("utf-8", "replace")
            lines = [line.strip() for line in str(text).splitlines() if line.strip()]
            detail = "malformed JSON: " + (lines[0] if lines else type(exc).__name__)
            if "invalid char in json text" in detail:
                detail += " (NaN, Infinity, comments and unquoted words are not JSON)"
            elif "invalid character inside string" in detail:
                detail += " (control characters such as NUL or a line break must be escaped)"
        previous = f"after document {self.index} (doc_id {self.last_doc_id})"
        if self.closed:
            return [Problem(f"{detail}, after the end of the list of documents")]
        if self.skipping:  # the document was refused already; its path is not followed
            return [self.refused, Problem(detail, document=self._label())]
        if self.stack:
            return [self._problem(f"{detail} ({previous})" if self.index > 0 else detail)]
        if self.index >= 0:
            return [Problem(f"{detail}, after document {self.index + 1} (doc_id {self.last_doc_id})")]
        if not self.source.saw_content and not isinstance(exc, InvalidBytes):
            return [Problem("the file is empty: a TAB corpus is a JSON list of documents")]
        return [Problem(f"{detail}, before the first document")]

    def _problem(self, message: str, *, key: str | None = None) -> Problem:
        """A problem of the current document, placed at the value (or key) being read."""
        # In a list, the value being read is the next one, or for an enclosing list the
        # last one (the container being filled).
        path = [len(c) - 1 if type(c) is list else k for c, k in zip(self.stack, self.keys, strict=True)]
        if path and type(self.stack[-1]) is list:
            path[-1] += 1
        if key is not None:
            path[-1] = key
        return Problem(message, document=self._label(), **self._where(path))

    def _label(self) -> str:
        doc_id = self._doc_id(self.stack[0] if self.stack else None)
        return doc_id if doc_id else f"#{self.index + 1} in the file"

    @staticmethod
    def _doc_id(document) -> str | None:
        doc_id = document.get("doc_id") if type(document) is dict else None
        if isinstance(doc_id, str) and 0 < len(doc_id) <= limits.MAX_ID_LENGTH and not _CONTROL.search(doc_id):
            return doc_id
        return None

    def _where(self, path: list) -> dict:
        """Annotator, mention and field of a path from the document root."""
        if len(path) < 2 or path[0] != "annotations":
            return {"field": _field(path)}
        name = path[1]
        where = {"annotator": name if isinstance(name, str) and _USERNAME.match(name) else quote(name)}
        rest = path[2:]
        if len(rest) >= 2 and rest[0] == "entity_mentions" and isinstance(rest[1], int):
            mention = self.stack[4] if len(self.stack) > 4 and type(self.stack[4]) is dict else {}
            mention_id = mention.get("entity_mention_id")
            usable = (
                isinstance(mention_id, str)
                and 0 < len(mention_id) <= limits.MAX_ID_LENGTH
                and not _CONTROL.search(mention_id)
            )
            where["mention"] = mention_id if usable else f"entity_mentions[{rest[1]}]"
            rest = rest[2:]
        if rest:
            where["field"] = _field(rest)
        return where


def _field(path: list) -> str | None:
    """``meta.articles[2]``; keys that are not plain names are quoted."""
    parts = []
    for key in path:
        if isinstance(key, int):
            parts.append(f"[{key}]")
        elif key is None:
            continue
        elif _PLAIN_KEY.match(key):
            parts.append(f".{key}" if parts else key)
        else:
            parts.append(f"[{quote(key)}]")
    if len(parts) > 12:  # deep nesting: the start and the end of the path say where
        parts = [*parts[:6], f"...({len(parts) - 9} more)...", *parts[-3:]]
    return "".join(parts) or None
