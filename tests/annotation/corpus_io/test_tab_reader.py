"""Documents read out of a TAB file: each limit enforced while streaming and named with
the document; a document refused for its content is skipped and the next one read."""

import io
import json

import pytest

from annotation.corpus_io import limits
from annotation.corpus_io.errors import TabImportError
from annotation.corpus_io.tab_reader import iter_raw_documents

from .test_checked_stream import Trickle


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


def test_top_level_values_are_counted_even_when_refused():
    content = b'[{"doc_id": "d1"}, "a\\u0000b", 5, {"doc_id": "d4", "x": 1, "x": 2}]'
    first, second, third, fourth = list(iter_raw_documents(io.BytesIO(content)))
    assert first == {"doc_id": "d1"} and third == 5
    assert [str(problem) for problem in second.problems] == [
        "document #2 in the file: the string holds a NUL character (\\u0000), which cannot be stored"
    ]
    assert [str(problem) for problem in fourth.problems] == [
        "document d4, field x: this key appears twice in the same object"
    ]
