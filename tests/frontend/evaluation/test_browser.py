"""The evaluation page in a real Chromium: run the engine, compare every source (a report
job computed in a thread, its progress shown until the section reloads with the table),
follow a missed entity to its layer."""

import pytest

from tests.conftest import make_user

pytestmark = pytest.mark.django_db


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("rules_only_engine", "eager_tasks")
def test_a_manager_evaluates_the_engine_in_a_browser(login, live_server, pick, import_documents, settings):
    from annotation.enums import Role
    from annotation.models import Corpus, CorpusMembership
    from annotation.services.preannotation import run_batch, start_run

    corpus = Corpus.objects.create(name="ECHR")
    import_documents(corpus, pick("001-85667", "001-90163"))
    mia = make_user("mia")
    CorpusMembership.objects.create(corpus=corpus, user=mia, role=Role.MANAGER)
    run = start_run(corpus, actor=mia)
    run_batch(run.pk, list(corpus.documents.values_list("pk", flat=True)))
    settings.SANITIZE_REPORTS = {"in_thread": True}  # as embedded: the page answers, a thread computes

    page = login("mia")
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/")
    page.click("text=Evaluation")
    page.click("#compare-button")
    page.wait_for_selector("#compare .job-progress")  # the page answered before the comparison
    page.wait_for_selector("#compare table", timeout=60_000)  # the section reloaded once the job finished
    assert page.locator("#compare .job-progress").count() == 0
    assert page.locator("#compare tbody tr").count() == 1 + 10  # the engine and ten annotators
    page.select_option("#id_source", "preannotation")
    page.click("#choose button[type=submit]")
    page.wait_for_selector("#false-negatives svg.chart", timeout=60_000)
    assert "source=preannotation" in page.url
    assert page.inner_text("#metrics h2") == "Pre-annotation engine"
    page.screenshot(path="/tmp/evaluation.png", full_page=True)
    # One chart row per entity type of the table, a bar for each type with misses.
    types = page.locator("#types tbody tr").count()
    assert page.locator("#false-negatives svg text").count() == 2 * types  # label and value
    with_misses = [row for row in page.locator("#types tbody tr").all() if row.locator("td").nth(1).inner_text() != "0"]
    assert page.locator("#false-negatives svg rect").count() == len(with_misses) > 0
    assert page.locator("#missed tbody tr").count() > 0
    # A missed entity opens its annotator's layer at the line of the mention.
    first = page.locator("#missed tbody tr").first
    annotator = first.locator("td").nth(1).inner_text()
    first.locator("a").click()
    page.wait_for_selector(".tab.active")
    assert page.inner_text(".tab.active").startswith(annotator)
    assert page.evaluate("document.querySelector(location.hash) !== null")
