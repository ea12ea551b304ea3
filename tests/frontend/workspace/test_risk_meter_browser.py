"""The re-identification risk meter in a real Chromium: the annotator opens Ada Quist's
layer and reads "rank 1 of 5", jumps to a leaking word, masks the leaking entity with its
button, and the gauge moves below rank 1 without the page being reloaded; ``?at=`` opens
the workspace at a place of the text. No Content-Security-Policy violation on the way.

The first reading is computed by the test before the page opens (no 2 s poll to wait
for); the one after the mask by the compute_layer_risk task the page's request enqueues:
in-process on the embedded default, by a real Celery worker on the services pass. See tests/support/risk_layer.py
for why the ranks are what they are."""

import re
from pathlib import Path

import pytest
from celery.contrib.testing.worker import start_worker

from annotation.models import Entity
from annotation.tasks import compute_layer_risk
from sanitize_app.celery import app as celery_app
from tests.support.risk_layer import harrowgate_layer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path("/tmp/shots_d")
# The same words as the service tests' document, with the harbour far below the fold.
TEXT = "The applicant lives in Harrowgate and\n" + "\n" * 70 + "works in the Harrowgate harbour."
READY = "#workspace[aria-busy='false']"
LISTEN = """window.__violations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__violations.push(`${e.effectiveDirective} ${e.sample}`));"""
IN_VIEW = """(el) => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; }"""


@pytest.fixture
def readings():
    """Whatever computes the readings: the in-process task, or a real worker."""
    if celery_app.conf.task_always_eager:
        yield None
        return
    celery_app.control.purge()
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30) as worker:
        yield worker


def open_layer(login, layer, query: str = ""):
    page = login("ann_annotator", viewport=(1400, 800))
    page.context.add_init_script(LISTEN)
    page.goto(page.url.split("/login")[0].rstrip("/") + f"/layers/{layer.pk}/{query}")
    page.wait_for_selector(READY)
    return page


def rank_of(page) -> int:
    page.wait_for_selector("#risk-panel[data-state='ready']", timeout=30_000)
    return int(re.search(r"rank (\d+) of 5", page.inner_text("#risk-rank")).group(1))


def test_masking_the_leaking_entity_moves_the_gauge_without_reloading(login, corpus, people, readings):
    SHOTS.mkdir(exist_ok=True)
    layer = harrowgate_layer(corpus, people["ann"], text=TEXT)
    compute_layer_risk(layer.pk, layer.version)  # the first reading is ready: no poll to wait for
    page = open_layer(login, layer)
    assert rank_of(page) == 1
    assert "named" in page.inner_text("#risk-level")
    assert "attacker tfidf-svc" in page.inner_text("#risk-panel")
    page.screenshot(path=str(SHOTS / "risk-named.png"))
    # Attack-guided masking's proposal: the town first, and where the whole sequence ends.
    first = page.locator("#risk-panel .risk-suggestions li").first
    assert re.search(
        r"^Harrowgate\s+Mask \(QUASI\)\s+masking it would move Ada Quist from rank 1 to [2-5]$", first.inner_text()
    )
    assert re.search(r"would move Ada Quist from rank 1 to [2-5]\.$", page.inner_text("#risk-plan"))

    harbour = page.locator("#risk-panel .risk-terms .risk-term", has_text="harbour")
    assert harbour.get_attribute("data-jump-offset") == str(TEXT.index("harbour"))
    harbour.click()
    flashed = page.wait_for_selector("#doc-text .flash-run")
    page.wait_for_function(f"(el) => ({IN_VIEW})(el)", arg=flashed, timeout=5_000)

    page.evaluate("window.__sameDocument = true")
    entity = Entity.objects.get(layer=layer)
    mask = page.locator(f"#risk-panel .risk-terms button.risk-mask[data-entity='{entity.pk}']")
    mask.click()
    page.wait_for_selector("#doc-text mark.d-QUASI")
    page.wait_for_function("() => !/rank 1 of/.test(document.querySelector('#risk-panel')?.innerText || '')")
    assert rank_of(page) > 1
    assert page.evaluate("window.__sameDocument") is True  # not reloaded
    assert set(entity.mentions.values_list("identifier_type", flat=True)) == {"QUASI"}
    assert page.locator("#risk-panel .risk-terms .risk-term", has_text="Harrowgate").count() == 0
    assert "beyond the top 4" in page.inner_text("#risk-level")  # k shrinks to N - 1 = 4: last is not near
    page.screenshot(path=str(SHOTS / "risk-after-mask.png"))
    assert page.evaluate("window.__violations") == []


def test_at_opens_the_workspace_at_an_offset(login, corpus, people, readings):
    layer = harrowgate_layer(corpus, people["ann"], text=TEXT)
    page = open_layer(login, layer, f"?at={TEXT.index('harbour')}")
    flashed = page.wait_for_selector("#doc-text .flash-run")
    # The run of text that holds the offset (runs start where mentions end: " harbour.").
    start = int(flashed.get_attribute("data-o"))
    assert flashed.inner_text().strip() == "harbour." and start <= TEXT.index("harbour") < start + 9
    page.wait_for_function(f"(el) => ({IN_VIEW})(el)", arg=flashed, timeout=5_000)
    page.screenshot(path=str(SHOTS / "risk-at-offset.png"))
    assert page.evaluate("window.__violations") == []


def test_on_a_narrow_screen_the_meter_is_a_tab_of_the_drawer(login, corpus, people, readings):
    layer = harrowgate_layer(corpus, people["ann"], text=TEXT)
    compute_layer_risk(layer.pk, layer.version)
    page = open_layer(login, layer)
    page.set_viewport_size({"width": 900, "height": 700})
    assert not page.is_visible("#risk-panel")  # the drawer shows the entity panel first
    page.click("[data-side-tab='risk']")
    assert rank_of(page) == 1
    assert page.is_visible("#risk-panel") and not page.is_visible("#entity-panel")
    page.screenshot(path=str(SHOTS / "risk-narrow.png"))
