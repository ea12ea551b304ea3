"""``manage.py release``: a corpus sanitized in-process end to end, the file written whole
or not at all, a summary, refusals naming the option."""

import io
import json
import zipfile

import pytest
from django.core.management import CommandError, call_command

from annotation.management.commands.release import write_atomically
from annotation.models import Release

pytestmark = pytest.mark.django_db

POLAT, CANPOLAT, NELSON = "001-83927", "001-79436", "001-85667"


@pytest.fixture
def documents(corpus, pick, import_documents):
    import_documents(corpus, pick(POLAT, CANPOLAT, NELSON))
    return {d.doc_id: d for d in corpus.documents.all()}


def run_command(*args, **options):
    out, err = io.StringIO(), io.StringIO()
    call_command("release", *args, stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def apply_spans(original: str, spans: list[dict]) -> str:
    text = original
    for span in sorted(spans, key=lambda s: s["start"], reverse=True):
        text = text[: span["start"]] + span["replacement"] + text[span["end"] :]
    return text


def test_placeholder_release_end_to_end(corpus, documents, tmp_path):
    (tmp_path / "out").mkdir()
    output = tmp_path / "out" / "release.json"

    out, err = run_command(
        "--corpus", corpus.name, "--source", "reviewed", "--strategy", "placeholder", "-o", str(output)
    )

    release = Release.objects.get()
    assert release.status == "succeeded" and release.strategy == "placeholder"
    rows = json.loads(output.read_text(encoding="utf-8"))
    assert [row["doc_id"] for row in rows] == [POLAT, CANPOLAT, NELSON]
    for row in rows:
        assert row["text"] == apply_spans(documents[row["doc_id"]].text, row["spans"])
    polat = rows[0]
    assert polat["text"].startswith("PROCEDURE\n\nThe case originated in an application (no. CODE_1) against")
    assert "Cengiz Polat" not in output.read_text(encoding="utf-8")
    # The summary: TPS, ER, paths, time; the bar on stderr.
    metrics = release.metrics
    assert f"TPS {metrics['TPS']:.4f}" in out and f"ER_di {metrics['ER_di']:.4f}" in out
    assert f"fixed {metrics['paths']['fixed']}" in out and "Seconds per document: median" in out
    assert f"Release {release.pk}: 3 documents sanitized, 0 failed, written to {output}." in out
    assert "3/3" in err
    assert [p.name for p in output.parent.iterdir()] == ["release.json"]


def test_rules_release_generalizes_dates_and_numbers_people(corpus, documents, tmp_path):
    output = tmp_path / "rules.json"
    run_command("--corpus", corpus.name, "--source", "annotator:annotator10", "--strategy", "rules", "-o", str(output))

    rows = json.loads(output.read_text(encoding="utf-8"))
    # annotator10 has layers in Polat and Nelson, not in Canpolat.
    assert [row["doc_id"] for row in rows] == [POLAT, NELSON]
    spans = {(span["start"], span["end"]): span for span in rows[0]["spans"]}
    # INTACT's ladder for a day-month-year date starts at "Month YYYY".
    assert spans[(292, 307)]["replacement"] == "October 2004"
    assert spans[(254, 269)]["replacement"] == "PERSON_1"
    release = Release.objects.get()
    assert release.source == "annotator" and release.annotator.username == "annotator10"
    assert release.metrics["skipped"] == [{"doc_id": CANPOLAT, "reason": "annotator10 has no finished layer"}]


@pytest.mark.parametrize("fmt", ["masks", "zip", "tri"])
def test_other_formats_are_the_services_exports(corpus, documents, tmp_path, fmt):
    output = tmp_path / f"release.{fmt}"
    run_command(
        "--corpus", corpus.name, "--source", "reviewed", "--strategy", "label", "-o", str(output), "--format", fmt
    )
    release = Release.objects.get()
    content = output.read_bytes()
    if fmt == "zip":
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            assert f"{POLAT}.txt" in archive.namelist()
    elif fmt == "masks":
        masks = json.loads(content)
        assert list(masks) == [POLAT, CANPOLAT, NELSON]
        assert masks[POLAT][0] == [54, 62]
    else:
        assert [row["name"] for row in json.loads(content)] == ["Cengiz Polat", "Aziz Canpolat", "Alan Nelson"]
    assert release.status == "succeeded"


@pytest.mark.parametrize(
    "source, strategy, message",
    [
        ("annotator:nobody", "label", "--source: There is no annotator named 'nobody'"),
        ("annotator:", "label", "--source: annotator:NAME needs the annotator's user name"),
        ("annotator", "label", "--source: write annotator:NAME"),
        ("everyone", "label", "--source: Unknown source 'everyone'"),
        ("preannotation", "label", "--source: .*never pre-annotated"),
        ("reviewed", "blur", "argument --strategy: invalid choice: 'blur'"),
    ],
)
def test_bad_options_are_refused_by_name(corpus, documents, tmp_path, source, strategy, message):
    output = tmp_path / "out.json"
    with pytest.raises(CommandError, match=message):
        run_command("--corpus", corpus.name, "--source", source, "--strategy", strategy, "-o", str(output))
    assert not output.exists() and not Release.objects.exists()


def test_attack_guided_masking_without_a_background_is_refused_naming_the_option(corpus, tmp_path):
    output = tmp_path / "out.json"
    with pytest.raises(CommandError, match="--attack-guided-top-k: Attack-guided masking needs a background"):
        run_command(
            "--corpus", corpus.name, "--source", "reviewed", "--strategy", "label", "-o", str(output),
            "--attack-guided-top-k", "2",
        )  # fmt: skip
    assert not output.exists() and not Release.objects.exists()


def test_an_output_in_a_missing_directory_or_a_directory_is_refused(corpus, documents, tmp_path):
    with pytest.raises(CommandError, match="-o/--output: the directory .*missing does not exist"):
        run_command(
            "--corpus",
            corpus.name,
            "--source",
            "reviewed",
            "--strategy",
            "label",
            "-o",
            str(tmp_path / "missing" / "r.json"),
        )
    with pytest.raises(CommandError, match="-o/--output: .* is a directory"):
        run_command("--corpus", corpus.name, "--source", "reviewed", "--strategy", "label", "-o", str(tmp_path))
    with pytest.raises(CommandError, match="no corpus named 'nope'"):
        run_command("--corpus", "nope", "--source", "reviewed", "--strategy", "label", "-o", str(tmp_path / "r.json"))
    assert not Release.objects.exists()


def test_a_failed_write_leaves_the_previous_file_and_no_temporary(tmp_path):
    target = tmp_path / "release.json"
    target.write_text("previous release")
    with pytest.raises(TypeError):
        write_atomically(target, "a str, not bytes: the write fails half way")
    assert target.read_text() == "previous release"
    assert [p.name for p in tmp_path.iterdir()] == ["release.json"]

    write_atomically(target, b"[]")
    assert target.read_bytes() == b"[]" and [p.name for p in tmp_path.iterdir()] == ["release.json"]
