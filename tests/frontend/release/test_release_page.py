"""One release's page: its progress polled in the one job display, a failed release's error,
the downloads, and the engine's recorded settings."""

import json
import zipfile
from io import BytesIO

import pytest

from annotation.models import Release, ReleaseDocument
from tests.frontend.conftest import client_for

from .conftest import CANPOLAT

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]


def test_a_running_release_polls_one_progress_partial(corpus, people, documents):
    release = Release.objects.create(corpus=corpus, source="reviewed", strategy="label", status="running", total=1)
    ReleaseDocument.objects.create(release=release, document=documents)
    manager = client_for(people["manager"])
    page = manager.get(f"/releases/{release.pk}/").content.decode()
    assert page.count('hx-trigger="every 1s"') == 1 and page.count("<progress") == 1
    assert f'hx-get="/jobs/release/{release.pk}/progress/" hx-trigger="every 1s"' in page
    assert "0 of 1 document sanitized" in page and 'id="release-metrics"' not in page
    # The part that shows the result reloads when the release ends.
    assert 'hx-trigger="job-finished from:body"' in page
    partial = manager.get(f"/releases/{release.pk}/", headers={"HX-Request": "true"}).content.decode()
    assert '<div id="release-live"' in partial and "<html" not in partial and partial.count("<progress") == 1
    # Its files are not ready: the download says so rather than sending a partial file.
    response = manager.get(f"/releases/{release.pk}/download/json/")
    assert response.status_code == 409 and "running" in response.content.decode()


def test_a_failed_release_shows_its_error_and_offers_no_file(corpus, people, documents):
    release = Release.objects.create(
        corpus=corpus,
        source="reviewed",
        strategy="rules",
        status="failed",
        total=1,
        error="No document could be sanitized.",
    )
    ReleaseDocument.objects.create(
        release=release, document=documents, status="failed", error="ValueError: document 001-79436: bad span"
    )
    manager = client_for(people["manager"])
    page = manager.get(f"/releases/{release.pk}/").content.decode()
    assert "No document could be sanitized." in page and "The release failed: it has no files." in page
    assert "<strong>001-79436</strong>: ValueError: document 001-79436: bad span" in page
    assert "/download/" not in page and "hx-trigger" not in page
    assert manager.get(f"/releases/{release.pk}/download/zip/").status_code == 409


# -- downloads -------------------------------------------------------------------------


def test_each_release_file_downloads_as_an_attachment_of_its_type(corpus, people, documents, release):
    manager = client_for(people["manager"])
    expected = {
        "json": ("application/json", f"release-{release.pk}-placeholder.json"),
        "zip": ("application/zip", f"release-{release.pk}-placeholder.zip"),
        "masks": ("application/json", f"release-{release.pk}-placeholder-masks.json"),
        "tri": ("application/json", f"release-{release.pk}-placeholder-tri.json"),
    }
    item = release.documents.get()
    for fmt, (content_type, filename) in expected.items():
        response = manager.get(f"/releases/{release.pk}/download/{fmt}/")
        assert response.status_code == 200, fmt
        assert response["Content-Type"] == content_type
        assert response["Content-Disposition"] == f'attachment; filename="{filename}"'
        if fmt == "json":
            (row,) = json.loads(response.content)
            assert row["doc_id"] == CANPOLAT and row["text"] == item.sanitized_text
        if fmt == "zip":
            assert f"{CANPOLAT}.txt" in zipfile.ZipFile(BytesIO(response.content)).namelist()
    assert manager.get(f"/releases/{release.pk}/download/docx/").status_code == 404


def test_recorded_engine_settings_read_strategy_first_and_nested_values_by_name():
    from frontend.release_views import _ordered_settings

    # As PostgreSQL's jsonb hands them back: shorter keys first, whatever was written.
    recorded = {
        "ic": "corpus unigram statistics",
        "llm": "m at http://x/v1",
        "source": "reviewed",
        "strategy": "intact",
        "llm_limits": {"retries": 2, "timeout_s": 60, "concurrency": 2},
        "custom_note": "kept",
    }
    assert _ordered_settings(recorded) == [
        ("strategy", "intact"),
        ("source", "reviewed"),
        ("llm", "m at http://x/v1"),
        ("llm limits", "concurrency = 2 · retries = 2 · timeout_s = 60"),
        ("ic", "corpus unigram statistics"),
        ("custom note", "kept"),
    ]
