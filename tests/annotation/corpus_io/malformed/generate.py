"""A corpus of malformed and edge-case TAB files, made from two real documents.

Each case says whether the importer must accept the file or refuse it, and for a
refusal the words its message must hold (the document, annotator, mention, field and
the rule broken). The expectations are written by hand from the TAB format and the
import limits, never taken from the importer's output.

    python tests/annotation/corpus_io/malformed/generate.py OUT_DIR   # writes every file

The tests call ``write_case`` into a temporary folder instead; the files are not kept.
``HEAVY`` lists the worst files of up to 10 MB, for the memory test.
"""

import copy
import json
import sys
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


def _rename_annotator(documents: list[dict], name: str) -> None:
    document = documents[1]
    document["annotations"] = {name: document["annotations"]["annotator1"]}
    document["quality_checked"] = [name]


def _second_annotator(documents: list[dict], name: str) -> None:
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


def _emoji_text(documents):
    documents[1]["text"] += " \U0001f600 \u00e9"
    return dump(documents).replace("\U0001f600".encode(), b"\\ud83d\\ude00")


def _crlf_pretty(documents):
    return dump(documents, indent=2).replace(b"\n", b"\r\n")


# -- the cases -------------------------------------------------------------------------

ACCOUNT_RULE = "is not a valid account name"
MENTION_B = "mention 001-67582_a1_em1"

CASES: list[Case] = [
    # Accepted: what the format allows, in every spelling JSON allows.
    accepted("valid_two_documents", edited(lambda documents: None)),
    accepted("utf8_bom", wrap(b"\xef\xbb\xbf")),
    accepted("leading_whitespace_100_bytes", wrap(b" " * 100)),
    accepted("leading_whitespace_200k_mixed", wrap(b" \t\r\n" * 50_000)),
    accepted(
        "bom_then_whitespace_then_crlf", edited(lambda documents: b"\xef\xbb\xbf\r\n\r\n" + _crlf_pretty(documents))
    ),
    accepted("crlf_pretty_printed", edited(_crlf_pretty)),
    accepted("ascii_escapes_and_surrogate_pair", edited(_emoji_text)),
    accepted("everything_escaped_as_ascii", edited(lambda documents: json.dumps(documents).encode())),
    accepted("trailing_whitespace", wrap(b"", b"\r\n\t  \n")),
    accepted(
        "escaped_control_char_in_text",
        edited(lambda documents: documents[1].update(text=documents[1]["text"] + "\u0007\u001f")),
    ),
    accepted("unknown_keys_kept", edited(lambda documents: documents[1].update(extra={"deep": [{"x": None}]}))),
    accepted("meta_nested_20_levels", setting(1, "meta.tree", json.loads(nested(20)))),
    accepted("meta_string_of_100k_chars", setting(1, "meta.note", "n" * 100_000)),
    accepted("int64_bounds_in_meta", setting(1, "meta.range", [-(2**63) + 1, 2**63 - 1, -0.0, 1.5e300])),
    accepted(
        "no_annotations_at_all",
        edited(lambda documents: [documents[1].pop(key) for key in ("annotations", "quality_checked")] and None),
    ),
    accepted(
        "username_like_annotator",
        edited(lambda documents: _rename_annotator(documents, "anna.k@lab+1_x-y")),
        accounts=1,
    ),
    accepted(
        "unicode_annotator_name",
        edited(lambda documents: _rename_annotator(documents, "Zo\u00eb_\u015eemsettin")),
        accounts=1,
    ),
    accepted("doc_id_with_markup_is_text", setting(1, "doc_id", "<b>x</b>&")),
    # The file as a whole.
    refused("empty_file", whole(b""), "the file is empty"),
    refused("only_whitespace", whole(b" \r\n\t" * 100), "the file is empty"),
    refused("only_a_bom", whole(b"\xef\xbb\xbf"), "the file is empty"),
    refused("empty_list", whole(b" [ ] "), "contains no documents"),
    refused("object_instead_of_list", edited(lambda documents: dump(documents[0])), "must be a JSON list", "an object"),
    refused("string_instead_of_list", whole(b'"001-60516"'), "must be a JSON list", "a string"),
    refused("garbage_before_list", wrap(b"x"), "malformed JSON", "before the first document"),
    refused("trailing_garbage_after_list", wrap(b"", b" ]"), "malformed JSON", "after the end of the list"),
    refused("second_list_after_list", wrap(b"", b"[]"), "malformed JSON", "after the end of the list"),
    refused(
        "trailing_comma_in_list",
        edited(lambda documents: dump(documents)[:-1] + b",]"),
        "malformed JSON",
        f"after document 2 (doc_id {B_ID})",
    ),
    refused(
        "missing_comma_between_documents",
        edited(lambda documents: dump(documents).replace(b'"dev"}, {', b'"dev"} {', 1)),
        "malformed JSON",
        f"after document 1 (doc_id {A_ID})",
    ),
    refused(
        "truncated_in_second_text",
        cut(0.5),
        "malformed JSON",
        SECOND,
        "field text",
        f"after document 1 (doc_id {A_ID})",
    ),
    refused(
        "truncated_after_a_document",
        edited(lambda documents: dump(documents)[: len(dump(documents[:1])) - 1] + b","),
        "malformed JSON",
        f"after document 1 (doc_id {A_ID})",
    ),
    refused("comment_in_json", raw_in_meta(b"1 // the year"), "malformed JSON", SECOND, "field meta.year"),
    refused("single_quoted_string", raw_in_meta(b"'2004'"), "malformed JSON", SECOND, "field meta.year"),
    refused("a_number_as_document", edited(lambda documents: dump([documents[0], 5])), SECOND, "not a JSON object"),
    # Bytes and characters.
    refused("latin1_byte_in_text", raw_in_text(b"caf\xe9 "), "not valid UTF-8", SECOND, "field text"),
    refused(
        "overlong_utf8_in_span_text",
        raw_in_span_text(b'"\xc0\xaf"'),
        "not valid UTF-8",
        SECOND,
        "annotator annotator1",
        MENTION_B,
        "field span_text",
    ),
    refused("utf8_encoded_surrogate_in_text", raw_in_text(b"\xed\xa0\x80"), "not valid UTF-8", SECOND, "field text"),
    refused(
        "utf16_file", edited(lambda documents: json.dumps(documents).encode("utf-16")), "not valid UTF-8", "byte 0"
    ),
    refused("cut_multibyte_char_at_end", wrap(b"", b"\xe2\x82"), "not valid UTF-8", "after the end of the list"),
    refused(
        "lone_low_surrogate_escape_in_span_text",
        raw_in_span_text(b'"\\udc00"'),
        "lone surrogate",
        SECOND,
        "annotator annotator1",
        MENTION_B,
        "field span_text",
    ),
    refused("lone_high_surrogate_escape_in_text", raw_in_text(b"\\ud800x"), "lone surrogate", SECOND, "field text"),
    refused(
        "lone_surrogate_escape_in_a_key", raw_in_meta(b'{"\\udc00": 1}'), "lone surrogate", SECOND, "field meta.year"
    ),
    refused("escaped_nul_in_text", raw_in_text(b"\\u0000"), "NUL", B_DOC, "field text"),
    refused("escaped_nul_in_meta", raw_in_meta(b'"20\\u000004"'), "NUL", B_DOC, "field meta.year"),
    refused(
        "escaped_nul_in_annotator_name",
        edited(lambda documents: _rename_annotator(documents, "ann\x00")),
        "NUL",
        B_DOC,
        "annotator 'ann\\x00'",
    ),
    refused("raw_nul_byte_in_text", raw_in_text(b"\x00"), "malformed JSON", SECOND, "field text"),
    refused("raw_newline_in_text", raw_in_text(b"\n"), "malformed JSON", SECOND, "field text"),
    refused(
        "control_char_in_doc_id",
        setting(1, "doc_id", "001-67582\n"),
        "#2 in the file",
        "field doc_id",
        "control character",
    ),
    # Numbers.
    refused("nan_in_meta", raw_in_meta(b"NaN"), "malformed JSON", "NaN", SECOND, "field meta.year"),
    refused(
        "infinity_as_offset",
        edited(
            lambda documents: (mention(documents[1]).__setitem__("end_offset", MARK), splice(documents, b"Infinity"))[1]
        ),
        "malformed JSON",
        SECOND,
        MENTION_B,
        "field end_offset",
    ),
    refused(
        "integer_overflow_in_meta",
        raw_in_meta(b"123456789012345678901234567890"),
        "integer overflow",
        SECOND,
        "field meta.year",
    ),
    refused("float_overflow_in_meta", raw_in_meta(b"1e999"), "overflow", SECOND, "field meta.year"),
    refused("huge_offset_within_int64", setting_mention("end_offset", 2**62), B_DOC, MENTION_B, "outside the text"),
    refused("negative_offset", setting_mention("start_offset", -1), B_DOC, MENTION_B, "outside the text"),
    # Duplicate keys.
    refused("duplicate_key_in_document", duplicate_key("document"), "appears twice", B_DOC, "field task"),
    refused(
        "duplicate_key_in_mention", duplicate_key("mention"), "appears twice", B_DOC, MENTION_B, "field start_offset"
    ),
    refused("duplicate_key_in_meta", duplicate_key("meta"), "appears twice", B_DOC, "field meta.year"),
    refused("duplicate_annotator", duplicate_key("annotator"), "appears twice", B_DOC, "annotator annotator1"),
    refused("ten_thousand_duplicate_keys", many_duplicates(10_000), "appears twice", B_DOC, "field meta.year.k"),
    refused(
        "duplicate_doc_id", edited(lambda documents: dump([documents[0], documents[0]])), A_DOC, "doc_id appears twice"
    ),
    # Annotator names become accounts: username rules.
    refused(
        "path_traversal_annotator",
        edited(lambda documents: _rename_annotator(documents, "../../etc/passwd")),
        ACCOUNT_RULE,
        B_DOC,
        "annotator '../../etc/passwd'",
    ),
    refused(
        "script_annotator",
        edited(lambda documents: _rename_annotator(documents, "<script>alert(1)</script>")),
        ACCOUNT_RULE,
        B_DOC,
        "'<script>alert(1)</script>'",
    ),
    refused(
        "annotator_with_space",
        edited(lambda documents: _second_annotator(documents, "anna k")),
        ACCOUNT_RULE,
        B_DOC,
        "annotator 'anna k'",
    ),
    refused(
        "empty_annotator_name",
        edited(lambda documents: _second_annotator(documents, "")),
        ACCOUNT_RULE,
        B_DOC,
        "annotator ''",
    ),
    refused(
        "annotator_of_151_chars",
        edited(lambda documents: _second_annotator(documents, "a" * 151)),
        ACCOUNT_RULE,
        B_DOC,
        "'aaaaaaaaaa",
    ),
    # Wrong types everywhere.
    refused("doc_id_is_a_number", setting(1, "doc_id", 67582), "#2 in the file", "field doc_id", "non-empty string"),
    refused(
        "doc_id_of_10000_chars", setting(1, "doc_id", "9" * 10_000), "#2 in the file", "field doc_id", "longer than 200"
    ),
    refused("text_is_a_list", setting(1, "text", ["a"]), B_DOC, "field text", "non-empty string"),
    refused("annotations_is_a_list", setting(1, "annotations", []), B_DOC, "field annotations"),
    refused(
        "entity_mentions_is_an_object",
        setting(1, "annotations.annotator1.entity_mentions", {}),
        B_DOC,
        "annotator annotator1",
        "field entity_mentions",
    ),
    refused(
        "mention_is_a_string",
        setting(1, "annotations.annotator1.entity_mentions", ["m"]),
        B_DOC,
        "entity_mentions[0] is not a JSON object",
    ),
    refused(
        "entity_type_is_a_list",
        setting_mention("entity_type", ["CODE"]),
        B_DOC,
        MENTION_B,
        "field entity_type",
        "is not one of",
    ),
    refused(
        "identifier_type_is_an_object",
        setting_mention("identifier_type", {"a": 1}),
        B_DOC,
        MENTION_B,
        "field identifier_type",
    ),
    refused("dataset_type_is_a_list", setting(1, "dataset_type", ["dev"]), B_DOC, "field dataset_type"),
    refused("offset_is_a_string", setting_mention("start_offset", "54"), B_DOC, MENTION_B, "offsets must be integers"),
    refused("offset_is_a_boolean", setting_mention("start_offset", True), B_DOC, MENTION_B, "offsets must be integers"),
    refused(
        "mention_id_is_null",
        setting_mention("entity_mention_id", None),
        B_DOC,
        "mention entity_mentions[0]",
        "field entity_mention_id",
    ),
    refused(
        "related_mentions_is_a_string",
        setting_mention("related_mentions", "x"),
        B_DOC,
        MENTION_B,
        "field related_mentions",
    ),
    refused("quality_checked_is_a_string", setting(1, "quality_checked", "annotator1"), B_DOC, "field quality_checked"),
    refused("meta_is_a_list", setting(1, "meta", [1]), B_DOC, "field meta", "must be an object"),
    # Limits.
    refused(
        "string_of_3_million_chars",
        setting(1, "text", "x" * 3_000_000),
        SECOND,
        "field text",
        "exceeds the limit of 2,000,000",
    ),
    refused(
        "meta_nested_40_levels",
        setting(1, "meta.tree", json.loads(nested(40))),
        SECOND,
        "field meta.tree[0]",
        "deeper than the limit of 32",
    ),
    refused(
        "meta_with_100k_nested_brackets",
        raw_in_meta(nested(100_000).encode()),
        SECOND,
        "field meta.year[0][0]",
        "deeper than the limit of 32",
    ),
    refused("file_of_100k_nested_brackets", whole(nested(100_000).encode()), FIRST, "deeper than the limit of 32"),
    refused(
        "twenty_thousand_and_one_mentions",
        many_mentions(20_001),
        SECOND,
        "annotator annotator1",
        "mention entity_mentions[20000]",
        "more mentions than the limit of 20,000",
    ),
    refused("two_hundred_and_one_layers", layers(201), SECOND, "annotator a200", "more layers", "limit of 200"),
]

# The worst files of up to 10 MB: the importer must refuse each cleanly in bounded memory.
HEAVY: list[Case] = [
    refused("heavy_100k_nested_brackets_in_meta", raw_in_meta(nested(100_000).encode()), "deeper than the limit"),
    refused("heavy_10mb_of_nesting", whole(b"[" * HEAVY_BYTES), "deeper than the limit"),
    refused("heavy_10mb_string", setting(1, "text", "x" * (HEAVY_BYTES - 30_000)), "exceeds the limit"),
    refused("heavy_10mb_of_tiny_mentions", many_mentions((HEAVY_BYTES - 30_000) // 3), "more mentions than the limit"),
    refused(
        "heavy_10mb_of_small_objects",
        setting(1, "meta.rows", [{"a": 0}] * ((HEAVY_BYTES - 30_000) // 10)),
        "more than the limit of 2,000,000 JSON values",
    ),
    # Within every limit, and about as costly to hold as 10 MB can be (700,000 small
    # keys, 10 MB): accepted.
    accepted(
        "heavy_10mb_of_meta_keys",
        edited(lambda documents: documents[1].update(meta={f"k{i}": 0 for i in range(700_000)})),
    ),
]


def write_case(case: Case, directory: Path) -> Path:
    path = directory / f"{case.name}.json"
    path.write_bytes(case.build())
    return path


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "malformed_tab")
    out.mkdir(parents=True, exist_ok=True)
    for case in CASES + HEAVY:
        write_case(case, out)
    print(f"{len(CASES) + len(HEAVY)} files in {out}")
