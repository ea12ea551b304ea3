"""A corpus of malformed and edge-case TAB files, made from two real documents.

Each case says whether the importer must accept the file or refuse it, and for a
refusal the words its message must hold (the document, annotator, mention, field and
the rule broken). The expectations are written by hand from the TAB format and the
import limits, never taken from the importer's output.

    python -m tests.annotation.corpus_io.malformed.generate OUT_DIR   # writes every file

The tests call ``write_case`` into a temporary folder instead; the files are not kept.
``HEAVY`` lists the worst files of up to 10 MB, for the memory test.
"""

import json
import sys
from pathlib import Path

from .edits import (
    A_DOC,
    A_ID,
    B_DOC,
    B_ID,
    FIRST,
    HEAVY_BYTES,
    MARK,
    SECOND,
    Case,
    accepted,
    add_layer,
    crlf_pretty,
    cut,
    dump,
    duplicate_key,
    edited,
    emoji_text,
    layers,
    many_duplicates,
    many_mentions,
    mention,
    nested,
    raw_in_meta,
    raw_in_span_text,
    raw_in_text,
    refused,
    rename,
    setting,
    setting_mention,
    splice,
    whole,
    wrap,
)

# -- the cases -------------------------------------------------------------------------

ACCOUNT_RULE = "is not a valid account name"
MENTION_B = "mention 001-67582_a1_em1"

CASES: list[Case] = [
    # Accepted: what the format allows, in every spelling JSON allows.
    accepted("valid_two_documents", edited(lambda d: None)),
    accepted("utf8_bom", wrap(b"\xef\xbb\xbf")),
    accepted("leading_whitespace_100_bytes", wrap(b" " * 100)),
    accepted("leading_whitespace_200k_mixed", wrap(b" \t\r\n" * 50_000)),
    accepted("bom_then_whitespace_then_crlf", edited(lambda d: b"\xef\xbb\xbf\r\n\r\n" + crlf_pretty(d))),
    accepted("crlf_pretty_printed", edited(crlf_pretty)),
    accepted("ascii_escapes_and_surrogate_pair", edited(emoji_text)),
    accepted("everything_escaped_as_ascii", edited(lambda d: json.dumps(d).encode())),
    accepted("trailing_whitespace", wrap(b"", b"\r\n\t  \n")),
    accepted("escaped_control_char_in_text", edited(lambda d: d[1].update(text=d[1]["text"] + "\u0007\u001f"))),
    accepted("unknown_keys_kept", edited(lambda d: d[1].update(extra={"deep": [{"x": None}]}))),
    accepted("meta_nested_20_levels", setting(1, "meta.tree", json.loads(nested(20)))),
    accepted("meta_string_of_100k_chars", setting(1, "meta.note", "n" * 100_000)),
    accepted("int64_bounds_in_meta", setting(1, "meta.range", [-(2**63) + 1, 2**63 - 1, -0.0, 1.5e300])),
    accepted(
        "no_annotations_at_all",
        edited(lambda d: [d[1].pop(key) for key in ("annotations", "quality_checked")] and None),
    ),
    accepted("username_like_annotator", edited(lambda d: rename(d, "anna.k@lab+1_x-y")), accounts=1),
    accepted("unicode_annotator_name", edited(lambda d: rename(d, "Zo\u00eb_\u015eemsettin")), accounts=1),
    accepted("doc_id_with_markup_is_text", setting(1, "doc_id", "<b>x</b>&")),
    # The file as a whole.
    refused("empty_file", whole(b""), "the file is empty"),
    refused("only_whitespace", whole(b" \r\n\t" * 100), "the file is empty"),
    refused("only_a_bom", whole(b"\xef\xbb\xbf"), "the file is empty"),
    refused("empty_list", whole(b" [ ] "), "contains no documents"),
    refused("object_instead_of_list", edited(lambda d: dump(d[0])), "must be a JSON list", "an object"),
    refused("string_instead_of_list", whole(b'"001-60516"'), "must be a JSON list", "a string"),
    refused("garbage_before_list", wrap(b"x"), "malformed JSON", "before the first document"),
    refused("trailing_garbage_after_list", wrap(b"", b" ]"), "malformed JSON", "after the end of the list"),
    refused("second_list_after_list", wrap(b"", b"[]"), "malformed JSON", "after the end of the list"),
    refused(
        "trailing_comma_in_list",
        edited(lambda d: dump(d)[:-1] + b",]"),
        "malformed JSON",
        f"after document 2 (doc_id {B_ID})",
    ),
    refused(
        "missing_comma_between_documents",
        edited(lambda d: dump(d).replace(b'"dev"}, {', b'"dev"} {', 1)),
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
        edited(lambda d: dump(d)[: len(dump(d[:1])) - 1] + b","),
        "malformed JSON",
        f"after document 1 (doc_id {A_ID})",
    ),
    refused("comment_in_json", raw_in_meta(b"1 // the year"), "malformed JSON", SECOND, "field meta.year"),
    refused("single_quoted_string", raw_in_meta(b"'2004'"), "malformed JSON", SECOND, "field meta.year"),
    refused("a_number_as_document", edited(lambda d: dump([d[0], 5])), SECOND, "not a JSON object"),
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
    refused("utf16_file", edited(lambda d: json.dumps(d).encode("utf-16")), "not valid UTF-8", "byte 0"),
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
        "escaped_nul_in_annotator_name", edited(lambda d: rename(d, "ann\x00")), "NUL", B_DOC, "annotator 'ann\\x00'"
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
        edited(lambda d: (mention(d[1]).__setitem__("end_offset", MARK), splice(d, b"Infinity"))[1]),
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
    refused("duplicate_doc_id", edited(lambda d: dump([d[0], d[0]])), A_DOC, "doc_id appears twice"),
    # Annotator names become accounts: username rules.
    refused(
        "path_traversal_annotator",
        edited(lambda d: rename(d, "../../etc/passwd")),
        ACCOUNT_RULE,
        B_DOC,
        "annotator '../../etc/passwd'",
    ),
    refused(
        "script_annotator",
        edited(lambda d: rename(d, "<script>alert(1)</script>")),
        ACCOUNT_RULE,
        B_DOC,
        "'<script>alert(1)</script>'",
    ),
    refused(
        "annotator_with_space", edited(lambda d: add_layer(d, "anna k")), ACCOUNT_RULE, B_DOC, "annotator 'anna k'"
    ),
    refused("empty_annotator_name", edited(lambda d: add_layer(d, "")), ACCOUNT_RULE, B_DOC, "annotator ''"),
    refused("annotator_of_151_chars", edited(lambda d: add_layer(d, "a" * 151)), ACCOUNT_RULE, B_DOC, "'aaaaaaaaaa"),
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
    accepted("heavy_10mb_of_meta_keys", edited(lambda d: d[1].update(meta={f"k{i}": 0 for i in range(700_000)}))),
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
