"""The bytes the JSON parser reads: strict UTF-8 and no lone surrogate escape, whatever
the chunk boundaries, and no more than the size limit."""

import io
import json

import pytest

from annotation.corpus_io import limits
from annotation.corpus_io.checked_stream import CheckedStream, InvalidBytes
from annotation.corpus_io.errors import TabImportError
from annotation.corpus_io.tab_reader import iter_raw_documents


class Trickle(io.RawIOBase):
    """A file that hands out at most ``step`` bytes per read, as a slow socket would."""

    def __init__(self, data: bytes, step: int):
        self.data, self.step, self.at = data, step, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        chunk = self.data[self.at : self.at + min(self.step, size if size > 0 else self.step)]
        self.at += len(chunk)
        return chunk


def read_all(data: bytes, step: int, max_bytes: int = 10**6) -> bytes:
    stream, out = CheckedStream(Trickle(data, step), max_bytes), []
    while chunk := stream.read(5):
        out.append(chunk)
    return b"".join(out)


STEPS = (1, 2, 3, 5, 7, 11, 13, 64)


@pytest.mark.parametrize("step", STEPS)
def test_valid_text_passes_unchanged_whatever_the_chunks(step):
    data = '["é €😀", "\\ud83d\\ude00", "C:\\\\ud800", "\\\\\\ud83d\\udE00"]'.encode()
    assert read_all(data, step) == data


@pytest.mark.parametrize("step", STEPS)
def test_a_bom_is_dropped_whatever_the_chunks(step):
    assert read_all(b"\xef\xbb\xbf[1]", step) == b"[1]"


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize(
    "data, culprit",
    [
        (b'["ok", "caf\xe9"]', "byte 11 of the file (e9 22"),
        (b'["\xed\xa0\x80"]', "byte 2 of the file"),
        (b'["ok"]\xe2\x82', "byte 6 of the file (e2 82) is unexpected end of data"),
        (b'["a\\ud800"]', "lone surrogate escape (\\ud800) at byte 3"),
        (b'["a\\ud800\\u0041"]', "lone surrogate escape (\\ud800) at byte 3"),
        (b'["a\\uDC00"]', "lone surrogate escape (\\uDC00) at byte 3"),
        (b'["\\\\\\udc00"]', "lone surrogate escape (\\udc00) at byte 4"),
        (b'["\\ud83d\\ude00\\udc00"]', "lone surrogate escape (\\udc00) at byte 14"),
    ],
)
def test_invalid_bytes_are_refused_after_handing_out_everything_before_them(step, data, culprit):
    stream, passed = CheckedStream(Trickle(data, step), 10**6), b""
    with pytest.raises(InvalidBytes) as caught:
        while chunk := stream.read(5):
            passed += chunk
    assert culprit in str(caught.value)
    offset = int(str(caught.value).split("byte ")[1].split(" ")[0])
    assert passed == data[:offset]


def test_a_file_over_the_size_limit_is_refused_while_read(monkeypatch):
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 1000)
    with pytest.raises(TabImportError, match="larger than the limit of 1,000 bytes"):
        list(iter_raw_documents(io.BytesIO(b"[" + b'"x",' * 300 + b'"x"]')))


@pytest.mark.parametrize(
    "limit, value, content, message",
    [
        ("MAX_DOCUMENT_VALUES", 50, b'"meta": [' + b"0," * 60 + b"0]", "limit of 50 JSON values"),
        ("MAX_DOCUMENT_CHARS", 100, b'"meta": ["' + b"x" * 60 + b'", "' + b"y" * 60 + b'"]', "limit of 100 characters"),
        ("MAX_STRING_CHARS", 10, b'"text": "abcdefghijk"', "11 characters exceeds the limit of 10"),
        ("MAX_DEPTH", 4, b'"meta": {"a": [[1]]}', "deeper than the limit of 4 levels"),
        (
            "MAX_MENTIONS_PER_LAYER",
            2,
            b'"annotations": {"ann": {"entity_mentions": [{}, {}, {}]}}',
            "limit of 2 per layer",
        ),
        ("MAX_LAYERS_PER_DOCUMENT", 1, b'"annotations": {"a": {}, "b": {}}', "limit of 1 per document"),
    ],
)
def test_each_limit_is_enforced_and_named_with_the_document(monkeypatch, limit, value, content, message):
    monkeypatch.setattr(limits, limit, value)
    with pytest.raises(TabImportError) as caught:
        list(iter_raw_documents(io.BytesIO(b'[{"doc_id": "d1", ' + content + b"}]")))
    assert message in str(caught.value) and "document d1" in str(caught.value)


def test_a_refused_document_is_skipped_and_the_next_one_still_read():
    content = b'[{"doc_id": "d1", "a": 1, "a": 2, "meta": [[[]]]}, {"doc_id": "d2"}]'
    first, second = list(iter_raw_documents(io.BytesIO(content)))
    assert [str(problem) for problem in first.problems] == [
        "document d1, field a: this key appears twice in the same object"
    ]
    assert second == {"doc_id": "d2"}


@pytest.mark.parametrize("step", (1, 7, 4096))
def test_documents_read_through_any_chunking_equal_what_the_json_module_reads(pick, step):
    documents = pick("001-60516")
    documents[0]["text"] += " \U0001f600 caf\u00e9 \\ud800"  # escaped as a surrogate pair, \u00e9 and \\
    data = b"\xef\xbb\xbf" + json.dumps(documents, ensure_ascii=True).encode()
    assert list(iter_raw_documents(Trickle(data, step))) == documents
