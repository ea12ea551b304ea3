"""Keys in a real Chromium, on the real TAB case 001-83927: a burst of decision keys in
review mode decides the entities shown, in order; a decision shows before the server
answers and is undone when it refuses; merge mode is a visible mode; a mention can be
created with the keyboard alone (token cursor)."""

import re

import pytest

from annotation.enums import LayerStatus
from annotation.models import Entity, Mention, MentionLink
from tests.conftest import REPO
from tests.frontend.test_workspace_browser import case, mark, open_workspace  # noqa: F401 (case: a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ARTIFACTS = REPO / "artifacts"
DECISION_OF_KEY = {"1": "DIRECT", "2": "QUASI", "3": "NO_MASK"}

# True when every mark of entity ``e`` shows decision ``d``.
READY = "#workspace[aria-busy='false']"  # the page's script runs, and no write is pending
ALL_MARKS_SHOW = (
    "([e, d]) => { const marks = [...document.querySelectorAll(`#doc-text mark[data-e='${e}']`)];"
    " return marks.length > 0 && marks.every(m => m.classList.contains('d-' + d)); }"
)


def undecided_entities_in_document_order(layer) -> list[int]:
    """Entities with no decision, ordered by their first mention (start, end, id)."""
    order, decided = [], set()
    for mention in Mention.objects.filter(layer=layer).order_by("start_offset", "end_offset", "id"):
        if mention.identifier_type is not None:
            decided.add(mention.entity_id)
        if mention.entity_id not in order:
            order.append(mention.entity_id)
    return [entity for entity in order if entity not in decided]


def decisions_of(layer) -> dict[int, set]:
    found: dict[int, set] = {}
    for entity, decision in Mention.objects.filter(layer=layer).values_list("entity_id", "identifier_type"):
        found.setdefault(entity, set()).add(decision)
    return found


def test_ten_decision_keys_30ms_apart_in_review_mode_decide_the_ten_entities_shown_in_order_and_survive_a_reload(
    login, case  # noqa: F811
):
    order = undecided_entities_in_document_order(case)
    expected = order[:10]
    first_texts = [Mention.objects.filter(entity_id=e).order_by("start_offset").first().span_text for e in expected]
    # The case as the seed leaves it ("Istanbul" is not pre-annotated): read off the text by hand.
    assert first_texts == [
        "40593/04",
        "Republic of Turkey",
        "Turkish",
        "Mr Cengiz Polat",
        "15 October 2004",
        "Mr E. Kanar",
        "Turkish Government",
        "6 November 2006",
        "1965",
        "Edirne F-type Prison",
    ]
    keys = "1231322113"
    total = Entity.objects.filter(layer=case).count()

    page = open_workspace(login, case)
    page.wait_for_selector(READY)
    page.keyboard.press("r")
    page.wait_for_selector(f"#doc-text mark.cur[data-e='{expected[0]}']")
    for key in keys:
        page.keyboard.press(key)
        page.wait_for_timeout(30)
    page.wait_for_selector(READY, timeout=20_000)
    assert page.locator("#flash .flash-error").count() == 0

    found = decisions_of(case)
    assert [found[entity] for entity in expected] == [{DECISION_OF_KEY[key]} for key in keys]
    assert all(found[entity] == {None} for entity in found if entity not in expected)
    # The burst moved on one entity per key: the eleventh undecided entity is current now.
    assert page.locator("#doc-text mark.cur").first.get_attribute("data-e") == str(order[10])

    page.reload()
    page.wait_for_selector("#doc-text mark[data-m]")
    for entity, key in zip(expected, keys, strict=True):
        assert page.evaluate(ALL_MARKS_SHOW, [entity, DECISION_OF_KEY[key]]), (entity, key)
    assert page.locator(f"#ent-{expected[0]}").get_attribute("class").split().count("undecided") == 0
    assert page.inner_text("#progress").strip() == f"10 / {total} decided"


def test_a_decision_shows_before_the_answer_and_is_undone_when_the_server_refuses_it(login, case):  # noqa: F811
    page = open_workspace(login, case)
    page.wait_for_selector(READY)
    court = mark(page, "Istanbul Assize Court").get_attribute("data-e")
    cassation = mark(page, "Court of Cassation").get_attribute("data-e")
    total = Entity.objects.filter(layer=case).count()
    held = []
    page.route("**/decision/", lambda route: held.append(route))

    mark(page, "Istanbul Assize Court").click()
    page.keyboard.press("2")
    # Painted at the key press, while the server has not even received the request.
    assert page.evaluate(ALL_MARKS_SHOW, [court, "QUASI"])
    assert "undecided" not in page.get_attribute(f"#ent-{court}", "class")
    assert page.inner_text("#progress").strip() == f"1 / {total} decided"
    # A second key on another entity waits in the queue behind the first.
    mark(page, "Court of Cassation").click()
    page.keyboard.press("1")
    assert page.evaluate(ALL_MARKS_SHOW, [cassation, "DIRECT"])
    assert page.inner_text("#progress").strip() == f"2 / {total} decided"

    # Meanwhile the layer is confirmed elsewhere: confirmed means locked, so the server refuses.
    type(case).objects.filter(pk=case.pk).update(status=LayerStatus.CONFIRMED)
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(20)
    assert len(held) == 1  # one write at a time
    held.pop().continue_()
    page.wait_for_selector(READY)

    # Both decisions are undone on the page; the queued one was never sent.
    assert page.evaluate(ALL_MARKS_SHOW, [court, "UNDECIDED"])
    assert page.evaluate(ALL_MARKS_SHOW, [cassation, "UNDECIDED"])
    assert "undecided" in page.get_attribute(f"#ent-{court}", "class")
    assert page.inner_text("#progress").strip() == f"0 / {total} decided"
    message = page.inner_text("#flash .flash-error")
    assert message.startswith("Not saved: the decision on “Istanbul Assize Court”.")
    assert "1 later change was not sent." in message
    assert held == []
    assert set(Mention.objects.filter(layer=case).values_list("identifier_type", flat=True)) == {None}
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "keys-refused-decision.png"))

    # Reopened, but the network fails: the decision is undone too, and the page says so.
    type(case).objects.filter(pk=case.pk).update(status=LayerStatus.IN_PROGRESS)
    page.unroute("**/decision/")
    page.route("**/decision/", lambda route: route.abort())
    mark(page, "Istanbul Assize Court").click()
    page.keyboard.press("3")
    page.wait_for_selector(READY)
    assert page.evaluate(ALL_MARKS_SHOW, [court, "UNDECIDED"])
    assert "The server could not be reached" in page.inner_text("#flash .flash-error")
    assert set(Mention.objects.filter(layer=case).values_list("identifier_type", flat=True)) == {None}


def test_merge_mode_shows_a_banner_and_a_copy_cursor_esc_cancels_it_and_a_click_merges(login, case):  # noqa: F811
    page = open_workspace(login, case)
    page.wait_for_selector(READY)
    republic = Mention.objects.get(layer=case, span_text="Republic of Turkey")
    government = Mention.objects.get(layer=case, span_text="Turkish Government")
    mark(page, "Republic of Turkey").click()
    page.keyboard.press("m")
    banner = page.locator("#merge-banner")
    assert banner.inner_text() == "Merging into “Republic of Turkey”: click an entity to merge it in, Esc cancels"
    cursor_over = (
        "t => getComputedStyle([...document.querySelectorAll('#doc-text mark')].find(m => m.textContent === t)).cursor"
    )
    assert page.evaluate(cursor_over, "Turkish Government") == "copy"
    mark(page, "Republic of Turkey").click()  # the entity itself: nothing to merge, the mode stays
    assert banner.is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "keys-merge-mode.png"))

    page.keyboard.press("Escape")
    assert banner.count() == 0
    assert page.evaluate(cursor_over, "Turkish Government") == "pointer"
    mark(page, "Turkish Government").click()  # an ordinary click again: it selects
    page.wait_for_selector(f"#doc-text mark.cur[data-e='{government.entity_id}']")
    page.wait_for_selector(READY)
    assert Mention.objects.get(pk=government.pk).entity_id != republic.entity_id
    assert not MentionLink.objects.filter(source__layer=case).exists()

    mark(page, "Republic of Turkey").click()
    page.keyboard.press("m")
    mark(page, "Turkish Government").click()
    assert banner.count() == 0  # the mode ends with the merge
    page.wait_for_selector(READY)
    page.wait_for_selector(f"#doc-text mark[data-e='{republic.entity_id}']:text-is('Turkish Government')")
    assert Mention.objects.get(pk=government.pk).entity_id == republic.entity_id
    assert MentionLink.objects.filter(source=government).exists()


def test_a_mention_is_created_with_the_keyboard_alone_through_the_token_cursor(login, case):  # noqa: F811
    text = case.document.text
    phrase = "Anti-terror branch"
    start = text.find(phrase)
    end = start + len(phrase)
    assert text[start - 9 : end + 4] == "from the Anti-terror branch of "
    # Tokens are words (letters and digits, inner apostrophes) and single punctuation marks.
    before = len(re.findall(r"\w+(?:['’]\w+)*|[^\w\s]", text[:start]))
    assert not Mention.objects.filter(layer=case, start_offset__lt=end, end_offset__gt=start).exists()

    page = open_workspace(login, case)
    page.wait_for_selector(READY)
    page.keyboard.press("ArrowRight")  # the cursor appears on the first word in view
    cursor = page.locator("#token-cursor")
    assert cursor.get_attribute("data-start") == "0"
    for _ in range(before):
        page.keyboard.press("ArrowRight")
    assert (cursor.get_attribute("data-start"), cursor.get_attribute("data-end")) == (str(start), str(start + 4))
    box = cursor.bounding_box()
    point = [box["x"] + 3, box["y"] + box["height"] / 2]
    under = page.evaluate("([x, y]) => document.elementFromPoint(x, y).textContent", point)
    assert "Anti-terror" in under
    for key in ["Shift+ArrowRight"] * 4 + ["Shift+ArrowLeft"]:  # Anti - terror branch of, back to branch
        page.keyboard.press(key)
    assert page.inner_text("#mode").startswith("Selected “Anti-terror branch”")
    page.screenshot(path=str(ARTIFACTS / "keys-token-cursor.png"))
    page.keyboard.press("Enter")
    page.wait_for_selector("#menu:not([hidden])")
    page.keyboard.press("o")
    page.wait_for_selector("#doc-text mark.t-ORG:text-is('Anti-terror branch')")
    page.wait_for_selector(READY)
    created = Mention.objects.get(layer=case, start_offset__lt=end, end_offset__gt=start)
    assert (created.start_offset, created.end_offset, created.span_text) == (start, end, phrase)
    assert (created.entity_type, created.edit_type, created.origin) == ("ORG", "insert", "manual")
    # The cursor stays (on "branch"); ↓ takes it to the nearest token of the next line.
    above = cursor.bounding_box()
    page.keyboard.press("ArrowDown")
    below = cursor.bounding_box()
    assert above["height"] / 2 < below["y"] - above["y"] < 2 * above["height"]
    assert abs((below["x"] + below["width"] / 2) - (above["x"] + above["width"] / 2)) < 80
    assert int(cursor.get_attribute("data-start")) > end
