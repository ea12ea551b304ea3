"""``manage.py reidentify``: the five-person fixture as files (a WikiActors-shaped frame,
a background file, a release's TRI frame) or as a database collection; TRIR 0.8."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import ReidentificationRun
from tests.support.five_people import BACKGROUND, EXPECTED_TRIR, PROTECTED
from tests.support.five_people_corpus import COLLECTION, import_five_people


@pytest.fixture
def files(tmp_path):
    """A WikiActors-shaped frame (name, public_knowledge, one column per method, a
    column with a null cell) and a release's TRI frame, both of the five people."""
    frame = [
        {"name": person["name"], "public_knowledge": person["text"], "label_abstract": protected["text"],
         "dev_abstract": protected["text"] if protected["doc_id"] != "doc-emil" else None}
        for person, protected in zip(BACKGROUND, PROTECTED, strict=True)
    ]  # fmt: skip
    tri = [{"name": row["person"], "doc_id": row["doc_id"], "label_abstract": row["text"]} for row in PROTECTED]
    paths = {"frame": tmp_path / "frame.json", "tri": tmp_path / "release-1-label-tri.json"}
    paths["frame"].write_text(json.dumps(frame), encoding="utf-8")
    paths["tri"].write_text(json.dumps(tri), encoding="utf-8")
    return paths


def reidentify(*args) -> str:
    out = StringIO()
    call_command("reidentify", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_a_wikiactors_column_attacked_with_the_frame_as_background_prints_trir_as_json(db, files):
    frame = str(files["frame"])
    report = json.loads(
        reidentify("--background", frame, "--wikiactors", frame, "--column", "label_abstract", "--json")
    )
    assert report["TRIR"] == pytest.approx(EXPECTED_TRIR) and report["top5"] == 1.0
    assert report["n"] == 5 and report["people"] == 5 and report["attacker"] == "tfidf-svc"
    assert report["random_baseline"] == pytest.approx(0.2)
    assert set(report["seconds"]) == {"fit", "attack"}
    assert not ReidentificationRun.objects.exists()


def test_a_null_cell_leaves_its_row_out_with_the_reason(db, files):
    frame = str(files["frame"])
    report = json.loads(reidentify("--background", frame, "--wikiactors", frame, "--column", "dev_abstract", "--json"))
    assert report["n"] == 4 and report["TRIR"] == pytest.approx(3 / 4)
    assert report["skipped"] == [{"doc_id": "Emil Straka", "reason": "row 5 has no text in 'dev_abstract'"}]


def test_a_release_file_attacked_with_a_database_collection_is_recorded_on_request(db, files):
    import_five_people()
    report = json.loads(reidentify("--background", COLLECTION, "--release", str(files["tri"]), "--json", "--record"))
    assert report["TRIR"] == pytest.approx(EXPECTED_TRIR) and report["collection"] == COLLECTION
    run = ReidentificationRun.objects.get(pk=report["run"])
    assert run.source == "file" and run.source_label == "release-1-label-tri.json: label_abstract"
    assert run.status == "succeeded" and run.outcomes.count() == 5
    ada = run.outcomes.get(doc_id="doc-ada")
    assert ada.leaking_terms and ada.document is None
    assert all(term["original_start"] is None for term in ada.leaking_terms)  # no original text in a file


def test_the_readable_table_gives_trir_top5_baseline_and_each_rank(db, files):
    frame = str(files["frame"])
    text = reidentify("--background", frame, "--wikiactors", frame, "--column", "label_abstract")
    assert "TRIR      0.800  (5 documents)" in text
    assert "top-5     1.000" in text and "baseline  0.200" in text
    assert any(line.split()[:2] == ["Dora", "Lindqvist"] and line.split()[2] != "1" for line in text.splitlines())


def test_an_unknown_column_is_refused_listing_the_columns(db, files):
    frame = str(files["frame"])
    with pytest.raises(CommandError, match="no column 'spacy_abstract'; its columns are name, public_knowledge"):
        reidentify("--background", frame, "--wikiactors", frame, "--column", "spacy_abstract")


def test_a_release_file_without_persons_is_refused_naming_the_field(db, files, tmp_path):
    export = tmp_path / "release-1-label.json"
    export.write_text(json.dumps([{"doc_id": "doc-ada", "text": "x", "spans": []}]), encoding="utf-8")
    with pytest.raises(CommandError, match="row 1 \\(doc-ada\\) has no 'name'"):
        reidentify("--background", str(files["frame"]), "--release", str(export))


def test_a_background_that_is_neither_a_collection_nor_a_file_is_refused(db, files):
    with pytest.raises(CommandError, match="--background: The background 'nowhere' is neither"):
        reidentify("--background", "nowhere", "--release", str(files["tri"]))
