"""A trustworthy annotation record, in a real Chromium on the real TAB case 001-83927:
a confirmed layer is locked until its author reopens it, a crossing span is refused
naming the mention it crosses (a nested one is kept), and a reviewer reads the masked
document before the annotations (page and API)."""

import json

import pytest

from annotation.enums import LayerStatus, Role
from annotation.models import AuditEvent, CorpusMembership, Entity, MaskedReview, Mention
from annotation.services.decisions import set_entity_decision
from annotation.services.layers import add_reviewer, confirm_layer
from annotation.services.masked_review import is_current, render_masked_review
from tests.conftest import REPO, make_user
from tests.frontend.test_workspace_browser import case, mark, open_workspace  # noqa: F401 (case: a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ARTIFACTS = REPO / "artifacts"

# fetch() from inside the page, as the page's own code would: session cookie and CSRF token.
FETCH = """async ([method, url, body]) => {
  const token = document.cookie.split('; ').find(c => c.startsWith('csrftoken=')).split('=')[1];
  const answer = await fetch(url, {method, body: body && JSON.stringify(body),
    headers: {'Content-Type': 'application/json', 'X-CSRFToken': token}});
  return {status: answer.status, body: await answer.text()};
}"""


# The viewport point of the character at a code-point offset (ASCII text here), found in
# the run of text that holds it (every run carries its offset as data-o).
POINT_AT = """([offset, side]) => {
  for (const run of document.querySelectorAll('#doc-text [data-o]')) {
    const node = run.firstChild;
    if (!node || node.nodeType !== Node.TEXT_NODE) continue;
    const i = offset - Number(run.dataset.o);
    if (i < 0 || i >= node.data.length) continue;
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    const rect = range.getClientRects()[0];
    return {x: side === 'start' ? rect.left + 1 : rect.right - 1, y: rect.top + rect.height / 2};
  }
  return null;
}"""


def drag_over(page, start: int, end: int) -> None:
    """Select the text from ``start`` to ``end`` with the real mouse, across mention boundaries."""
    page.evaluate(
        "o => [...document.querySelectorAll('#doc-text [data-o]')].filter(r => +r.dataset.o <= o).pop()"
        ".scrollIntoView({block: 'center'})",
        start,
    )
    page.wait_for_timeout(300)
    first, last = page.evaluate(POINT_AT, [start, "start"]), page.evaluate(POINT_AT, [end - 1, "end"])
    page.mouse.move(first["x"], first["y"])
    page.mouse.down()
    page.mouse.move(last["x"], last["y"], steps=5)
    page.mouse.up()


def confirmed(layer):
    """Decide every entity as the TAB annotators did in spirit, and confirm."""
    for entity in Entity.objects.filter(layer=layer).order_by("id"):
        first = entity.mentions.order_by("start_offset").first()
        decision = "DIRECT" if first.entity_type in ("PERSON", "CODE") else "QUASI"
        set_entity_decision(entity, actor=layer.annotator, identifier_type=decision)
    layer.refresh_from_db()
    confirm_layer(layer, actor=layer.annotator, expected_version=layer.version, accept_warnings=True)
    layer.refresh_from_db()
    render_masked_review(layer)
    return layer


def polat(layer) -> Mention:
    return Mention.objects.get(layer=layer, span_text="Mr Cengiz Polat")


def test_a_confirmed_layer_is_read_only_until_its_author_reopens_it(login, live_server, case):  # noqa: F811
    layer = confirmed(case)
    version, entities = layer.version, Entity.objects.filter(layer=layer).count()
    page = login("ann")
    page.goto(f"{live_server.url}/layers/{layer.pk}/")
    page.wait_for_selector("#doc-text mark[data-m]")
    page.wait_for_selector("#workspace[aria-busy='false']")  # the page's script is running
    assert page.locator("#workspace").get_attribute("data-editable") == "0"
    assert "confirmed, so it is read-only" in page.inner_text("#lock-banner")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "confirmed-locked.png"))

    # The reported path: click the protected name, press 3, try a merge. Nothing changes.
    mark(page, "Mr Cengiz Polat").click()
    page.keyboard.press("3")
    page.keyboard.press("m")
    mark(page, "Republic of Turkey").click()
    page.wait_for_timeout(400)
    layer.refresh_from_db()
    assert layer.version == version and layer.status == LayerStatus.CONFIRMED
    assert polat(layer).identifier_type == "DIRECT"
    assert Entity.objects.filter(layer=layer).count() == entities
    # A request forged past the page's own read-only state is refused by the server, with the reason.
    forged = page.evaluate(
        """async ([url, version]) => {
          const token = document.querySelector('[name=csrfmiddlewaretoken]').value;
          const body = new URLSearchParams({identifier_type: 'NO_MASK', layer_version: version});
          const answer = await fetch(url, {method: 'POST', body, headers: {'X-CSRFToken': token}});
          return {status: answer.status, body: await answer.text()};
        }""",
        [f"/layers/{layer.pk}/entities/{polat(layer).entity_id}/decision/", str(version)],
    )
    assert forged["status"] == 403 and "confirmed, so it is read-only" in forged["body"]
    assert polat(layer).identifier_type == "DIRECT"

    # Reopen: in progress again, recorded, the masked review stale, and editing works.
    page.click("#btn-reopen")
    page.wait_for_selector("#workspace[data-editable='1']")
    layer.refresh_from_db()
    assert layer.status == LayerStatus.IN_PROGRESS
    assert AuditEvent.objects.filter(
        layer=layer, action="layer.status", actor=layer.annotator, changes__before="confirmed"
    ).exists()
    assert not is_current(layer, MaskedReview.objects.get(layer=layer))
    mark(page, "Mr Cengiz Polat").click()
    page.keyboard.press("2")
    page.wait_for_selector("#doc-text mark.d-QUASI:text-is('Mr Cengiz Polat')")
    page.wait_for_selector("#workspace[aria-busy='false']")  # shown at the key press; now saved too
    assert polat(layer).identifier_type == "QUASI"


def test_a_crossing_span_is_refused_and_a_nested_one_kept(login, case):  # noqa: F811
    page = open_workspace(login, case)
    directorate = Mention.objects.get(layer=case, span_text="Istanbul Security Directorate")
    start = case.document.text.index("Directorate on suspicion")
    drag_over(page, start, start + len("Directorate on suspicion"))
    page.wait_for_selector("#menu:not([hidden])")
    page.keyboard.press("o")
    page.wait_for_selector("#flash .flash-error")
    message = page.inner_text("#flash")
    assert "crosses the ORG “Istanbul Security Directorate”" in message and directorate.tab_mention_id in message
    assert not Mention.objects.filter(layer=case, span_text__contains="on suspicion").exists()

    start = case.document.text.index("Security Directorate")
    drag_over(page, start, start + len("Security Directorate"))
    page.wait_for_selector("#menu:not([hidden])")
    page.keyboard.press("o")
    inner = page.wait_for_selector("#doc-text mark[data-m]:text-is('Security Directorate')")
    nested = Mention.objects.get(layer=case, span_text="Security Directorate")
    assert directorate.start_offset < nested.start_offset < nested.end_offset == directorate.end_offset
    assert inner.get_attribute("data-m") == str(nested.pk)
    # The outer span keeps a mark of its own in the text.
    assert page.locator(f"#doc-text mark[data-m='{directorate.pk}']").count() >= 1


def test_a_reviewer_reads_the_masked_document_before_the_annotations(login, live_server, case):  # noqa: F811
    layer = confirmed(case)
    rita = make_user("rita")
    CorpusMembership.objects.create(corpus=layer.document.corpus, user=rita, role=Role.REVIEWER)
    add_reviewer(layer, rita, actor=None)
    page = login("rita")
    page.goto(f"{live_server.url}/layers/{layer.pk}/")
    page.wait_for_url(f"**/layers/{layer.pk}/review/")
    assert page.locator("#doc-text mark[data-m]").count() == 0
    masked = page.inner_text("article#masked-review")
    assert "Polat" not in masked and "*" * len("Mr Cengiz Polat") in masked

    entity = polat(layer).entity_id
    refused = page.evaluate(
        FETCH, ["PATCH", f"/api/entities/{entity}/", {"identifier_type": "NO_MASK", "layer_version": layer.version}]
    )
    assert refused["status"] == 403 and "masked document" in json.loads(refused["body"])["detail"]
    hidden = page.evaluate(FETCH, ["GET", f"/api/mentions/?layer={layer.pk}", None])
    assert hidden["status"] == 200 and json.loads(hidden["body"])["results"] == []
    page.screenshot(path=str(ARTIFACTS / "review-order.png"))

    page.check("input[name=reidentifiable][value=no]")
    page.click("#reidentification button[type=submit]")
    page.wait_for_url(f"**/layers/{layer.pk}/")
    page.wait_for_selector("#doc-text mark[data-m]")
    page.wait_for_selector("#workspace[aria-busy='false']")  # the page's script is running
    layer.refresh_from_db()
    assert layer.status == LayerStatus.UNDER_REVIEW
    shown = page.evaluate(FETCH, ["GET", f"/api/mentions/?layer={layer.pk}&page_size=500", None])
    assert json.loads(shown["body"])["count"] == Mention.objects.filter(layer=layer).count()
    allowed = page.evaluate(
        FETCH, ["PATCH", f"/api/entities/{entity}/", {"identifier_type": "DIRECT", "layer_version": layer.version}]
    )
    assert allowed["status"] == 200
