"""The masked-spans export of the official evaluation format."""

import json

from django.core.management import call_command

from annotation.corpus_io.masks import annotator_masked_spans


def test_masked_spans_are_the_direct_and_quasi_mentions(corpus, pick, import_documents):
    documents = pick("001-79436", "001-83927")
    import_documents(corpus, documents)
    expected = {}
    for document in documents:
        layer = document["annotations"].get("annotator10")
        if layer is None:
            continue
        # Computed here from the source file, independently of the database.
        expected[document["doc_id"]] = sorted(
            {
                (m["start_offset"], m["end_offset"])
                for m in layer["entity_mentions"]
                if m["identifier_type"] in ("DIRECT", "QUASI")
            }
        )
    got = annotator_masked_spans(corpus.documents.all(), "annotator10")
    assert list(got) == ["001-83927"]  # annotator10 has no layer on 001-79436
    assert [tuple(span) for span in got["001-83927"]] == expected["001-83927"]
    assert (54, 62) in expected["001-83927"]  # the application number, DIRECT


def test_export_masks_command_writes_the_file(corpus, pick, import_documents, tmp_path):
    import_documents(corpus, pick("001-79436"))
    out = tmp_path / "masks.json"
    call_command("export_masks", corpus=corpus.name, annotator="annotator1", output=str(out))
    spans = json.loads(out.read_text())
    assert list(spans) == ["001-79436"]
    assert all(start < end for start, end in spans["001-79436"])
    assert [54, 62] in spans["001-79436"]
