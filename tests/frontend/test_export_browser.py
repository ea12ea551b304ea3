"""Exporting from the corpus page in a real Chromium, on the real TAB case 001-83927:
the dialog, its finished-only default, a masked-output file, and the same form without
JavaScript."""

import json

import pytest
from django.utils import timezone

from annotation.enums import LayerStatus, Role
from annotation.models import AnnotationLayer, Corpus, CorpusMembership, Entity, Mention
from tests.conftest import REPO, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ARTIFACTS = REPO / "artifacts"
DOC = "001-83927"


@pytest.fixture
def case(pick, import_documents):
    """The case as imported (annotator1 confirmed, annotator10 reviewed), and ann's layer
    in progress: annotator1's first five spans, undecided."""
    source = pick(DOC)[0]
    corpus = Corpus.objects.create(name="ECHR")
    import_documents(corpus, [source])
    document = corpus.documents.get()
    manager, ann = make_user("mia"), make_user("ann")
    CorpusMembership.objects.create(corpus=corpus, user=manager, role=Role.MANAGER)
    CorpusMembership.objects.create(corpus=corpus, user=ann, role=Role.ANNOTATOR)
    layer = AnnotationLayer.objects.create(document=document, annotator=ann, status=LayerStatus.IN_PROGRESS, position=2)
    for number, mention in enumerate(source["annotations"]["annotator1"]["entity_mentions"][:5]):
        Mention.objects.create(
            layer=layer,
            entity=Entity.objects.create(layer=layer, tab_entity_id=f"ann_e{number}"),
            tab_mention_id=f"ann_em{number}",
            start_offset=mention["start_offset"],
            end_offset=mention["end_offset"],
            span_text=mention["span_text"],
            entity_type=mention["entity_type"],
        )
    return {"corpus": corpus, "source": source}


def read_download(download) -> object:
    with open(download.path(), encoding="utf-8") as stream:
        return json.load(stream)


def test_manager_exports_from_the_dialog(login, case):
    corpus, source = case["corpus"], case["source"]
    page = login("mia")
    page.goto(page.url.rstrip("/") + f"/corpora/{corpus.pk}/")
    page.click("#export-open")
    dialog = page.locator("dialog#export-dialog[open]")
    dialog.wait_for()
    assert "1 document · 2 of 3 layers finished · not pre-annotated" in dialog.inner_text()
    assert dialog.locator("#export_layers_0").is_checked()  # finished only by default
    assert dialog.locator("#export_masks_of").is_disabled()  # the TAB file is chosen
    page.screenshot(path=str(ARTIFACTS / "export-dialog.png"))

    # The default: the TAB corpus JSON of the finished layers only.
    with page.expect_download() as info:
        dialog.locator("#export-download").click()
    download = info.value
    today = timezone.localdate().isoformat()
    assert download.suggested_filename == f"ECHR-tab-finished-{today}.json"
    (exported,) = read_download(download)
    assert set(exported["annotations"]) == {"annotator1", "annotator10"}
    mentions = [m for layer in exported["annotations"].values() for m in layer["entity_mentions"]]
    assert len(mentions) == 38 + 38 and all(m.get("identifier_type") for m in mentions)
    dialog.locator("[data-export-started]").wait_for()

    # annotator10's masked-output file, as the official evaluation script reads it.
    dialog.locator("#export_format_1").check()
    assert dialog.locator("#export_annotators_0").is_disabled() and dialog.locator("#export_masks_of").is_enabled()
    dialog.locator("#export_masks_of").select_option("annotator:annotator10")
    with page.expect_download() as info:
        dialog.locator("#export-download").click()
    expected = sorted(
        {
            (m["start_offset"], m["end_offset"])
            for m in source["annotations"]["annotator10"]["entity_mentions"]
            if m["identifier_type"] in ("DIRECT", "QUASI")
        }
    )  # from the source file, not from the database
    masks = read_download(info.value)
    assert list(masks) == [DOC] and [tuple(span) for span in masks[DOC]] == expected
    assert info.value.suggested_filename == f"ECHR-masks-annotator10-finished-{today}.json"

    dialog.locator("[data-close-dialog]").click()
    page.locator("dialog#export-dialog:not([open])").wait_for(state="attached")


def test_the_export_works_without_javascript(browser, live_server, case):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/login/")
        page.fill("#id_username", "mia")
        page.fill("#id_password", "pw-mia")
        page.click("button[type=submit]")
        page.goto(f"{live_server.url}/corpora/{case['corpus'].pk}/")
        page.click("#export-open")  # a plain link: the export page
        page.wait_for_selector("h2#export-title")
        assert page.url.endswith(f"/corpora/{case['corpus'].pk}/export/")
        page.check("#export_layers_1")  # all layers, ann's unfinished one too
        with page.expect_download() as info:
            page.click("#export-download")
        (exported,) = read_download(info.value)
        assert set(exported["annotations"]) == {"annotator1", "annotator10", "ann"}
        undecided = [m for m in exported["annotations"]["ann"]["entity_mentions"] if "identifier_type" not in m]
        assert len(undecided) == 5

        # A refused choice comes back as the page with the reason.
        page.check("#export_layers_0")
        page.check("#export_format_1")
        page.select_option("#export_masks_of", "annotator:ann")
        page.click("#export-download")
        page.wait_for_selector("#export-error")
        assert "ann has no finished layer in corpus ECHR" in page.inner_text("#export-error")
    finally:
        context.close()
