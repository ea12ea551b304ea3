"""The pair review (TAB Step 5) in a real Chromium: two annotators who review each
other's layer of a real court case; a direct correction, a disagreement note settled,
both sign-offs, and the TAB export marking the layer quality_checked."""

import json

import pytest

from annotation.enums import LayerStatus, Role
from annotation.models import AnnotationLayer, AuditEvent, Corpus, CorpusMembership, ReviewThread
from tests.conftest import REPO, make_user

from .conftest import drag_select

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ARTIFACTS = REPO / "artifacts"
DOC = "001-83927"


@pytest.fixture
def review_case(pick, import_documents, eager_tasks):
    """alice and bob each confirmed a layer of the same case (the two original
    annotations of the TAB document, renamed); mia manages the corpus."""
    corpus = Corpus.objects.create(name="ECHR review")
    people = {name: make_user(name) for name in ("mia", "alice", "bob")}
    CorpusMembership.objects.create(corpus=corpus, user=people["mia"], role=Role.MANAGER)
    for name in ("alice", "bob"):
        CorpusMembership.objects.create(corpus=corpus, user=people[name], role=Role.ANNOTATOR)
    (document,) = pick(DOC)
    annotations = document["annotations"]
    document["annotations"] = {"alice": annotations["annotator1"], "bob": annotations["annotator10"]}
    document["quality_checked"] = []
    import_documents(corpus, [document])
    AnnotationLayer.objects.filter(document__corpus=corpus).update(status=LayerStatus.CONFIRMED)
    return corpus, people


def test_two_reviewers_correct_discuss_and_sign_off(login, live_server, review_case):
    corpus, people = review_case
    alices = AnnotationLayer.objects.get(document__corpus=corpus, annotator__username="alice")

    # The manager pairs alice and bob: each now reviews the other's confirmed layer.
    manager = login("mia")
    manager.goto(f"{live_server.url}/corpora/{corpus.pk}/reviews/")
    manager.select_option("#pair-first", label="alice")
    manager.select_option("#pair-second", label="bob")
    manager.click("#pair-form button[type=submit]")
    manager.wait_for_selector("text=Paired alice and bob.")
    assert manager.locator("#review-layers tbody tr").count() == 2

    # bob reads alice's masked document first, then opens her annotations.
    bob = login("bob")
    bob.click("nav >> text=Reviews")
    row = bob.locator("#to-review tr", has_text="alice")
    row.locator("text=Read masked document").click()
    bob.wait_for_selector("article#masked-review")
    masked = bob.inner_text("article#masked-review")
    assert "Polat" not in masked and "*****" in masked
    bob.screenshot(path=str(ARTIFACTS / "review-masked-first.png"), full_page=False)
    bob.check("input[name=reidentifiable][value=no]")
    bob.fill("#comment", "Nothing left that points to him.")
    bob.click("text=Continue to the annotations")
    bob.wait_for_selector("#doc-text mark[data-m]")
    bob.wait_for_selector("#review-panel")
    bob.wait_for_selector("#workspace[aria-busy='false']")  # the page's script is running

    # A direct correction: a span alice missed ("Istanbul" is not annotated by her? add a new one).
    before = alices.mentions.count()
    target = _unannotated_word(alices)
    drag_select(bob, target)
    bob.wait_for_selector("#menu:not([hidden])")
    bob.keyboard.press("l")  # LOC
    bob.wait_for_function(f"() => document.querySelectorAll('#doc-text mark[data-m]').length > {before}")
    bob.keyboard.press("3")  # NO_MASK: a correction leaves no entity undecided
    bob.wait_for_selector(f"#doc-text mark.d-NO_MASK:text-is('{target}')")
    bob.wait_for_selector("#workspace[aria-busy='false']")  # shown at the key press; now saved too
    assert alices.mentions.count() == before + 1
    correction = AuditEvent.objects.filter(layer=alices, action="mention.create").latest("at")
    assert correction.actor.username == "bob"

    # A real disagreement: a note on an entity.
    bob.reload()
    bob.wait_for_selector("#review-panel")
    bob.wait_for_selector("#workspace[aria-busy='false']")
    bob.locator("#doc-text mark[data-m]", has_text="Mr E. Kanar").first.click()  # the note form follows
    bob.wait_for_function(
        "() => document.getElementById('note-entity').selectedOptions[0].text === 'Mr E. Kanar (PERSON)'"
    )
    bob.fill("#note-body", "The lawyer's name identifies him directly: DIRECT?")
    bob.click("#new-note button[type=submit]")
    bob.wait_for_selector(".thread-open")
    assert bob.locator("#review-confirm").is_disabled()

    # alice sees the note and bob's correction, agrees, changes her layer, resolves the
    # note and signs off.
    alice = login("alice")
    alice.click("nav >> text=Reviews")
    alice.locator("#my-reviews tr", has_text=DOC).locator("text=Open").click()
    alice.wait_for_selector("#review-panel .thread-open")
    alice.wait_for_selector("#workspace[aria-busy='false']")
    panel = alice.inner_text("#review-panel")
    assert "The lawyer's name identifies him directly: DIRECT?" in panel and "“Mr E. Kanar”" in panel
    corrections = alice.inner_text("#review-panel .correction >> nth=-1")
    assert corrections.startswith("bob") and f"added “{target}” as LOC" in corrections
    alice.locator("#doc-text mark[data-m]", has_text="Mr E. Kanar").first.click()
    alice.keyboard.press("1")  # DIRECT
    alice.wait_for_selector("#doc-text mark.d-DIRECT:text-is('Mr E. Kanar')")
    alice.fill("#review-panel .thread-open .reply input[name=body]", "Agreed, changed to DIRECT.")
    alice.click("#review-panel .thread-open .reply button")
    alice.wait_for_selector("text=Agreed, changed to DIRECT.")
    alice.click("#review-panel .thread-open >> text=Resolved")
    alice.wait_for_selector("#review-panel .thread-resolved")
    alice.click("#review-confirm")
    alice.wait_for_selector("#review-panel .signoffs >> text=✓ alice")
    thread = ReviewThread.objects.get(layer=alices)
    assert thread.status == "resolved" and thread.settled_by.username == "alice"
    assert set(alices.mentions.filter(span_text="Mr E. Kanar").values_list("identifier_type", flat=True)) == {"DIRECT"}
    alices.refresh_from_db()
    assert alices.status == LayerStatus.UNDER_REVIEW  # bob has not signed off yet

    # bob signs off: both sides have confirmed this version, the layer is reviewed.
    bob.reload()
    bob.wait_for_selector("#review-panel .thread-resolved")
    bob.click("#review-confirm")
    bob.wait_for_selector("#review-panel >> text=Quality checked")
    assert bob.locator("#review-panel .signoffs li", has_text="✓").count() == 2
    bob.screenshot(path=str(ARTIFACTS / "review-panel.png"), full_page=True)
    alices.refresh_from_db()
    assert alices.status == LayerStatus.REVIEWED

    # alice, as the second reviewer, has started on bob's layer: it is not checked yet.
    alice.click("nav >> text=Reviews")
    alice.locator("#to-review tr", has_text="bob").locator("text=Read masked document").click()
    alice.check("input[name=reidentifiable][value=maybe]")
    alice.click("text=Continue to the annotations")
    alice.wait_for_selector("#review-panel")

    # The export names alice, and only alice, as quality checked.
    response = manager.request.get(f"{live_server.url}/api/corpora/{corpus.pk}/export/tab/")
    assert response.ok, response.text()
    (exported,) = json.loads(response.text())
    assert exported["quality_checked"] == ["alice"]
    assert set(exported["annotations"]) == {"alice", "bob"}
    assert target in [m["span_text"] for m in exported["annotations"]["alice"]["entity_mentions"]]


def _unannotated_word(layer) -> str:
    """A capitalised word of the text that no mention of ``layer`` covers, seen once."""
    text = layer.document.text
    covered = [(m.start_offset, m.end_offset) for m in layer.mentions.all()]
    for word in sorted(set(text.replace(",", " ").replace(".", " ").split()), key=text.index):
        if len(word) > 4 and word[0].isupper() and word.isalpha() and text.count(word) == 1:
            start = text.index(word)
            if not any(s < start + len(word) and start < e for s, e in covered):
                return word
    raise AssertionError("no unannotated word")
