"""The progress dashboard: who may see it, the numbers it shows (worked out by hand in
tests/annotation/services/test_progress.py), its CSV downloads, and how it looks."""

import csv
import io

import pytest
from django.test import Client

from frontend.progress_views import format_duration
from tests.annotation.services.test_progress import build_progress_corpus

from .conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def progress_corpus(corpus, people):
    build_progress_corpus(corpus, people)
    return corpus


def test_only_managers_see_it(progress_corpus, people):
    pages = (f"/corpora/{progress_corpus.pk}/progress/", f"/corpora/{progress_corpus.pk}/progress/status.csv")
    for url in pages:
        assert client_for(people["ann"]).get(url).status_code == 403
        assert client_for(people["rita"]).get(url).status_code == 403
        assert client_for(people["outsider"]).get(url).status_code == 404
        anonymous = Client().get(url)
        assert anonymous.status_code == 302 and anonymous["Location"].startswith("/login/")
        assert client_for(people["manager"]).get(url).status_code == 200


def test_the_corpus_page_links_to_it_for_managers_only(progress_corpus, people):
    link = f'href="/corpora/{progress_corpus.pk}/progress/"'
    assert link in client_for(people["manager"]).get(f"/corpora/{progress_corpus.pk}/").content.decode()
    assert link not in client_for(people["ann"]).get(f"/corpora/{progress_corpus.pk}/").content.decode()


def test_the_page_shows_the_numbers(progress_corpus, people):
    page = client_for(people["manager"]).get(f"/corpora/{progress_corpus.pk}/progress/").content.decode()
    assert "5 layers assigned · 3 finished" in page and "3 annotators" in page
    # Statuses of bob: 3 documents, 1 assigned, 0, 0, 1 under review, 1 reviewed.
    assert (
        '<td>bob_annotator</td><td class="num">3</td><td class="num">1</td><td class="num">0</td>'
        '<td class="num">0</td><td class="num">1</td><td class="num">1</td>' in page
    )
    # ann's edits: 4 mentions; kept 2 (50%), corrected 1 (25%), inserted 1 (25%), removed 1 (25%).
    assert (
        '<td>ann_annotator</td><td class="num">4</td><td class="num">2 <span class="share">50.0%</span></td>'
        '<td class="num">1 <span class="share">25.0%</span></td><td class="num">1 <span class="share">25.0%</span></td>'
        '<td class="num">1 <span class="share">25.0%</span></td>' in page
    )
    # bob: 4 mentions; kept 1/3, corrected 0, inserted 2/3, removed none and no share (his
    # pre-annotated span is on an imported layer).
    assert (
        '<td>bob_annotator</td><td class="num">4</td><td class="num">1 <span class="share">33.3%</span></td>'
        '<td class="num">0 <span class="share">0.0%</span></td><td class="num">2 <span class="share">66.7%</span></td>'
        '<td class="num">0 <span class="share">—</span></td></tr>' in page
    )
    # Totals: kept 3/7, corrected 1/7, inserted 3/7, removed 1/4; one imported mention without edit type.
    assert (
        '<td class="num">3 <span class="share">42.9%</span></td><td class="num">1 <span class="share">14.3%</span></td>'
        '<td class="num">3 <span class="share">42.9%</span></td><td class="num">1 <span class="share">25.0%</span></td>'
        "</tr></tfoot>" in page
    )
    assert "1 imported mention without an edit type is left out" in page
    # Work: bob 2 finished, 3 entities (1.5 per document), 2.0 mentions, 6 min, 6 min;
    # the total 660 s = 11 min, per finished document 295 s = 5 min.
    assert (
        '<td>bob_annotator</td><td class="num">2</td><td class="num">3</td><td class="num">1.5</td>'
        '<td class="num">2.0</td><td class="num">6 min</td><td class="num">6 min</td>' in page
    )
    assert '<td class="num">11 min</td><td class="num">5 min</td></tr></tfoot>' in page
    assert "pauses over 5 minutes are not counted" in page
    # Both charts, with one bar per annotator who has something to show (not cleo).
    assert page.count('<svg class="chart"') == 2
    assert "bob_annotator · Under review: 1" in page and "ann_annotator · Removed: 1" in page
    assert "cleo_annotator ·" not in page


def test_an_empty_corpus_says_so(corpus, people):
    page = client_for(people["manager"]).get(f"/corpora/{corpus.pk}/progress/").content.decode()
    assert "No document of this corpus is assigned to an annotator yet" in page
    assert "<table" not in page


def test_csv_downloads(progress_corpus, people):
    client = client_for(people["manager"])
    response = client.get(f"/corpora/{progress_corpus.pk}/progress/edits.csv")
    assert response["Content-Type"].startswith("text/csv") and "attachment" in response["Content-Disposition"]
    assert "progress-edits.csv" in response["Content-Disposition"]
    rows = {row["annotator"]: row for row in csv.DictReader(io.StringIO(response.content.decode()))}
    assert list(rows) == ["ann_annotator", "bob_annotator", "cleo_annotator", "All annotators"]
    assert (rows["All annotators"]["kept"], rows["All annotators"]["kept_share"]) == ("3", "0.4286")
    work = list(
        csv.reader(io.StringIO(client.get(f"/corpora/{progress_corpus.pk}/progress/work.csv").content.decode()))
    )
    assert work[0][-2:] == ["active_seconds", "seconds_per_finished_document"]
    assert work[1] == ["ann_annotator", "1", "3", "3.0000", "4.0000", "300", "230"]
    assert client.get(f"/corpora/{progress_corpus.pk}/progress/other.csv").status_code == 404


@pytest.mark.parametrize(
    "seconds, shown",
    [(None, "—"), (0, "—"), (45, "45 s"), (59.6, "1 min"), (230, "4 min"), (3599, "1 h 00 min"), (3900, "1 h 05 min")],
)
def test_durations_for_people(seconds, shown):
    assert format_duration(seconds) == shown


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_dashboard_in_a_browser(login, corpus, people):
    build_progress_corpus(corpus, people)
    page = login("mia_manager")
    page.goto(page.url.rstrip("/") + f"/corpora/{corpus.pk}/")
    page.click("text=Progress")
    assert page.locator("h1").inner_text() == "Progress"
    assert page.locator("svg.chart").count() == 2
    # The total row of the status table, as a person reads it (the last column: withdrawn).
    total = ["All", "annotators", "5", "1", "1", "1", "1", "1", "0"]
    assert page.locator("#status tfoot tr").inner_text().split() == total
    page.screenshot(path="/tmp/progress.png", full_page=True)
