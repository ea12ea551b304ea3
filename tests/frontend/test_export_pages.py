"""The corpus export from the page: the form (dialog or page), the downloads it gives
and who may use it. Spans are written out by hand from ``exports_corpus``."""

import json

import pytest
from django.utils import timezone

from tests.annotation.services.exports_corpus import SMALL_DOC, build_export_corpus

from .conftest import client_for

DECIDED = {"DIRECT", "QUASI", "NO_MASK"}


@pytest.fixture
def demo(corpus, people, pick, import_documents):
    return {**build_export_corpus(corpus, people, pick, import_documents), **people, "corpus": corpus}


def url(demo) -> str:
    return f"/corpora/{demo['corpus'].pk}/export/"


def download(demo, **params):
    response = client_for(demo["manager"]).get(url(demo), params)
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Disposition"].startswith("attachment;")
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return response, json.loads(body)


def annotations(documents: list[dict]) -> dict[str, set[str]]:
    return {document["doc_id"]: set(document["annotations"]) for document in documents}


def test_the_form_defaults_to_the_tab_file_of_finished_layers(demo):
    page = client_for(demo["manager"]).get(url(demo)).content.decode()
    assert 'name="format" value="tab" required id="export_format_0" checked' in page
    assert 'name="layers" value="finished" required id="export_layers_0" checked' in page
    assert 'name="layers" value="all" required id="export_layers_1">' in page
    # 2 real documents with 3 imported (finished) layers, plus the small one with ann's
    # (in progress) and bob's (confirmed).
    assert "3 documents · 4 of 5 layers finished · not pre-annotated" in page


def test_the_annotators_to_choose_are_the_corpus_members_with_their_finished_layers(demo):
    page = client_for(demo["manager"]).get(url(demo), headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in page  # the dialog's content only
    for value, label in [
        ("annotator1", "annotator1 (2 of 2 layers finished)"),
        ("annotator10", "annotator10 (1 of 1 layer finished)"),
        ("ann_annotator", "ann_annotator (0 of 1 layer finished)"),
        ("bob_annotator", "bob_annotator (1 of 1 layer finished)"),
    ]:
        assert f'type="checkbox" name="annotators" value="{value}"' in page
        assert label in page
    assert 'value="rita_reviewer"' not in page and 'value="oscar_outsider"' not in page
    assert '<option value="preannotation">Pre-annotation engine (not run yet)</option>' in page
    assert "data-close-dialog" in page


def test_the_finished_only_default_has_no_undecided_mention(demo):
    response, documents = download(demo, format="tab", layers="finished")
    assert response.streaming  # written while it is sent
    assert annotations(documents) == {
        "001-79436": {"annotator1"},
        "001-83927": {"annotator1", "annotator10"},
        SMALL_DOC: {"bob_annotator"},
    }
    identifiers = [
        mention.get("identifier_type")
        for document in documents
        for layer in document["annotations"].values()
        for mention in layer["entity_mentions"]
    ]
    assert len(identifiers) == 37 + 38 + 38 + 3  # the source file's mentions, and bob's three
    assert set(identifiers) <= DECIDED


def test_all_layers_include_the_unfinished_one(demo):
    _, documents = download(demo, format="tab", layers="all")
    assert annotations(documents)[SMALL_DOC] == {"ann_annotator", "bob_annotator"}
    (small,) = [d for d in documents if d["doc_id"] == SMALL_DOC]
    undecided = [
        m["span_text"] for m in small["annotations"]["ann_annotator"]["entity_mentions"] if "identifier_type" not in m
    ]
    assert undecided == ["3 May 1997"]


def test_chosen_annotators_include_only_them(demo):
    _, documents = download(demo, format="tab", layers="finished", annotators=["annotator10", "bob_annotator"])
    assert annotations(documents) == {"001-79436": set(), "001-83927": {"annotator10"}, SMALL_DOC: {"bob_annotator"}}


def test_the_masked_output_file_of_one_annotator_is_their_direct_and_quasi_spans(demo):
    # bob: DIRECT "Mr John Smith" (15..28), QUASI "Oslo" (60..64); "3 May 1997" is NO_MASK.
    response, masks = download(demo, format="masks", layers="finished", masks_of="annotator:bob_annotator")
    assert masks == {SMALL_DOC: [[15, 28], [60, 64]]}
    today = timezone.localdate().isoformat()
    assert response["Content-Disposition"] == (
        f'attachment; filename="ECHR-test-masks-bob_annotator-finished-{today}.json"'
    )
    # ann (unfinished): DIRECT 15..28 and QUASI "1961" 42..46, with all layers only.
    _, masks = download(demo, format="masks", layers="all", masks_of="annotator:ann_annotator")
    assert masks == {SMALL_DOC: [[15, 28], [42, 46]]}


def test_the_file_name_says_corpus_scope_and_date(demo):
    response, _ = download(demo, format="tab", layers="all")
    today = timezone.localdate().isoformat()
    assert response["Content-Disposition"] == f'attachment; filename="ECHR-test-tab-all-layers-{today}.json"'


def test_a_refused_choice_shows_the_form_with_the_reason(demo):
    manager = client_for(demo["manager"])
    response = manager.get(url(demo), {"format": "masks", "layers": "finished", "masks_of": "annotator:ann_annotator"})
    page = response.content.decode()
    assert response.status_code == 400 and not response.has_header("Content-Disposition")
    assert "ann_annotator has no finished layer in corpus ECHR test (1 layer, none confirmed yet)" in page
    assert 'value="all" required id="export_layers_1"' in page  # the form is there to choose again
    nothing = manager.get(url(demo), {"format": "masks", "layers": "finished", "masks_of": "preannotation"})
    assert nothing.status_code == 400
    assert "No document of corpus ECHR test has been pre-annotated." in nothing.content.decode()


def test_only_members_can_be_chosen_no_free_text(demo):
    response = client_for(demo["manager"]).get(
        url(demo), {"format": "tab", "layers": "finished", "annotators": ["oscar_outsider"]}
    )
    assert response.status_code == 400
    assert "Select a valid choice. oscar_outsider is not one of the available choices." in response.content.decode()


@pytest.mark.parametrize("who", ["ann", "rita", "outsider"])
def test_a_non_manager_gets_404(demo, who):
    client = client_for(demo[who])
    assert client.get(url(demo)).status_code == 404
    assert client.get(url(demo), {"format": "tab", "layers": "all"}).status_code == 404


def test_the_corpus_page_opens_the_export_from_a_link_that_works_without_javascript(demo):
    page = client_for(demo["manager"]).get(f"/corpora/{demo['corpus'].pk}/").content.decode()
    assert f'id="export-open" href="{url(demo)}" hx-get="{url(demo)}"' in page
    assert '<dialog class="export-dialog" id="export-dialog"' in page
    annotator_page = client_for(demo["ann"]).get(f"/corpora/{demo['corpus'].pk}/").content.decode()
    assert "export-dialog" not in annotator_page and "export.js" not in annotator_page
