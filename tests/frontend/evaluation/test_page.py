"""The manager's evaluation page: who may see it, the metrics of each kind of source
(figures computed by hand in conftest.py), missed entities, choices and errors."""

import pytest
from django.test import Client, TestCase

from annotation.enums import EntityType
from annotation.models import ReportJob
from annotation.services import reports
from annotation.services.layers import assign_layer
from annotation.services.mentions import create_mention

from ..conftest import client_for
from .conftest import SYSTEM, computed, metric, metrics, preannotate, span, upload

# Reports run in-process (eager) here, whatever the broker: tests/frontend/evaluation/test_worker.py
# has a real worker compute one.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]


def test_only_managers(two_layers):
    url, csv_url = two_layers["url"], two_layers["csv"] + "?source=annotator:a"
    for path in (url, csv_url):
        assert client_for(two_layers["ann"]).get(path).status_code == 403
        assert client_for(two_layers["rita"]).get(path).status_code == 403
        assert client_for(two_layers["outsider"]).get(path).status_code == 404
        response = Client().get(path)
        assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert client_for(two_layers["ann"]).post(url, {"file": upload(SYSTEM)}).status_code == 403
    assert client_for(two_layers["manager"]).get(url).status_code == 200
    assert not ReportJob.objects.exists()  # a refused request starts nothing


def test_a_masked_file_is_scored_against_both_layers(two_layers):
    response = client_for(two_layers["manager"]).post(two_layers["url"], {"file": upload(SYSTEM)})
    page = response.content.decode()
    assert response.status_code == 200
    # ER_di: both annotators' Anna Berg masked: (1+1)/(1+1) = 1.
    # ER_qi: a: Oslo yes, Carl Dahl no; b: Oslo yes, 2001 no: (1+1)/(2+2) = 0.5.
    # Token recall: a 3 of 5 (Anna Berg Oslo), b 3 of 4: 6/9 = 0.667.
    # Precision: system tokens Anna Berg met Oslo; both annotators cover Anna, Berg and
    # Oslo, nobody "met": (3+3)/(2*4) = 0.75 (WP uniform is the same figure).
    assert metrics(page) == ("1.000", "0.500", "0.667", "0.750", "0.750")
    assert "1 document · 2 direct and 4 quasi identifiers to mask · gold: a, b" in page
    assert "Uploaded file system.json" in page
    assert "SANITIZE_ENGINE[&quot;masked_lm&quot;]" in page  # no LM here: the page says what it needs
    # Per type: PERSON a 4 tokens (2 masked) + b 2 (2 masked): 2 missed, recall 4/6;
    # LOC 2 of 2; DATETIME b's 2001: 1 missed, recall 0.
    types = page[page.index('id="types"') : page.index('id="false-negatives"')]
    assert '>PERSON</span></td><td class="num">2</td><td class="num">0.667</td>' in types
    assert '>LOC</span></td><td class="num">0</td><td class="num">1.000</td>' in types
    assert '>DATETIME</span></td><td class="num">1</td><td class="num">0.000</td>' in types
    chart = page[page.index('id="false-negatives"') : page.index('id="missed"')]
    assert '<svg class="chart"' in chart and ">PERSON</text>" in chart and ">DATETIME</text>" in chart


def test_missed_entities_link_to_the_annotators_layer_at_the_line(two_layers):
    page = client_for(two_layers["manager"]).post(two_layers["url"], {"file": upload(SYSTEM)}).content.decode()
    missed = page[page.index('id="missed"') :]
    assert 'Missed entities <span class="muted">(2)</span>' in missed
    rows = missed.split("<tr>")[2:]
    assert len(rows) == 2
    document = two_layers["document"].pk
    # a's Carl Dahl (quasi) on line 0, b's 2001 on line 1.
    assert f'href="/documents/{document}/?layer={two_layers["layer_a"].pk}#b0">d</a>' in rows[0]
    assert "<td>a</td>" in rows[0] and ">PERSON<" in rows[0] and ">quasi<" in rows[0] and ">Carl Dahl</q>" in rows[0]
    assert f'href="/documents/{document}/?layer={two_layers["layer_b"].pk}#b1">d</a>' in rows[1]
    assert "<td>b</td>" in rows[1] and ">DATETIME<" in rows[1] and ">2001</q>" in rows[1]
    # The link opens the right layer, and its line carries the anchor's id.
    layer_page = (
        client_for(two_layers["manager"])
        .get(f"/documents/{document}/?layer={two_layers['layer_b'].pk}")
        .content.decode()
    )
    assert 'aria-current="page">\n    b ' in layer_page and 'id="b1"' in layer_page


def test_an_annotator_against_the_other_is_linkable(two_layers):
    client = client_for(two_layers["manager"])
    # a masks Anna Berg, Carl Dahl and Oslo; gold is b alone: ER_di 1/1, ER_qi 1/2
    # (2001 readable), recall 3 of 4 tokens, precision: b covers Anna Berg Oslo of the
    # 5 system tokens (Carl Dahl is NO_MASK for b): 3/5.
    page = computed(client, two_layers["url"], {"source": "annotator:a"}).content.decode()
    assert metrics(page) == ("1.000", "0.500", "0.750", "0.600", "0.600")
    assert "gold: b ·" in page and "a (against the others)" in page
    # Asking for the comparison keeps the choice on the page.
    page = client.get(two_layers["url"], {"source": "annotator:a", "annotators": ["b"]}).content.decode()
    assert 'href="?source=annotator%3Aa&amp;annotators=b&amp;compare=1">Compare all sources' in page
    # The form posts, then lands on the linkable URL.
    response = client.post(two_layers["url"], {"source": "annotator:b", "annotators": ["a"]})
    assert response.status_code == 302
    assert response["Location"] == f"{two_layers['url']}?source=annotator%3Ab&annotators=a"
    # b masks Anna Berg, Oslo, 2001 against a: ER_qi 1/2 (Carl Dahl), recall 3/5, precision 3/4.
    assert metrics(computed(client, response["Location"]).content.decode()) == (
        "1.000",
        "0.500",
        "0.600",
        "0.750",
        "0.750",
    )


def test_the_gold_standard_and_unfinished_layers_can_be_chosen(two_layers):
    client = client_for(two_layers["manager"])
    # Gold b only: ER_qi 1/2 (2001 readable), recall 3/4, precision: b covers 3 of the
    # 4 system tokens.
    page = client.post(two_layers["url"], {"file": upload(SYSTEM), "annotators": ["b"]}).content.decode()
    assert metrics(page) == ("1.000", "0.500", "0.750", "0.750", "0.750") and "gold: b ·" in page
    # ann's layer, still in progress, marks Carl Dahl as direct: left out by default,
    # counted with unfinished layers: ER_di (1+1+0)/3.
    layer = assign_layer(two_layers["document"], two_layers["ann"], actor=two_layers["manager"])
    start, end = span("Carl Dahl")
    create_mention(
        layer,
        actor=two_layers["ann"],
        start_offset=start,
        end_offset=end,
        entity_type="PERSON",
        identifier_type="DIRECT",
    )
    assert metric(client.post(two_layers["url"], {"file": upload(SYSTEM)}).content.decode(), "ER_di") == "1.000"
    page = client.post(two_layers["url"], {"file": upload(SYSTEM), "all_layers": "on"}).content.decode()
    assert metric(page, "ER_di") == "0.667" and "gold: a, ann_annotator, b ·" in page
    # The in-progress layer is not evaluated as a source unless unfinished layers count.
    page = computed(client, two_layers["url"], {"source": "annotator:ann_annotator"}).content.decode()
    assert "ann_annotator has no finished layer in corpus ECHR test yet" in page
    page = computed(
        client, two_layers["url"], {"source": "annotator:ann_annotator", "all_layers": "on"}
    ).content.decode()
    assert metric(page, "ER_di") == "0.000"  # Carl Dahl masked, but both Anna Berg readable


def test_errors_are_shown_on_the_page(two_layers):
    client = client_for(two_layers["manager"])

    def error(response) -> str:
        assert response.status_code == 200
        page = response.content.decode()
        assert 'id="metrics"' not in page
        start = page.index('id="evaluation-error">') + len('id="evaluation-error">')
        return page[start : page.index("</div>", start)]

    assert error(computed(client, two_layers["url"], {"source": "preannotation"})) == (
        "No document of corpus ECHR test has been pre-annotated."
    )
    assert (
        error(computed(client, two_layers["url"], {"source": "annotator:nobody"}))
        == "nobody has no layer in corpus ECHR test."
    )
    assert error(client.post(two_layers["url"], {"file": upload({"d": [[0, 999]], "zz": []}, "bad.json")})) == (
        "bad.json: document d: span [0, 999] is not [start, end] inside its text; document zz is not in the corpus"
    )
    assert error(client.post(two_layers["url"], {"file": upload(b"{not json", "broken.json")})).startswith(
        "broken.json is not a readable JSON file:"
    )
    assert error(client.post(two_layers["url"], {"file": upload(["d"], "list.json")})).startswith(
        "list.json must be a JSON object"
    )
    page = client.get(two_layers["url"], {"source": "elsewhere"}).content.decode()
    assert "Unknown source &#x27;elsewhere&#x27;" in page
    page = client.post(two_layers["url"], {}).content.decode()
    assert "Choose a source to evaluate, or attach a masked-output file." in page


def test_the_pre_annotation_and_the_comparison_of_all_sources(two_layers):
    client = client_for(two_layers["manager"])
    preannotate(two_layers["document"], [("Anna Berg", EntityType.PERSON), ("Carl Dahl", EntityType.PERSON)])
    # Engine masks Anna Berg and Carl Dahl; gold a and b: ER_di 2/2; ER_qi a 1/2 (Oslo),
    # b 0/2: 1/4; recall a 4/5, b 2/4: 6/9; precision: Anna Berg covered by both, Carl
    # Dahl by a only: (2+2+1+1)/(2*4) = 0.75.
    page = computed(client, two_layers["url"], {"source": "preannotation"}).content.decode()
    assert metrics(page) == ("1.000", "0.250", "0.667", "0.750", "0.750")
    assert 'id="compare-button"' in page  # not computed yet
    page = computed(client, two_layers["url"], {"compare": "1"}).content.decode()
    table = page[page.index('id="compare"') : page.index('id="choose"')]
    rows = [row for row in table.split("<tr>")[2:]]
    assert [row.split(">", 2)[2].split("<", 1)[0] for row in rows] == [
        "Pre-annotation engine",
        "a (against the others)",
        "b (against the others)",
    ]
    numbers = lambda row: [cell.split("<")[0] for cell in row.split('<td class="num">')[1:]]  # noqa: E731
    assert numbers(rows[0]) == ["1", "1.000", "0.250", "0.667", "0.750", "0.750"]
    assert numbers(rows[1]) == ["1", "1.000", "0.500", "0.750", "0.600", "0.600"]
    assert numbers(rows[2]) == ["1", "1.000", "0.500", "0.600", "0.750", "0.750"]
    assert 'href="?source=annotator%3Aa"' in rows[1]
    # Kept: the next visit shows it without asking ...
    assert 'id="compare-button"' not in client.get(two_layers["url"]).content.decode()
    # ... until a layer changes.
    assign_layer(two_layers["document"], two_layers["ann"], actor=two_layers["manager"])
    assert 'id="compare-button"' in client.get(two_layers["url"]).content.decode()


def test_an_empty_corpus_says_so(corpus, people):
    client = client_for(people["manager"])
    page = computed(client, f"/corpora/{corpus.pk}/evaluation/", {"compare": "1"}).content.decode()
    assert "Nothing to compare yet: no layer and no pre-annotation in this corpus." in page
    assert "No layers yet." in page
    page = computed(client, f"/corpora/{corpus.pk}/evaluation/", {"source": "preannotation"}).content.decode()
    assert "No document of corpus ECHR test has been pre-annotated." in page


def test_the_corpus_and_agreement_pages_link_to_the_evaluation(two_layers):
    manager = client_for(two_layers["manager"])
    link = f'href="{two_layers["url"]}"'
    assert link in manager.get(f"/corpora/{two_layers['corpus'].pk}/").content.decode()
    assert link in manager.get(f"/corpora/{two_layers['corpus'].pk}/agreement/").content.decode()
    assert link not in client_for(two_layers["ann"]).get(f"/corpora/{two_layers['corpus'].pk}/").content.decode()


def test_the_page_starts_one_report_and_shows_its_progress_until_a_worker_computed_it(two_layers):
    client = client_for(two_layers["manager"])
    query = {"source": "annotator:a"}
    with TestCase.captureOnCommitCallbacks() as sent:
        page = client.get(two_layers["url"], query).content.decode()
        again = client.get(two_layers["url"], query).content.decode()  # a poll of the section
    job = ReportJob.objects.get()  # one job for both requests
    assert len(sent) == 1 and (job.kind, job.status, job.result) == ("evaluation", "pending", {})
    assert job.params == {"source": "annotator:a", "annotators": [], "finished_only": True}
    for shown in (page, again):
        assert 'id="metrics"' not in shown  # nothing evaluated in the request
        assert "{#" not in shown  # template comments stay on one line
        assert f'id="job-progress-report-{job.pk}"' in shown and "Evaluating" in shown
        assert f'hx-get="/jobs/report/{job.pk}/progress/' in shown  # the display polls the job ...
        # ... and the section reloads from the page when the job is seen finished.
        section = shown[shown.index('<div id="evaluation-report"') :]
        assert section.startswith(
            f'<div id="evaluation-report" hx-get="{two_layers["url"]}?source=annotator%3Aa"'
            ' hx-trigger="job-finished from:body" hx-select="#evaluation-report" hx-swap="outerHTML" hx-disinherit="*">'
        )
    sent[0]()  # the worker runs it
    job.refresh_from_db()
    assert job.status == "succeeded" and job.result["evaluation"]["source"] == "annotator:a"
    page = client.get(two_layers["url"], query).content.decode()
    assert metrics(page) == ("1.000", "0.500", "0.750", "0.600", "0.600")
    assert "job-progress" not in page and 'hx-select="#evaluation-report"' not in page  # polling stops


def test_a_report_is_computed_again_when_its_data_changed(two_layers):
    client = client_for(two_layers["manager"])
    computed(client, two_layers["url"], {"source": "annotator:a"})
    assign_layer(two_layers["document"], two_layers["ann"], actor=two_layers["manager"])
    page = client.get(two_layers["url"], {"source": "annotator:a"}).content.decode()
    assert ReportJob.objects.count() == 2 and ReportJob.objects.first().status == "pending"
    assert 'id="metrics"' not in page and "job-progress" in page  # the stale report is not shown


def test_a_failed_report_says_why_and_is_started_again_only_when_asked(two_layers, monkeypatch):
    client = client_for(two_layers["manager"])

    def broken(*args, **kwargs):
        raise RuntimeError("the scorer broke")

    monkeypatch.setattr(reports, "evaluate_source", broken)
    page = computed(client, two_layers["url"], {"source": "annotator:a"}).content.decode()
    assert "RuntimeError: the scorer broke" in page and 'id="evaluation-retry"' in page
    assert 'hx-select="#evaluation-report"' not in page  # a failed report is not polled
    assert ReportJob.objects.count() == 1  # nor started again by showing the page
    monkeypatch.undo()
    page = computed(client, two_layers["url"], {"source": "annotator:a", "retry": "1"}).content.decode()
    assert metric(page, "ER_di") == "1.000"
    assert ReportJob.objects.get().status == "succeeded"  # the failed report it replaced is gone
