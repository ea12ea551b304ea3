"""The structure of an annotation, visible in the workspace (real Chromium, real TAB
documents): nested mentions keep both tags and are both selectable, the selected
entity's chain is outlined and a split mention shows it is another entity, review notes
are pinned to their mention, the entity panel is reachable at 800 px, and a document
without a layer shows its text. Each test saves a screenshot under artifacts/."""

import re

import pytest

from annotation.enums import LayerStatus, Role
from annotation.models import AnnotationLayer, Corpus, CorpusMembership, Document, Mention
from annotation.services import review as review_service
from annotation.services.layers import add_reviewer
from tests.conftest import REPO, make_user
from tests.frontend.test_workspace_browser import seed_preannotation as copy_as_preannotation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ARTIFACTS = REPO / "artifacts"


def corpus_with(pick, import_documents, doc_id: str, **people: str) -> Corpus:
    corpus = Corpus.objects.create(name=f"ECHR {doc_id}")
    import_documents(corpus, pick(doc_id))
    for name, role in people.items():
        CorpusMembership.objects.create(corpus=corpus, user=make_user(name), role=role)
    return corpus


def open_layer(login, live_server, username: str, layer: AnnotationLayer, viewport=(1440, 900)):
    page = login(username, viewport=viewport)
    page.goto(f"{live_server.url}/layers/{layer.pk}/")
    page.wait_for_selector("#doc-text mark[data-m]")
    page.wait_for_selector("#workspace[aria-busy='false']")  # the page's script is running
    return page


def mark(page, text: str, nth: int = 0):
    """The n-th mention whose text is exactly ``text``."""
    return page.locator("#doc-text mark[data-m]").filter(has_text=re.compile(f"^{re.escape(text)}$")).nth(nth)


def tag_of(page, selector: str) -> str:
    """The tag the page shows after a mark (its ::after text)."""
    return page.eval_on_selector(selector, "el => getComputedStyle(el, '::after').content")


def current(page) -> tuple[str, str]:
    """(entity of the panel, mention drawn as current) once the panel has loaded."""
    page.wait_for_selector("#entity-panel[data-entity]")
    return page.get_attribute("#entity-panel", "data-entity"), page.get_attribute("#doc-text mark.curm", "data-m")


def screenshot_around(page, selector: str, name: str, margin: int = 70, until: str | None = None) -> None:
    """A screenshot of the text's width around an element (down to ``until``'s bottom)."""
    page.eval_on_selector(selector, "el => el.scrollIntoView({block: 'center'})")
    page.wait_for_timeout(400)  # smooth scrolling may still be under way
    box = page.evaluate(
        "([first, last]) => { const t = document.getElementById('doc-text').getBoundingClientRect();"
        " const a = document.querySelector(first).getBoundingClientRect();"
        " const b = document.querySelector(last).getBoundingClientRect();"
        " return {x: t.left, width: t.width, y: a.top, bottom: b.bottom}; }",
        [selector, until or selector],
    )
    top = max(0, box["y"] - margin)
    page.screenshot(
        path=str(ARTIFACTS / name),
        clip={"x": box["x"], "y": top, "width": box["width"], "height": box["bottom"] + margin - top},
    )


# --- Nested mentions ------------------------------------------------------------------


@pytest.fixture
def nested_layer(pick, import_documents):
    """001-99929, annotator2: "53(1)" (CODE, QUASI) holds "1" (CODE, NO_MASK, the entity
    of every "Article 1"), and "13,208 sq. m" is annotated twice on the same span."""
    corpus_with(pick, import_documents, "001-99929", mia=Role.MANAGER)
    return AnnotationLayer.objects.get(document__doc_id="001-99929", annotator__username="annotator2")


def test_nested_mentions_show_both_tags_and_a_click_selects_the_inner_or_the_outer(login, live_server, nested_layer):
    mentions = {m.tab_mention_id.rsplit("_", 1)[1]: m for m in nested_layer.mentions.all()}
    outer, inner = mentions["em66"], mentions["em67"]
    page = open_layer(login, live_server, "mia", nested_layer)
    outer_mark, inner_mark = f"#doc-text mark[data-m='{outer.pk}']", f"#doc-text mark[data-m='{inner.pk}']"

    # Two elements, the inner inside the outer, each with its own tag shown after it.
    assert page.locator(outer_mark).count() == 1
    assert page.locator(f"{outer_mark} mark[data-m='{inner.pk}']").count() == 1
    assert page.inner_text(outer_mark).startswith("53(1)")
    # "53(1)" was inserted by the annotator ("+"), QUASI; "1" checked, NO_MASK (no letter).
    assert (tag_of(page, outer_mark), tag_of(page, inner_mark)) == ('"+CODE·Q"', '"CODE"')
    # The outer's own text keeps its offsets: "53(" at 2461, ")" at 2465.
    assert page.eval_on_selector_all(
        f"{outer_mark} > span[data-o]", "els => els.map(e => [e.dataset.o, e.textContent])"
    ) == [["2461", "53("], ["2465", ")"]]
    screenshot_around(page, outer_mark, "nested-spans.png")

    # Clicking the inner "1" selects the inner mention (and its entity's chain).
    page.click(inner_mark)
    page.wait_for_selector(f"{inner_mark}.curm")
    assert current(page) == (str(inner.entity_id), str(inner.pk))
    chain = Mention.objects.filter(entity_id=inner.entity_id).count()
    assert page.locator(f"#doc-text mark[data-e='{inner.entity_id}'].cur").count() == chain
    assert page.locator(f"{outer_mark}.cur").count() == 0
    # The same at 200 % (browser zoom), the inner mention selected, to see the structure.
    page.eval_on_selector("#doc-text", "el => { el.style.zoom = 2; }")
    screenshot_around(page, outer_mark, "nested-spans-zoomed.png", margin=30)
    page.eval_on_selector("#doc-text", "el => { el.style.zoom = ''; }")

    # Clicking the outer's own text ("53(") selects the outer mention.
    page.click(f"{outer_mark} > span[data-o='2461']")
    page.wait_for_selector(f"{outer_mark}.curm")
    page.wait_for_selector(f"#entity-panel[data-entity='{outer.entity_id}']")
    assert current(page) == (str(outer.entity_id), str(outer.pk))
    assert page.locator(f"{inner_mark}.cur").count() == 0

    # Identical spans: the outer holds nothing but the inner; its framed tag selects it.
    first, second = mentions["em146"], mentions["em147"]
    first_mark, second_mark = f"#doc-text mark[data-m='{first.pk}']", f"#doc-text mark[data-m='{second.pk}']"
    assert page.locator(f"{first_mark} > mark[data-m='{second.pk}']").count() == 1
    assert (tag_of(page, first_mark), tag_of(page, second_mark)) == ('"+QTY·Q"', '"+QTY·Q"')
    page.eval_on_selector(first_mark, "el => el.scrollIntoView({block: 'center'})")
    page.click(second_mark)
    page.wait_for_selector(f"{second_mark}.curm")
    tag = page.eval_on_selector(
        first_mark,
        "(el) => { const o = [...el.getClientRects()].pop();"
        " const i = [...el.querySelector('mark').getClientRects()].pop();"
        " return {x: (i.right + o.right) / 2, y: o.top + o.height / 2}; }",
    )
    page.mouse.click(tag["x"], tag["y"])
    page.wait_for_selector(f"{first_mark}.curm")
    assert page.locator(f"{second_mark}.curm").count() == 0


# --- The chain of the selected entity, and a split mention ---------------------------


@pytest.fixture
def annotators_layer(pick, import_documents):
    """ann's layer of 001-83927, pre-annotated with annotator1's spans and coreference."""
    corpus = corpus_with(pick, import_documents, "001-83927", ann=Role.ANNOTATOR)
    document = corpus.documents.get()
    ann = CorpusMembership.objects.get(user__username="ann").user
    layer = AnnotationLayer.objects.create(document=document, annotator=ann)
    copy_as_preannotation(document.layers.get(annotator__username="annotator1"), layer)
    return layer


def test_the_selected_chain_is_outlined_and_a_split_mention_shows_another_number(login, live_server, annotators_layer):
    page = open_layer(login, live_server, "ann", annotators_layer)
    # No string is shared by two entities yet: no chain number in the text.
    assert page.locator("#doc-text mark[data-chain]").count() == 0
    # Entities are numbered in list order (by first mention): "Court of Cassation" is the
    # 23rd of annotator1's entities, "Istanbul Assize Court" the 26th.
    assert page.get_attribute("#entity-list > li:nth-child(23) .ent-btn", "data-n") == "23"

    mark(page, "Court of Cassation", 1).click()
    page.wait_for_selector("#doc-text mark.curm")
    page.keyboard.press("s")
    page.wait_for_function(
        "() => { const c = [...document.querySelectorAll('#doc-text mark[data-m]')]"
        ".filter(m => m.textContent === 'Court of Cassation'); return c[0].dataset.e !== c[1].dataset.e; }"
    )
    # The split mention (offset 3094) is now an entity of its own, after "20 March 2006"
    # (3076) and before "Assize Court" (3141): the 29th. The other keeps number 23.
    page.wait_for_function(
        "() => [...document.querySelectorAll('#doc-text mark[data-chain]')]"
        ".map(m => m.dataset.chain).join() === '23,29'"
    )
    assert [mark(page, "Court of Cassation", n).get_attribute("data-chain") for n in (0, 1)] == ["23", "29"]
    assert page.get_attribute("#entity-list > li:nth-child(29) .ent-btn", "data-n") == "29"
    assert "Court of Cassation" in page.inner_text("#entity-list > li:nth-child(29)")

    # Selecting "Istanbul Assize Court" outlines its four mentions, the clicked one more.
    mark(page, "Istanbul Assize Court", 2).click()
    entity = mark(page, "Istanbul Assize Court", 2).get_attribute("data-e")
    page.wait_for_selector(f"#entity-panel[data-entity='{entity}']")
    outlined = page.locator("#doc-text mark.cur")
    assert outlined.count() == 4 and page.locator("#doc-text mark.curm").count() == 1
    assert {outlined.nth(n).get_attribute("data-e") for n in range(4)} == {entity}
    assert "curm" in mark(page, "Istanbul Assize Court", 2).get_attribute("class")
    ring = page.eval_on_selector("#doc-text mark.cur:not(.curm)", "el => getComputedStyle(el).boxShadow")
    assert "2px" in ring and ring != "none"
    marks = f"#doc-text mark[data-e='{entity}']"
    page.eval_on_selector(marks, "el => el.scrollIntoView({block: 'start'})")
    page.screenshot(path=str(ARTIFACTS / "chain-outline.png"))


# --- Notes pinned on their mention ---------------------------------------------------------


@pytest.fixture
def layer_in_review(pick, import_documents):
    """alice's confirmed layer of 001-83927 (annotator1's annotations) in review by rita,
    who read the masked document and left two notes: one open on the second "Court of
    Cassation", one on the entity "Mr Cengiz Polat", settled as kept."""
    (document,) = pick("001-83927")
    document["annotations"] = {"alice": document["annotations"]["annotator1"]}
    document["quality_checked"] = []
    corpus = Corpus.objects.create(name="ECHR review")
    import_documents(corpus, [document])
    alice = AnnotationLayer.objects.get(document__corpus=corpus).annotator  # the account the import made
    alice.set_password("pw-alice")
    alice.is_active = True
    alice.save()
    rita = make_user("rita")
    CorpusMembership.objects.get_or_create(corpus=corpus, user=alice, role=Role.ANNOTATOR)
    CorpusMembership.objects.create(corpus=corpus, user=rita, role=Role.REVIEWER)
    layer = AnnotationLayer.objects.get(document__corpus=corpus)
    AnnotationLayer.objects.filter(pk=layer.pk).update(status=LayerStatus.CONFIRMED)
    layer.refresh_from_db()
    assignment = add_reviewer(layer, rita, actor=None)
    review_service.record_masked_reading(assignment, reidentifiable="no", actor=rita)
    layer.refresh_from_db()
    court = layer.mentions.filter(span_text="Court of Cassation").order_by("start_offset")[1]
    polat = layer.mentions.get(span_text="Mr Cengiz Polat")
    open_note = review_service.open_thread(layer, actor=rita, body="Is this the same court?", mention=court)
    kept = review_service.open_thread(layer, actor=rita, body="Direct, surely?", entity=polat.entity)
    review_service.settle(kept, "kept", actor=alice, body="It is.")
    return layer, court, polat, open_note, kept


def test_a_note_is_pinned_on_its_mention_and_its_pin_opens_the_thread(login, live_server, layer_in_review):
    layer, court, polat, open_note, kept = layer_in_review
    page = open_layer(login, live_server, "alice", layer)
    page.wait_for_selector("#doc-text .note-pin")
    pins = page.eval_on_selector_all(
        "#doc-text .note-pin",
        "els => els.map(p => [p.dataset.thread, p.className, p.nextElementSibling.dataset.m])",
    )
    # Document order: Mr Cengiz Polat (254) first, then the second Court of Cassation (3094).
    assert pins == [
        [f"thread-{kept.pk}", "note-pin note-settled", str(polat.pk)],
        [f"thread-{open_note.pk}", "note-pin note-open", str(court.pk)],
    ]
    # The pin adds no text: the mention's run keeps its text and offset.
    assert page.get_attribute(f"#doc-text mark[data-m='{court.pk}']", "data-o") == "3094"

    pin = f"#doc-text .note-pin[data-thread='thread-{open_note.pk}']"
    page.eval_on_selector(pin, "el => el.scrollIntoView({block: 'center'})")
    screenshot_around(page, f"#doc-text mark[data-m='{court.pk}']", "note-marker.png", margin=40)
    page.click(pin)
    thread = f"#thread-{open_note.pk}"
    page.wait_for_selector(f"{thread}.thread-focus")
    assert page.evaluate("() => document.activeElement.id") == f"reply-{open_note.pk}"
    visible = page.eval_on_selector(
        thread,
        "(el) => { const r = el.getBoundingClientRect(); const p = el.closest('#review-panel').getBoundingClientRect();"
        " return r.top >= p.top - 1 && r.top < p.bottom && r.top < innerHeight; }",
    )
    assert visible
    # The click opened the note; it did not select the mention under the pin.
    assert page.locator("#doc-text mark.curm").count() == 0
    page.screenshot(path=str(ARTIFACTS / "note-thread-open.png"))


# --- 800 px ------------------------------------------------------------------------------


def test_at_800_px_the_entity_panel_is_in_the_first_screen_and_the_list_one_tab_away(
    login, live_server, annotators_layer
):
    page = open_layer(login, live_server, "ann", annotators_layer, viewport=(800, 900))
    panel = page.locator("#entity-panel").bounding_box()
    assert 0 <= panel["y"] < 900 and panel["y"] + 40 < 900
    assert page.locator("#entity-list").is_hidden()
    page.click("[data-side-tab='entities']")
    page.wait_for_selector("#entity-list", state="visible")
    assert page.locator("#entity-list").bounding_box()["y"] < 900
    # Picking an entity in the list shows its panel, still in the first screen.
    page.click("#entity-list > li:nth-child(4) .ent-btn")
    page.wait_for_selector("#entity-panel[data-entity] .panel-title")
    assert page.inner_text("#entity-panel .panel-title") == "“Mr Cengiz Polat”"
    assert page.locator("#entity-panel").bounding_box()["y"] < 900
    page.wait_for_timeout(400)  # the text scrolls smoothly to the mention
    page.screenshot(path=str(ARTIFACTS / "workspace-800px.png"))
    # Folded, the drawer leaves the text the whole window, and a tab brings it back.
    page.click("[data-side-fold]")
    assert page.locator("#entity-panel").is_hidden()
    page.click("[data-side-tab='panel']")
    page.wait_for_selector("#entity-panel", state="visible")


# --- A document without a layer ------------------------------------------------------------


def test_a_document_without_a_layer_shows_its_text(login, live_server, corpus, people):
    text = "The applicant, Mr Galip Yalman, was born in 1950.\n\nHe lives in Izmir."
    document = Document.objects.create(corpus=corpus, doc_id="bare-1", text=text)
    page = login("mia_manager")
    page.goto(f"{live_server.url}/documents/{document.pk}/")
    page.wait_for_selector("#no-layer")
    assert page.inner_text("#doc-text").replace("\n", " ").split() == text.split()
    assert page.locator("#doc-text mark").count() == 0
