"""A sanitized release end to end in a real Chromium, on two real TAB documents with a
finished layer each: the manager starts an INTACT release from the corpus's releases
page, follows its progress bar while the batches run, opens a document side by side with
its original, reads a replacement's popover (the candidates tried, the attacker's
guesses) and downloads the JSON. The LLM is the test's scripted OpenAI-compatible server
(tests/support/openai_server.py), spoken to over HTTP by the real client; the worker is
the test itself, running the real task one batch at a time so the page can be seen
moving. No console error and no Content-Security-Policy violation on any page."""

import json

import pytest

from annotation import tasks
from annotation.enums import Role
from annotation.models import Corpus, CorpusMembership, Release, ReleaseDecision
from annotation.services.release_engine import forget_release_engines
from tests.conftest import REPO, make_user
from tests.support.openai_server import ScriptedOpenAIServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ARTIFACTS = REPO / "artifacts"
DOCS = ("001-66723", "001-97110")  # annotator1's finished layers

# Runs before any script of every page: remembers each violation the browser reports.
LISTEN = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(
  `${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));
"""


@pytest.fixture
def llm(settings):
    with ScriptedOpenAIServer() as server:
        settings.SANITIZE_RELEASE = {
            **settings.SANITIZE_RELEASE,
            "llm_base_url": server.base_url,
            "llm_model": "scripted",
            "batch": 1,
        }
        forget_release_engines()
        yield server
    forget_release_engines()


@pytest.fixture
def corpus(pick, import_documents):
    corpus = Corpus.objects.create(name="ECHR")
    import_documents(corpus, pick(*DOCS))
    CorpusMembership.objects.create(corpus=corpus, user=make_user("mia"), role=Role.MANAGER)
    return corpus


@pytest.fixture
def held_batches(monkeypatch):
    """The batches a committed release would send to the workers, kept for the test to
    run one by one (the real task body, in this process)."""
    held = []
    monkeypatch.setattr(tasks, "enqueue_release", lambda release: held.extend(tasks.release_batches(release)))
    return held


class Watch:
    """Console errors and policy violations of one browser page, over every page it opens."""

    def __init__(self, page):
        self.page, self.problems = page, []
        page.context.add_init_script(LISTEN)
        page.on("console", lambda message: message.type == "error" and self.problems.append(message.text))

    def check(self) -> None:
        self.problems += self.page.evaluate("window.__violations || []")


def progress(page) -> tuple[str, str]:
    return page.inner_text("#release-status .job-progress"), page.get_attribute("#release-status progress", "value")


def test_a_manager_releases_two_documents_and_reads_a_decision(login, live_server, corpus, llm, held_batches, pick):
    ARTIFACTS.mkdir(exist_ok=True)
    page = login("mia")
    watch = Watch(page)
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/")
    page.click("#releases-open")
    page.wait_for_selector("#release-start")
    assert f"An LLM is configured (scripted at {llm.base_url})" in page.inner_text("#release-llm")
    assert page.locator("#release_source_0").is_checked()  # reviewed layers first
    assert page.locator("input[name=strategy][value=intact]").is_checked()
    page.screenshot(path=str(ARTIFACTS / "release-start.png"), full_page=True)
    watch.check()

    # An annotator's layers without an annotator: the refusal is shown beside the select.
    page.check("#release_source_1")
    page.click("#release-submit")
    page.wait_for_selector("#release-annotator-error")
    assert "needs an annotator" in page.inner_text("#release-source .release-annotator")
    assert not Release.objects.exists()
    page.screenshot(path=str(ARTIFACTS / "release-start-refused.png"))
    # The refused form answers 400, which Chromium logs as a failed resource: expected.
    watch.check()
    assert watch.problems == ["Failed to load resource: the server responded with a status of 400 (Bad Request)"]
    watch.problems.clear()
    page.check("#release_source_0")

    page.click("#release-submit")
    page.wait_for_url("**/releases/*/")
    release = Release.objects.get()
    assert release.strategy == "intact" and release.settings  # what the engine used is recorded
    assert held_batches == [[d.pk] for d in corpus.documents.order_by("position", "pk")]
    status, value = progress(page)
    assert "0 of 2 documents sanitized" in status and value == "0"
    assert page.locator("#release-status .job-progress[hx-get]").count() == 1  # polling
    assert page.locator("#release-live[hx-trigger]").count() == 1  # waiting for the release to end

    tasks.sanitize_release_documents(release.pk, held_batches[0])
    page.wait_for_selector('#release-status progress[value="1"]')
    assert "1 of 2 documents sanitized" in progress(page)[0]
    page.screenshot(path=str(ARTIFACTS / "release-progress.png"))

    tasks.sanitize_release_documents(release.pk, held_batches[1])
    page.wait_for_selector("#release-status .status-succeeded", timeout=15_000)
    # The results show without a reload: the release's end reloaded the part that holds them.
    page.wait_for_selector("#release-paths", timeout=15_000)
    assert page.locator("#release-live[hx-trigger], #release-status [hx-get]").count() == 0  # the poll stopped
    assert "2 of 2 documents sanitized" in progress(page)[0] and progress(page)[1] == "2"
    # The paths table counts the decisions stored for the release.
    decisions = ReleaseDecision.objects.filter(release_document__release=release)
    shown = page.locator("#release-paths tbody td").all_inner_texts()
    paths = ("first", "later", "fallback", "fixed", "attack")
    assert shown == [str(decisions.filter(path=path).count()) for path in paths]
    assert decisions.filter(path="later").exists()  # the scripted attacker inverts first candidates
    assert page.locator("#release-documents tbody tr").count() == 2
    assert "concurrency = 2 · retries = 2 · timeout_s = 60" in page.inner_text("#release-settings")
    page.screenshot(path=str(ARTIFACTS / "release-detail.png"), full_page=True)
    watch.check()

    # A document side by side, and the popover of an entity whose first candidate was guessed.
    decision = decisions.filter(path="later", candidate_source="llm").select_related("release_document__document")
    decision = decision.order_by("release_document__document__position", "position").first()
    document = decision.release_document.document
    page.click(f"#release-documents a:text-is('{document.doc_id}')")
    page.wait_for_selector("#original-text")
    start, end = decision.mentions[0]
    mark = page.locator(f'#original-text mark[data-start="{start}"][data-end="{end}"]')
    assert mark.inner_text() == document.text[start:end]
    # Each column scrolls on its own, the page stays where it is.
    scrolled = page.evaluate(
        """() => {
          const left = document.querySelector('#original-text'), right = document.querySelector('#sanitized-text');
          const before = window.scrollY;
          left.scrollTop = 300;
          return [left.scrollHeight > left.clientHeight, left.scrollTop, right.scrollTop, window.scrollY - before];
        }"""
    )
    assert scrolled == [True, 300, 0, 0]
    mark.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "release-document.png"))
    mark.click()
    popover = page.locator(f"#decision-{decision.pk}")
    popover.wait_for(state="visible")
    assert page.evaluate(f"document.querySelector('#decision-{decision.pk}').matches(':popover-open')")
    trail = popover.locator("ol.trail li")
    # The scripted LLM's first hypernym repeats the span ("a <noun> such as <span>"); its
    # attacker guesses the candidate's own words, so that first candidate is recovered.
    first = trail.nth(0).inner_text()
    assert f"such as {decision.original}" in first and "guessed" in first
    assert "The attacker's guesses:" in first and decision.trials[0]["guesses"][0] in first
    kept = popover.locator("li.kept").inner_text()
    assert kept.startswith(f"{decision.replacement} kept")  # the quotes are drawn by CSS
    assert "guessed" not in kept and "The attacker's guesses:" in kept
    assert popover.locator(".replacement").inner_text() == decision.replacement
    page.screenshot(path=str(ARTIFACTS / "release-popover.png"))
    page.keyboard.press("Escape")
    popover.wait_for(state="hidden")
    # From the keyboard: the span's hidden button shows when focused and opens the same popover.
    key = page.locator(
        f'#sanitized-text mark[data-rep="{mark.get_attribute("data-rep")}"] >> xpath=../following-sibling::button[1]'
    )
    key.focus()
    assert key.is_visible() and key.get_attribute("popovertarget") == f"decision-{decision.pk}"
    page.keyboard.press("Enter")
    popover.wait_for(state="visible")
    page.keyboard.press("Escape")
    popover.wait_for(state="hidden")
    watch.check()

    # The JSON download: both documents' sanitized texts, offsets into the originals.
    page.goto(f"{live_server.url}/releases/{release.pk}/")
    with page.expect_download() as info:
        page.click("#download-json")
    download = info.value
    assert download.suggested_filename == f"release-{release.pk}-intact.json"
    with open(download.path(), encoding="utf-8") as stream:
        rows = json.load(stream)
    originals = {source["doc_id"]: source for source in pick(*DOCS)}  # the source file
    assert [row["doc_id"] for row in rows] == list(DOCS)
    for row in rows:
        original = originals[row["doc_id"]]
        keys = {"start", "end", "replacement", "entity_type", "identifier_type", "reason"}
        assert row["spans"] and all(set(span) == keys for span in row["spans"])
        rebuilt, cursor = "", 0
        for span in sorted(row["spans"], key=lambda span: span["start"]):
            rebuilt += original["text"][cursor : span["start"]] + span["replacement"]
            cursor = span["end"]
        assert rebuilt + original["text"][cursor:] == row["text"]
        # The person to protect is never in the released text.
        assert original["task"].rsplit(": ", 1)[1] not in row["text"]

    # A second release to compare with: entity type labels, run the same way.
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/releases/")
    page.check("input[name=strategy][value=label]")
    page.click("#release-submit")
    page.wait_for_url("**/releases/*/")
    labels = Release.objects.exclude(pk=release.pk).get()
    for batch in held_batches[2:]:
        tasks.sanitize_release_documents(labels.pk, batch)
    page.wait_for_selector("#release-status .status-succeeded", timeout=15_000)
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/releases/")
    best = max(Release.objects.all(), key=lambda r: r.metrics["TPS"])
    assert page.locator("tr.best-tps").get_attribute("id") == f"release-row-{best.pk}"
    assert page.locator("#releases tbody tr").count() == 2
    page.screenshot(path=str(ARTIFACTS / "release-comparison.png"), full_page=True)
    watch.check()
    assert watch.problems == []
