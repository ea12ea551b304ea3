"""The annotation workspace in a real Chromium, on a real TAB court case.

The annotator's layer starts from a pre-annotation (the spans of the document's
first original annotator, without decisions), as the engine will provide it."""

import re

import pytest
from django.db.models import Count

from annotation.enums import EditType, LayerStatus, Origin, Role
from annotation.models import AnnotationLayer, Corpus, CorpusMembership, Entity, MaskedReview, Mention, MentionLink
from annotation.services.decisions import set_entity_decision
from tests.conftest import REPO, make_user

from .conftest import drag_select

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ARTIFACTS = REPO / "artifacts"


def seed_preannotation(source: AnnotationLayer, target: AnnotationLayer, skip: set[str] = frozenset()) -> None:
    """Copy the spans and coreference of ``source`` into ``target`` as pre-annotations."""
    entities = {}
    for mention in source.mentions.select_related("entity").order_by("start_offset"):
        if mention.span_text in skip:
            continue
        if mention.entity_id not in entities:
            entities[mention.entity_id] = Entity.objects.create(
                layer=target, tab_entity_id=mention.entity.tab_entity_id.replace("_a1_", "_pre_")
            )
        Mention.objects.create(
            layer=target,
            entity=entities[mention.entity_id],
            tab_mention_id=mention.tab_mention_id.replace("_a1_", "_pre_"),
            start_offset=mention.start_offset,
            end_offset=mention.end_offset,
            span_text=mention.span_text,
            entity_type=mention.entity_type,
            edit_type=EditType.CHECK,
            origin=Origin.PREANNOTATION,
            original_start=mention.start_offset,
            original_end=mention.end_offset,
            original_entity_type=mention.entity_type,
        )


@pytest.fixture
def case(pick, import_documents):
    corpus = Corpus.objects.create(name="ECHR")
    import_documents(corpus, pick("001-83927"))
    document = corpus.documents.get()
    ann = make_user("ann")
    CorpusMembership.objects.create(corpus=corpus, user=ann, role=Role.ANNOTATOR)
    layer = AnnotationLayer.objects.create(document=document, annotator=ann)
    seed_preannotation(document.layers.get(annotator__username="annotator1"), layer, skip={"Istanbul"})
    return layer


def open_workspace(login, layer):
    page = login("ann")
    page.click("text=My work")
    page.click(f"#my-work >> text={layer.document.doc_id}")
    page.wait_for_selector("#doc-text mark[data-m]")
    page.wait_for_selector("#workspace[aria-busy='false']")  # the page's script is running (keys, clicks)
    return page


def mark(page, text: str, nth: int = 0):
    """The n-th mention whose text is exactly ``text``."""
    return page.locator("#doc-text mark[data-m]").filter(has_text=re.compile(f"^{re.escape(text)}$")).nth(nth)


def entity_of(page, text: str, nth: int = 0) -> str:
    return mark(page, text, nth).get_attribute("data-e")


def test_annotator_works_through_a_real_court_case(login, case):
    page = open_workspace(login, case)
    assert page.locator(".taskbox-person").inner_text() == "Cengiz Polat"

    # Step 1: a new span by selecting it with the mouse, then its type from the menu.
    drag_select(page, "Istanbul", 0)
    page.wait_for_selector("#menu:not([hidden])")
    page.keyboard.press("l")
    page.wait_for_selector("#doc-text mark.t-LOC:text-is('Istanbul')")
    created = Mention.objects.get(layer=case, span_text="Istanbul")
    assert (created.start_offset, created.end_offset, created.edit_type) == (379, 387, "insert")
    page.keyboard.press("y")
    page.keyboard.press("o")
    page.wait_for_selector("#doc-text mark.t-ORG:text-is('Istanbul')")
    assert Mention.objects.get(pk=created.pk).entity_type == "ORG"

    # Step 2: QUASI on an entity with four mentions changes all of them at once.
    mark(page, "Istanbul State Security Court").click()
    page.keyboard.press("2")
    court = entity_of(page, "Istanbul State Security Court")
    page.wait_for_function(
        "e => [...document.querySelectorAll(`mark[data-e='${e}']`)].every(m => m.classList.contains('d-QUASI'))",
        arg=court,
    )
    page.wait_for_selector("#workspace[aria-busy='false']")  # shown at the key press; now saved too
    assert page.locator(f"mark[data-e='{court}'].d-QUASI").count() == 4
    assert set(Mention.objects.filter(entity_id=court).values_list("identifier_type", flat=True)) == {"QUASI"}

    # Step 4: merge "Turkish Government" into "Republic of Turkey", then split a mention out.
    mark(page, "Republic of Turkey").click()
    page.keyboard.press("m")
    mark(page, "Turkish Government").click()
    page.wait_for_function(
        "() => { const a = [...document.querySelectorAll('#doc-text mark[data-m]')];"
        " const r = a.find(m => m.textContent.startsWith('Republic of Turkey'));"
        " const g = a.find(m => m.textContent.startsWith('Turkish Government')); return r.dataset.e === g.dataset.e; }"
    )
    merged = Mention.objects.get(layer=case, span_text="Turkish Government")
    assert merged.entity_id == Mention.objects.get(layer=case, span_text="Republic of Turkey").entity_id
    assert MentionLink.objects.filter(source=merged).exists()
    mark(page, "Court of Cassation", 1).click()
    page.keyboard.press("s")
    page.wait_for_function(
        "() => { const c = [...document.querySelectorAll('#doc-text mark[data-m]')]"
        ".filter(m => m.textContent.startsWith('Court of Cassation')); return c[0].dataset.e !== c[1].dataset.e; }"
    )
    assert Mention.objects.filter(layer=case, span_text="Court of Cassation").values("entity").distinct().count() == 2

    # Review mode: walk the undecided entities in document order, decide with keys, undo.
    page.keyboard.press("Escape")
    page.keyboard.press("r")
    page.wait_for_selector("#doc-text mark.cur:text-is('40593/04')")
    page.keyboard.press("1")
    page.wait_for_selector("#doc-text mark.cur:text-is('Republic of Turkey')")  # moved on to the next undecided
    assert mark(page, "40593/04").get_attribute("class").count("d-DIRECT") == 1
    page.keyboard.press("3")
    page.wait_for_selector("#doc-text mark.cur:text-is('Turkish')")
    assert "d-NO_MASK" in mark(page, "Republic of Turkey").get_attribute("class")
    page.keyboard.press("u")
    page.wait_for_selector("#doc-text mark.d-UNDECIDED:text-is('Republic of Turkey')")
    assert set(
        Mention.objects.filter(layer=case, span_text__in=["Republic of Turkey", "Turkish Government"]).values_list(
            "identifier_type", flat=True
        )
    ) == {None}

    page.keyboard.press("?")
    assert page.locator("#help").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("#help").is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    mark(page, "Istanbul State Security Court").click()
    page.wait_for_selector("#entity-panel .mention-list")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / "workspace.png"))


def test_confirm_then_read_the_masked_review(login, case, eager_tasks):
    # Everything decided but one entity; the applicant's name masked.
    for entity in Entity.objects.filter(layer=case).annotate(n=Count("mentions")).order_by("id"):
        first = entity.mentions.order_by("start_offset").first()
        if first.span_text == "1965":
            continue
        decision = "DIRECT" if first.entity_type in ("PERSON", "CODE") else "QUASI"
        set_entity_decision(entity, actor=case.annotator, identifier_type=decision)
    page = open_workspace(login, case)
    page.click("#btn-confirm")
    page.wait_for_selector("#confirm-dialog")
    assert "1 entity has no masking decision yet: “1965”" in page.inner_text("#confirm-dialog")
    assert page.locator("#confirm-submit").is_disabled()
    page.click("#confirm-dialog .finding.error button")  # "show": jumps to the entity
    page.wait_for_selector("#doc-text mark.cur:text-is('1965')")
    page.keyboard.press("2")
    page.wait_for_selector("#doc-text mark.d-QUASI:text-is('1965')")
    page.click("#btn-confirm")
    page.wait_for_selector("#confirm-dialog")
    if page.locator("input[name=accept_warnings]").count():
        page.check("input[name=accept_warnings]")
    page.click("#confirm-submit")
    page.wait_for_url(f"**/layers/{case.pk}/masked/")
    page.wait_for_selector("article#masked-review")
    masked = page.inner_text("article#masked-review")
    name = case.document.text.index("Mr Cengiz Polat")
    assert "Polat" not in masked
    assert masked[name : name + 15] == "*" * 15  # one star per character, offsets unchanged
    assert masked.startswith("PROCEDURE")
    case.refresh_from_db()
    assert case.status == LayerStatus.CONFIRMED
    assert MaskedReview.objects.get(layer=case).layer_version == case.version
    page.screenshot(path=str(ARTIFACTS / "masked-review.png"))


def test_offsets_are_exact_beyond_the_basic_multilingual_plane(login, corpus):
    from annotation.models import Document

    text = "Réunion 😀😀 in 𝒜rles: the applicant, Zoe\u0301 Martin-Dupont 👩🏽‍⚖️, met Ana on 3 May."
    document = Document.objects.create(corpus=corpus, doc_id="emoji", text=text, person_to_protect="Zoé Martin-Dupont")
    ann = make_user("ann")
    CorpusMembership.objects.create(corpus=corpus, user=ann, role=Role.ANNOTATOR)
    layer = AnnotationLayer.objects.create(document=document, annotator=ann)
    page = login("ann")
    page.goto(page.url.rstrip("/") + f"/layers/{layer.pk}/")
    page.wait_for_selector("#doc-text [data-o]")
    for needle, key in (("Zoe\u0301 Martin-Dupont", "p"), ("Ana", "p"), ("3 May", "t")):
        drag_select(page, needle)
        page.wait_for_selector("#menu:not([hidden])")
        page.keyboard.press(key)
        page.wait_for_selector(f"#doc-text mark[data-m]:text-is('{needle}')")
    # Keyboard only: a selection made without the mouse (caret browsing), then Enter.
    page.evaluate(
        """() => {
          const run = [...document.querySelectorAll('#doc-text [data-o]')].find(r => r.textContent.includes('𝒜rles'));
          const node = run.firstChild, i = node.data.indexOf('𝒜rles'), range = document.createRange();
          range.setStart(node, i); range.setEnd(node, i + '𝒜rles'.length);
          getSelection().removeAllRanges(); getSelection().addRange(range);
        }"""
    )
    page.keyboard.press("Enter")
    page.wait_for_selector("#menu:not([hidden])")
    page.keyboard.press("l")
    page.wait_for_selector("#doc-text mark[data-m]:text-is('𝒜rles')")
    spans = list(
        Mention.objects.filter(layer=layer)
        .order_by("start_offset")
        .values_list("start_offset", "end_offset", "span_text")
    )
    # Offsets are Python code points: each emoji and the mathematical A count once, not twice.
    assert spans == [
        (text.index("𝒜rles"), text.index("𝒜rles") + 5, "𝒜rles"),
        (text.index("Zoe"), text.index("Zoe") + len("Zoe\u0301 Martin-Dupont"), "Zoe\u0301 Martin-Dupont"),
        (text.index("Ana"), text.index("Ana") + 3, "Ana"),
        (text.index("3 May"), text.index("3 May") + 5, "3 May"),
    ]
    assert all(text[start:end] == span for start, end, span in spans)


def test_two_tabs_never_overwrite_each_other_silently(login, case):
    first = open_workspace(login, case)
    second = open_workspace(login, case)
    mark(first, "Istanbul Assize Court").click()
    first.keyboard.press("2")
    first.wait_for_selector("#doc-text mark.d-QUASI:text-is('Istanbul Assize Court')")
    first.wait_for_selector("#workspace[aria-busy='false']")  # shown at the key press; now saved too
    mark(second, "Istanbul Assize Court").click()
    second.keyboard.press("3")  # made on a stale page
    second.wait_for_selector("#flash .flash-error")
    assert "changed in another tab or by someone else" in second.inner_text("#flash")
    # The second tab now shows the first tab's decision, and the database kept it.
    second.wait_for_selector("#doc-text mark.d-QUASI:text-is('Istanbul Assize Court')")
    assert set(
        Mention.objects.filter(layer=case, span_text="Istanbul Assize Court").values_list("identifier_type", flat=True)
    ) == {"QUASI"}
    # Its next change goes through.
    second.keyboard.press("3")
    second.wait_for_selector("#doc-text mark.d-NO_MASK:text-is('Istanbul Assize Court')")
