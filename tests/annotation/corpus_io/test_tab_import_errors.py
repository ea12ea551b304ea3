"""Bad input is rejected whole, with messages that name document, mention and field."""

import copy
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.corpus_io.errors import TabImportError
from annotation.models import (
    AnnotationLayer,
    AuditEvent,
    Corpus,
    CorpusMembership,
    Document,
    Entity,
    Mention,
    MentionLink,
)
from annotation.services.corpus_import import import_tab

MODELS = (Document, AnnotationLayer, Entity, Mention, MentionLink, CorpusMembership, AuditEvent, get_user_model())


def counts() -> dict:
    return {model.__name__: model.objects.count() for model in MODELS}


@pytest.fixture
def reject(corpus, tmp_path):
    """Import raw bytes or documents; expect rejection with every fragment in the
    message and the database exactly as before."""

    def run(content, *fragments: str) -> str:
        path = tmp_path / "bad.json"
        path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
        before = counts()
        with path.open("rb") as stream, pytest.raises(TabImportError) as caught:
            import_tab(stream, corpus, actor=None)
        message = str(caught.value)
        for fragment in fragments:
            assert fragment in message, message
        assert counts() == before
        return message

    return run


def first_mention(document: dict, annotator: str = "annotator1") -> dict:
    return document["annotations"][annotator]["entity_mentions"][0]


def test_malformed_json_names_the_last_good_document(reject, pick):
    good = json.dumps(pick("001-79436"))
    broken = good[:-1] + ', {"doc_id": "broken", "text": "abc", }]'
    reject(broken.encode(), "malformed JSON", "after document 1 (doc_id 001-79436)")


def test_truncated_file_is_rejected(reject, pick):
    reject(json.dumps(pick("001-79436"))[:5000].encode(), "malformed JSON")


def test_a_file_that_is_not_a_list_is_rejected(reject, pick):
    reject(json.dumps(pick("001-79436")[0]).encode(), "must be a JSON list of documents")


def test_empty_file_and_empty_list_are_rejected(reject):
    reject(b"", "the file is empty")
    reject(b"[]", "contains no documents")


def test_offsets_outside_the_text(reject, pick):
    document = pick("001-79436")[0]
    mention = first_mention(document)
    mention["start_offset"], mention["end_offset"] = len(document["text"]) - 2, len(document["text"]) + 5
    reject(
        [document],
        "document 001-79436",
        "annotator annotator1",
        f"mention {mention['entity_mention_id']}",
        "field start_offset",
        "outside the text",
    )


def test_span_text_that_does_not_match(reject, pick):
    document = pick("001-79436")[0]
    mention = first_mention(document)
    mention["span_text"] = "40593/05"
    reject([document], f"mention {mention['entity_mention_id']}", "field span_text", "'40593/05' does not match")


@pytest.mark.parametrize(
    "field, value",
    [
        ("entity_type", "PERS"),
        ("identifier_type", "MASK"),
        ("confidential_status", "RELIGION"),
        ("edit_type", "fixed"),
    ],
)
def test_unknown_enum_values(reject, pick, field, value):
    document = pick("001-79436")[0]
    first_mention(document)[field] = value
    reject([document], f"field {field}", repr(value), "is not one of")


def test_offsets_must_be_integers(reject, pick):
    document = pick("001-79436")[0]
    first_mention(document)["start_offset"] = 54.0
    reject([document], "offsets must be integers")


def test_duplicate_doc_id_in_the_file(reject, pick):
    document = pick("001-79436")[0]
    reject([document, document], "document 001-79436", "doc_id appears twice")


def test_doc_id_already_in_the_corpus(reject, pick, corpus, import_documents):
    import_documents(corpus, pick("001-79436"))
    reject(pick("001-83927", "001-79436"), "document 001-79436", "already in the corpus")
    assert not Document.objects.filter(doc_id="001-83927").exists()


def test_duplicate_mention_id_in_a_layer(reject, pick):
    document = pick("001-79436")[0]
    mentions = document["annotations"]["annotator1"]["entity_mentions"]
    mentions[1]["entity_mention_id"] = mentions[0]["entity_mention_id"]
    reject([document], f"mention {mentions[0]['entity_mention_id']}", "used twice")


def test_related_mention_that_does_not_exist(reject, pick):
    document = pick("001-79436")[0]
    first_mention(document)["related_mentions"] = ["001-79436_a1_em999"]
    reject([document], "field related_mentions", "'001-79436_a1_em999' is not a mention of this layer")


def test_quality_checked_names_an_annotator_without_layer(reject, pick):
    document = pick("001-79436")[0]
    document["quality_checked"] = ["annotator7"]
    reject([document], "field quality_checked", "'annotator7'")


def test_missing_text_and_bad_doc_id(reject, pick):
    document = pick("001-79436")[0]
    del document["text"]
    document["doc_id"] = ""
    reject([document], "document #1 in the file", "field doc_id", "field text")


def test_a_problem_in_the_last_document_rolls_back_the_whole_file(reject, pick, sample_documents):
    documents = copy.deepcopy(sample_documents)  # all 41: several batches are written first
    first_mention(documents[-1], next(iter(documents[-1]["annotations"])))["entity_type"] = "NOPE"
    reject(documents, f"document {documents[-1]['doc_id']}", "'NOPE'")


def test_many_problems_are_reported_together(reject, pick):
    document = pick("001-83927")[0]
    for mention in document["annotations"]["annotator1"]["entity_mentions"][:3]:
        mention["identifier_type"] = "BAD"
    message = reject([document], "3 problems")
    assert message.count("'BAD'") == 3


def test_command_reports_problems_and_creates_no_corpus(db, pick, write_tab):
    document = pick("001-79436")[0]
    first_mention(document)["span_text"] = "nope"
    with pytest.raises(CommandError, match="does not match"):
        call_command("import_tab", str(write_tab([document])), corpus="fresh corpus")
    assert not Corpus.objects.filter(name="fresh corpus").exists()
