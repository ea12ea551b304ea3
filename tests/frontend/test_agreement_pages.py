"""The agreement dashboard and its CSV downloads, on two finished layers made by hand
(values computed by hand in tests/sanitize_app/engine/test_agreement.py)."""

import csv
import io

import pytest
from django.test import TestCase

from annotation.models import ReportJob
from tests.conftest import tab_mention

from .conftest import client_for
from .evaluation.conftest import computed

# Reports run in-process (eager) here, whatever the broker: tests/frontend/evaluation/test_worker.py
# has a real worker compute one.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

TEXT = "Anna Berg lives in Oslo since 2001."


def mention(layer: str, number: int, text: str, entity_type: str, identifier: str) -> dict:
    return tab_mention(TEXT, layer, number, text, entity_type, identifier)


DOCUMENT = {
    "doc_id": "d",
    "text": TEXT,
    "task": "Task: Annotate the document to anonymise the following person: Anna Berg",
    "annotations": {
        "a": {
            "entity_mentions": [
                mention("a", 1, "Anna Berg", "PERSON", "DIRECT"),
                mention("a", 2, "Oslo", "LOC", "QUASI"),
                mention("a", 3, "2001", "DATETIME", "QUASI"),
            ]
        },
        "b": {
            "entity_mentions": [
                mention("b", 1, "Anna Berg", "PERSON", "DIRECT"),
                mention("b", 2, "Oslo", "LOC", "NO_MASK"),
                mention("b", 3, "since 2001", "DATETIME", "QUASI"),
            ]
        },
    },
    "quality_checked": ["a", "b"],
}


@pytest.fixture
def two_layers(corpus, import_documents):
    import_documents(corpus, [DOCUMENT])
    return corpus


def test_the_dashboard_shows_the_coefficients_the_heatmap_and_disagreements(two_layers, people):
    page = computed(client_for(people["manager"]), f"/corpora/{two_layers.pk}/agreement/").content.decode()
    assert "1 document with two or more finished layers" in page
    # Entity type, exact spans: observed 0.5, kappa 1/3, alpha 5/12.
    assert '<td>span (exact)</td><td class="num">4</td>' in page
    assert '<td class="num">0.500</td><td class="num">0.333</td><td class="num">0.417</td>' in page
    assert 'id="confusion"' in page and "NO_MASK vs QUASI" in page


def test_csv_downloads_read_the_stored_report_and_never_start_one(two_layers, people):
    client = client_for(people["manager"])
    page = f"/corpora/{two_layers.pk}/agreement/"
    # Before the page has had the report computed, the download refuses, naming the page.
    with TestCase.captureOnCommitCallbacks(execute=True):
        none_yet = client.get(f"{page}coefficients.csv")
    assert none_yet.status_code == 409
    assert none_yet.content.decode() == (
        f"No current agreement report: open {page} and download the CSV once the page shows the agreement."
    )
    assert not ReportJob.objects.exists()
    computed(client, page)
    response = client.get(f"{page}coefficients.csv")
    assert response["Content-Type"].startswith("text/csv") and "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    exact = next(r for r in rows if r["attribute"] == "entity_type" and r["unit"] == "span (exact)")
    assert (exact["units"], exact["observed_agreement"], exact["fleiss_kappa"]) == ("4", "0.5000", "0.3333")
    confusion = list(
        csv.reader(io.StringIO(client.get(f"/corpora/{two_layers.pk}/agreement/confusion.csv").content.decode()))
    )
    assert confusion[0] == ["type", "PERSON", "LOC", "DATETIME", "O"]
    assert confusion[3] == ["DATETIME", "0", "0", "0", "2"]
    identifiers = client.get(f"/corpora/{two_layers.pk}/agreement/identifiers.csv").content.decode().splitlines()
    assert identifiers == ["entity_type,agree,disagree,NO_MASK vs QUASI", "LOC,0,1,1", "PERSON,1,0,0"]
    assert client.get(f"/corpora/{two_layers.pk}/agreement/other.csv").status_code == 404


def test_csv_downloads_after_a_failed_or_unfinished_report_say_so_and_start_nothing(two_layers, people):
    from annotation.services import reports

    client = client_for(people["manager"])
    page = f"/corpora/{two_layers.pk}/agreement/"
    key = reports.data_key(two_layers, "agreement", {})
    failed = ReportJob.objects.create(corpus=two_layers, kind="agreement", params={}, data_key=key)
    ReportJob.objects.filter(pk=failed.pk).update(status="failed", error="worker out of memory")

    with TestCase.captureOnCommitCallbacks(execute=True):
        refused = client.get(f"{page}identifiers.csv")
    assert refused.status_code == 409
    assert refused.content.decode().startswith(
        f"The agreement report failed (worker out of memory): open {page} and download"
    )
    ReportJob.objects.create(corpus=two_layers, kind="agreement", params={}, data_key=key)  # pending
    waiting = client.get(f"{page}identifiers.csv")
    assert waiting.status_code == 409 and waiting.content.decode().startswith("The agreement is being computed")
    assert ReportJob.objects.count() == 2


def test_only_managers(two_layers, people):
    assert client_for(people["ann"]).get(f"/corpora/{two_layers.pk}/agreement/").status_code == 403
    assert client_for(people["outsider"]).get(f"/corpora/{two_layers.pk}/agreement/").status_code == 404
    assert client_for(people["ann"]).get(f"/corpora/{two_layers.pk}/agreement/coefficients.csv").status_code == 403


def test_an_empty_corpus_says_why(corpus, people):
    page = computed(client_for(people["manager"]), f"/corpora/{corpus.pk}/agreement/").content.decode()
    assert "agreement needs at least two annotators on the same document" in page
