"""Release files: sanitized text only (never the original, a decision's original or the
attacker's guesses), offsets into the original, only done documents, only a succeeded
release."""

import io
import json
import zipfile

import pytest

from annotation.enums import LayerStatus
from annotation.models import AnnotationLayer, ReleaseDecision
from annotation.services.errors import DomainError
from annotation.services.release_exports import FORMATS, export_release, file_name, public_span
from annotation.services.releases import run_batch, start_release

pytestmark = pytest.mark.django_db

POLAT, CANPOLAT = "001-83927", "001-79436"
# Identifying strings of the two documents, all annotated DIRECT or QUASI in the
# released (reviewed) layers: the applicants, their application numbers, the lawyer,
# a prison.
IDENTIFYING = ["Cengiz Polat", "40593/04", "Mr E. Kanar", "Edirne F-type Prison", "Aziz Canpolat", "63354/00"]


@pytest.fixture
def release(corpus, people, pick, import_documents):
    import_documents(corpus, pick(POLAT, CANPOLAT))
    release = start_release(corpus, source="reviewed", strategy="placeholder", actor=people["manager"])
    run_batch(release.pk, list(corpus.documents.values_list("pk", flat=True)))
    release.refresh_from_db()
    assert release.status == "succeeded"
    return release


def contents(release, fmt: str) -> list[str]:
    """Every text the export writes (each member of a zip)."""
    _, _, content = export_release(release, fmt)
    if fmt != "zip":
        return [content.decode("utf-8")]
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return [archive.read(name).decode("utf-8") for name in archive.namelist()]


def apply_spans(original: str, spans: list[dict]) -> str:
    text = original
    for span in sorted(spans, key=lambda s: s["start"], reverse=True):
        text = text[: span["start"]] + span["replacement"] + text[span["end"] :]
    return text


def test_the_identifying_strings_are_in_no_export(release):
    originals = {d.doc_id: d.text for d in release.corpus.documents.all()}
    assert all(any(s in text for text in originals.values()) for s in IDENTIFYING)
    decided = set(ReleaseDecision.objects.filter(release_document__release=release).values_list("original", flat=True))
    assert "Edirne F-type Prison" in decided
    for fmt in ("json", "zip", "masks"):
        for text in contents(release, fmt):
            for secret in IDENTIFYING:
                assert secret not in text, (fmt, secret)
    # The TRI frame names the person to protect (the label an attacker must guess) and
    # nothing else identifying.
    rows = json.loads(contents(release, "tri")[0])
    assert [row["name"] for row in rows] == ["Cengiz Polat", "Aziz Canpolat"]
    for row in rows:
        for secret in IDENTIFYING:
            assert secret not in row["placeholder_abstract"] and secret not in row["doc_id"]


def test_json_gives_the_sanitized_text_and_spans_into_the_original(release):
    name, content_type, content = export_release(release, "json")
    assert name == f"release-{release.pk}-placeholder.json" and content_type == "application/json"
    rows = json.loads(content)
    assert [row["doc_id"] for row in rows] == [POLAT, CANPOLAT]
    originals = {d.doc_id: d.text for d in release.corpus.documents.all()}
    for row in rows:
        assert set(row) == {"doc_id", "text", "spans"}
        assert row["text"] == apply_spans(originals[row["doc_id"]], row["spans"])
        assert all(
            set(span) == {"start", "end", "replacement", "entity_type", "identifier_type", "reason"}
            for span in row["spans"]
        )
    polat = rows[0]
    assert polat["spans"][0] == {
        "start": 54,
        "end": 62,
        "replacement": "CODE_1",
        "entity_type": "CODE",
        "identifier_type": "DIRECT",
        "reason": "replaced by a numbered placeholder",
    }
    assert polat["text"].startswith("PROCEDURE\n\nThe case originated in an application (no. CODE_1) against")


def test_masks_are_the_official_masked_output_of_the_released_spans(release):
    masks = json.loads(export_release(release, "masks")[2])
    assert list(masks) == [POLAT, CANPOLAT]
    # annotator10's spans of Polat, read off the TAB file: 21 of them, the first three
    # the application number, the applicant and the date of the application.
    assert len(masks[POLAT]) == 21
    assert masks[POLAT][:3] == [[54, 62], [254, 269], [292, 307]]
    assert masks[POLAT][-1] == [3215, 3229]
    assert masks[POLAT] == sorted(masks[POLAT])


def test_zip_has_one_sanitized_text_per_document_and_a_manifest(release):
    name, content_type, content = export_release(release, "zip")
    assert name.endswith(".zip") and content_type == "application/zip"
    sanitized = dict(release.documents.values_list("document__doc_id", "sanitized_text"))
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        assert sorted(archive.namelist()) == sorted([f"{POLAT}.txt", f"{CANPOLAT}.txt", "manifest.json", "README.txt"])
        assert archive.read(f"{POLAT}.txt").decode() == sanitized[POLAT]
        manifest = json.loads(archive.read("manifest.json"))
        readme = archive.read("README.txt").decode()
    assert (manifest["release"], manifest["strategy"], manifest["source"]) == (release.pk, "placeholder", "reviewed")
    assert manifest["corpus"] == "ECHR test" and manifest["documents"] == [POLAT, CANPOLAT]
    assert manifest["metrics"]["ER_di"] == release.metrics["ER_di"]
    assert f"Sanitized release {release.pk}" in readme and "Numbered placeholders" in readme


def test_tri_frame_has_the_name_and_the_strategys_abstract_column(release):
    rows = json.loads(export_release(release, "tri")[2])
    sanitized = dict(release.documents.values_list("document__doc_id", "sanitized_text"))
    assert rows == [
        {"name": "Cengiz Polat", "doc_id": POLAT, "placeholder_abstract": sanitized[POLAT]},
        {"name": "Aziz Canpolat", "doc_id": CANPOLAT, "placeholder_abstract": sanitized[CANPOLAT]},
    ]


def test_only_done_documents_are_exported(corpus, people, pick, import_documents):
    import_documents(corpus, pick(POLAT, CANPOLAT))
    release = start_release(corpus, source="reviewed", strategy="label", actor=people["manager"])
    AnnotationLayer.objects.filter(document__doc_id=CANPOLAT).update(status=LayerStatus.IN_PROGRESS)
    run_batch(release.pk, list(corpus.documents.values_list("pk", flat=True)))
    release.refresh_from_db()
    for fmt in ("json", "tri"):
        assert [row["doc_id"] for row in json.loads(export_release(release, fmt)[2])] == [POLAT]
    assert list(json.loads(export_release(release, "masks")[2])) == [POLAT]


def test_an_unfinished_release_or_an_unknown_format_is_refused(corpus, people, pick, import_documents):
    import_documents(corpus, pick(POLAT))
    release = start_release(corpus, source="reviewed", strategy="label", actor=people["manager"])
    for fmt in FORMATS:
        with pytest.raises(DomainError, match="is pending: only a succeeded release") as refused:
            export_release(release, fmt)
        assert refused.value.field == "release"
    with pytest.raises(DomainError, match="Unknown export format 'pdf'") as unknown:
        export_release(release, "pdf")
    assert unknown.value.field == "format"


def test_a_reason_quoting_the_original_span_is_scrubbed():
    original = "He lives in Ankara since 1990."
    span = {
        "start": 12,
        "end": 18,
        "replacement": "a city in Turkey",
        "entity_type": "LOC",
        "identifier_type": "QUASI",
        "reason": "no guess matched ankara",
    }
    assert public_span(span, original)["reason"] == "no guess matched the original"
    assert public_span({**span, "reason": "kept"}, original)["reason"] == "kept"


def test_zip_member_names_are_safe_and_unique():
    used = {"README.txt", "manifest.json"}
    assert file_name("001-83927", used) == "001-83927.txt"
    assert file_name("../etc/passwd", used) == "etc_passwd.txt"
    assert file_name("etc/passwd", used) == "etc_passwd-2.txt"
    assert file_name("manifest.json", {"manifest.json.txt"}) == "manifest.json-2.txt"
