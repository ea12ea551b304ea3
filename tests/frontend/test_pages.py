"""The server-rendered pages show each role what it may see, and nothing more."""

import json
import re

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotation.models import Document, ImportJob
from frontend.text_segments import segment_text

from .conftest import client_for


def test_login_is_required():
    response = Client().get("/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_login_page_renders(db):
    response = Client().get("/login/")
    assert response.status_code == 200 and b"Log in" in response.content


def test_home_lists_corpora_and_my_assignments(scenario):
    page = client_for(scenario["ann"]).get("/").content.decode()
    assert scenario["corpus"].name in page and "1 of its 1 documents are yours" in page
    assert "001-79436" in page and "In progress" in page


def test_corpus_page_shows_only_visible_layers(scenario):
    page = client_for(scenario["ann"]).get(f"/corpora/{scenario['corpus'].pk}/").content.decode()
    assert "ann_annotator" in page
    assert "bob_annotator" not in page and "annotator1" not in page
    assert "Import documents" not in page and "Audit trail" not in page
    manager_page = client_for(scenario["manager"]).get(f"/corpora/{scenario['corpus'].pk}/").content.decode()
    for name in ("ann_annotator", "bob_annotator", "annotator1", "Import documents", "Export TAB JSON"):
        assert name in manager_page


def test_document_page_never_shows_another_annotators_layer(scenario):
    client = client_for(scenario["ann"])
    response = client.get(f"/documents/{scenario['document'].pk}/", {"layer": scenario["bob_layer"].pk})
    page = response.content.decode()
    assert response.status_code == 200
    assert f'data-m="{scenario["ann_mention"].pk}"' in page
    assert f'data-m="{scenario["bob_mention"].pk}"' not in page
    assert client.get(f"/documents/{scenario['other_document'].pk}/").status_code == 404


def test_document_page_highlights_every_mention_of_the_layer(scenario):
    layer = scenario["imported_layer"]
    page = (
        client_for(scenario["manager"])
        .get(f"/documents/{scenario['document'].pk}/", {"layer": layer.pk})
        .content.decode()
    )
    assert len(re.findall(r"<mark [^>]*data-m=", page)) == layer.mentions.count() == 37
    # Each mention is labelled with its type in text, not only by colour.
    assert page.count("data-tag=") == 37


def test_audit_and_import_pages_are_for_managers(scenario):
    corpus = scenario["corpus"]
    annotator = client_for(scenario["ann"])
    assert annotator.get(f"/corpora/{corpus.pk}/audit/").status_code == 403
    assert annotator.post(f"/corpora/{corpus.pk}/import/").status_code == 403
    audit = client_for(scenario["manager"]).get(f"/corpora/{corpus.pk}/audit/").content.decode()
    assert "mention.create" in audit and "layer.assign" in audit


def test_import_through_the_page(scenario, pick, eager_tasks, django_capture_on_commit_callbacks):
    client = client_for(scenario["manager"])
    upload = SimpleUploadedFile("more.json", json.dumps(pick("001-83927")).encode())
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/corpora/{scenario['corpus'].pk}/import/", {"file": upload})
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/imports/{job.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert "Succeeded" in page and "Imported 1 documents" in page
    assert Document.objects.filter(doc_id="001-83927", corpus=scenario["corpus"]).exists()


class Span:
    def __init__(self, start, end):
        self.start_offset, self.end_offset = start, end


def test_segments_cut_overlapping_mentions_at_every_boundary():
    outer, inner = Span(0, 10), Span(4, 7)
    segments = segment_text("0123456789ab", [inner, outer])
    assert [(s.text, s.mentions) for s in segments] == [
        ("0123", [outer]),
        ("456", [outer, inner]),
        ("789", [outer]),
        ("ab", []),
    ]
