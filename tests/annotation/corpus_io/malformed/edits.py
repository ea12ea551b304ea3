"""Building blocks of the malformed corpus: the two real documents, and changes to them
that give the bytes of one file (see ``generate.py``)."""

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]
SAMPLE = REPO / "data" / "tab" / "tab_dev_sample.json"
A_ID, B_ID = "001-60516", "001-67582"  # two short judgments (3,011 and 3,085 characters)
A_DOC, B_DOC = f"document {A_ID}", f"document {B_ID}"
FIRST, SECOND = "document #1 in the file", "document #2 in the file"
MARK = "@@HERE@@"  # a placeholder value replaced by raw bytes after serialising
HEAVY_BYTES = 9_900_000  # a little under 10 MB, with room for the two real documents

_sources: list[dict] | None = None


def sources() -> list[dict]:
    """Fresh copies of the two real documents, in their original key order."""
    global _sources
    if _sources is None:
        by_id = {document["doc_id"]: document for document in json.loads(SAMPLE.read_text(encoding="utf-8"))}
        _sources = [by_id[A_ID], by_id[B_ID]]
    return copy.deepcopy(_sources)


def dump(documents, **options) -> bytes:
    return json.dumps(documents, ensure_ascii=False, **options).encode("utf-8")


def splice(documents, raw: bytes) -> bytes:
    """Serialise, then put ``raw`` (anything, even invalid JSON or bytes) where the
    placeholder string ``MARK`` was."""
    data = dump(documents)
    assert data.count(f'"{MARK}"'.encode()) == 1
    return data.replace(f'"{MARK}"'.encode(), raw)


def mention(document: dict, index: int = 0) -> dict:
    return document["annotations"]["annotator1"]["entity_mentions"][index]


def edited(change: Callable[[list[dict]], object]) -> Callable[[], bytes]:
    """A file of the two documents after ``change`` (which may return bytes)."""

    def build() -> bytes:
        documents = sources()
        result = change(documents)
        return result if isinstance(result, bytes) else dump(documents)

    return build


def nested(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[], bytes]
    refused: tuple[str, ...] | None = None  # words the refusal must hold; None: accepted
    documents: int = 2  # stored when accepted
    accounts: int = 0  # annotator accounts the accepted file creates besides annotator1


def accepted(name: str, build, documents: int = 2, accounts: int = 0) -> Case:
    return Case(name, build, None, documents, accounts)


def refused(name: str, build, *fragments: str) -> Case:
    return Case(name, build, fragments)


# -- changes to the documents --------------------------------------------------------


def rename(documents: list[dict], name: str) -> None:
    document = documents[1]
    document["annotations"] = {name: document["annotations"]["annotator1"]}
    document["quality_checked"] = [name]


def add_layer(documents: list[dict], name: str) -> None:
    documents[1]["annotations"][name] = copy.deepcopy(documents[1]["annotations"]["annotator1"])


def _set(document: dict, path: str, value) -> None:
    *parents, last = path.split(".")
    for key in parents:
        document = document[key]
    document[last] = value


def setting(index: int, path: str, value) -> Callable[[], bytes]:
    return edited(lambda documents: _set(documents[index], path, value))


def setting_mention(field: str, value, index: int = 1) -> Callable[[], bytes]:
    return edited(lambda documents: mention(documents[index]).__setitem__(field, value))


def raw_in_meta(raw: bytes, index: int = 1) -> Callable[[], bytes]:
    """``raw`` as the value of meta.year of the chosen document."""
    return edited(lambda documents: (_set(documents[index], "meta.year", MARK), splice(documents, raw))[1])


def raw_in_span_text(raw: bytes) -> Callable[[], bytes]:
    return edited(lambda documents: (mention(documents[1]).__setitem__("span_text", MARK), splice(documents, raw))[1])


def raw_in_text(raw: bytes, index: int = 1) -> Callable[[], bytes]:
    """``raw`` inside the text (and not in the mentions, which then do not match, but the
    file is refused before they are checked)."""

    def change(documents):
        documents[index]["text"] = documents[index]["text"][:40] + MARK
        return dump(documents).replace(MARK.encode(), raw)

    return edited(change)


def many_mentions(count: int) -> Callable[[], bytes]:
    def change(documents):
        layer = documents[1]["annotations"]["annotator1"]
        layer["entity_mentions"] = [MARK]
        return splice(documents, b",".join([b"{}"] * count))

    return edited(change)


def layers(count: int) -> Callable[[], bytes]:
    def change(documents):
        layer = documents[1]["annotations"]["annotator1"]
        documents[1]["annotations"] = {f"a{i}": layer for i in range(count)}
        documents[1]["quality_checked"] = []

    return edited(change)


def duplicate_key(where: str) -> Callable[[], bytes]:
    """The same key twice, by text surgery (a dict cannot hold it)."""

    def change(documents):
        data = dump(documents)
        needle = {
            "document": (b'"task": ', b'"task": "twice", "task": '),
            "mention": (b'"start_offset": ', b'"start_offset": 0, "start_offset": '),
            "meta": (b'"year": ', b'"year": 1, "year": '),
            "annotator": (b'{"annotator1": {', b'{"annotator1": {"entity_mentions": []}, "annotator1": {'),
        }[where]
        start = data.index(b'"doc_id": "001-60516"')  # in the second document only
        assert data.count(needle[0], start) >= 1, where
        return data[:start] + data[start:].replace(needle[0], needle[1], 1)

    return edited(change)


def many_duplicates(count: int) -> Callable[[], bytes]:
    pairs = b", ".join(b'"k": %d' % i for i in range(count))
    return raw_in_meta(b"{" + pairs + b"}")


def cut(fraction_of_second_text: float) -> Callable[[], bytes]:
    def change(documents):
        data = dump(documents)
        start = data.index(
            json.dumps(documents[1]["text"], ensure_ascii=False)[1:40].encode(), len(dump(documents[:1]))
        )
        return data[: start + int(len(documents[1]["text"]) * fraction_of_second_text)]

    return edited(change)


def wrap(prefix: bytes, suffix: bytes = b"") -> Callable[[], bytes]:
    return edited(lambda documents: prefix + dump(documents) + suffix)


def whole(content: bytes) -> Callable[[], bytes]:
    return lambda: content


def emoji_text(documents):
    documents[1]["text"] += " \U0001f600 \u00e9"
    return dump(documents).replace("\U0001f600".encode(), b"\\ud83d\\ude00")


def crlf_pretty(documents):
    return dump(documents, indent=2).replace(b"\n", b"\r\n")
