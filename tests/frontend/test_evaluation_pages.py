"""The manager's evaluation page and its CSV downloads, on one hand-built document with
two finished layers (a, b); every expected figure is computed by hand below.

TEXT = "Anna Berg met Carl Dahl\\nin Oslo in 2001."  (one line break: "in Oslo" is line 1)

    entity       a               b
    Anna Berg    PERSON DIRECT   PERSON DIRECT
    Carl Dahl    PERSON QUASI    PERSON NO_MASK
    Oslo         LOC QUASI       LOC QUASI
    2001         DATETIME NO_MASK DATETIME QUASI

Entities to mask: a {Anna Berg (direct), Carl Dahl, Oslo}, b {Anna Berg (direct), Oslo, 2001}.
Tokens of their mentions: a 5 (Anna Berg Carl Dahl Oslo), b 4 (Anna Berg Oslo 2001).
No span holds a function word, so the spaCy filter and the word list agree."""

import csv
import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotation.enums import EntityType, IdentifierType
from annotation.models import PreannotationRun, Prediction, RunDocument
from annotation.services.layers import assign_layer
from annotation.services.mentions import create_mention
from tests.conftest import make_user, tab_mention
from tests.sanitize_app.engine.conftest import tiny_models  # noqa: F401 (the tiny masked LM, built once)

from .conftest import client_for

pytestmark = pytest.mark.django_db

TEXT = "Anna Berg met Carl Dahl\nin Oslo in 2001."


def span(text: str) -> list[int]:
    start = TEXT.index(text)
    return [start, start + len(text)]


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
                mention("a", 2, "Carl Dahl", "PERSON", "QUASI"),
                mention("a", 3, "Oslo", "LOC", "QUASI"),
                mention("a", 4, "2001", "DATETIME", "NO_MASK"),
            ]
        },
        "b": {
            "entity_mentions": [
                mention("b", 1, "Anna Berg", "PERSON", "DIRECT"),
                mention("b", 2, "Carl Dahl", "PERSON", "NO_MASK"),
                mention("b", 3, "Oslo", "LOC", "QUASI"),
                mention("b", 4, "2001", "DATETIME", "QUASI"),
            ]
        },
    },
    "quality_checked": ["a", "b"],
}
# The system masks Anna Berg, Oslo and the non-entity "met".
SYSTEM = {"d": [span("Anna Berg"), span("met"), span("Oslo")]}


def upload(content, name: str = "system.json") -> SimpleUploadedFile:
    data = content if isinstance(content, bytes) else json.dumps(content).encode()
    return SimpleUploadedFile(name, data, content_type="application/json")


def metric(page: str, label: str) -> str:
    """The value printed in the metrics table's row ``label``."""
    head = f'<th scope="row">{label}</th><td class="num">'
    start = page.index(head) + len(head)
    return page[start : page.index("</td>", start)]


def metrics(page: str) -> tuple[str, ...]:
    return tuple(metric(page, label) for label in ("ER_di", "ER_qi", "Token recall", "Token precision", "WP (uniform)"))


@pytest.fixture
def two_layers(corpus, people, import_documents):
    import_documents(corpus, [DOCUMENT])
    document = corpus.documents.get()
    return {
        **people,
        "corpus": corpus,
        "document": document,
        "layer_a": document.layers.get(annotator__username="a"),
        "layer_b": document.layers.get(annotator__username="b"),
        "url": f"/corpora/{corpus.pk}/evaluation/",
        "csv": f"/corpora/{corpus.pk}/evaluation.csv",
    }


def preannotate(document, spans: list[tuple[str, str]]) -> None:
    """A finished pre-annotation run whose predictions mask ``spans`` (text, type)."""
    run = PreannotationRun.objects.create(corpus=document.corpus, status=PreannotationRun.Status.SUCCEEDED)
    RunDocument.objects.create(run=run, document=document, status=RunDocument.Status.DONE)
    for key, (text, entity_type) in enumerate(spans):
        start, end = span(text)
        Prediction.objects.create(
            run=run,
            document=document,
            entity_key=key,
            start_offset=start,
            end_offset=end,
            span_text=text,
            entity_type=entity_type,
            identifier_type=IdentifierType.QUASI,
        )


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
    page = client.get(two_layers["url"], {"source": "annotator:a"}).content.decode()
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
    assert metrics(client.get(response["Location"]).content.decode()) == ("1.000", "0.500", "0.600", "0.750", "0.750")


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
    page = client.get(two_layers["url"], {"source": "annotator:ann_annotator"}).content.decode()
    assert "ann_annotator has no finished layer in corpus ECHR test yet" in page
    page = client.get(two_layers["url"], {"source": "annotator:ann_annotator", "all_layers": "on"}).content.decode()
    assert metric(page, "ER_di") == "0.000"  # Carl Dahl masked, but both Anna Berg readable


def test_errors_are_shown_on_the_page(two_layers):
    client = client_for(two_layers["manager"])

    def error(response) -> str:
        assert response.status_code == 200
        page = response.content.decode()
        assert 'id="metrics"' not in page
        start = page.index('id="evaluation-error">') + len('id="evaluation-error">')
        return page[start : page.index("</div>", start)]

    assert error(client.get(two_layers["url"], {"source": "preannotation"})) == (
        "No document of corpus ECHR test has been pre-annotated."
    )
    assert (
        error(client.get(two_layers["url"], {"source": "annotator:nobody"}))
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
    page = client.get(two_layers["url"], {"source": "preannotation"}).content.decode()
    assert metrics(page) == ("1.000", "0.250", "0.667", "0.750", "0.750")
    assert 'id="compare-button"' in page  # not computed yet
    page = client.get(two_layers["url"], {"compare": "1"}).content.decode()
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


def test_csv_downloads(two_layers):
    client = client_for(two_layers["manager"])
    response = client.get(two_layers["csv"], {"source": "annotator:a"})
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == 'attachment; filename="ECHR test-evaluation-annotator-a-metrics.csv"'
    [row] = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert (row["source"], row["gold_annotators"], row["documents"], row["direct_entities"]) == (
        "annotator:a",
        "b",
        "1",
        "1",
    )
    assert [row[key] for key in ("ER_di", "ER_qi", "token_recall", "token_precision", "WP", "WP_lm")] == [
        "1.0000",
        "0.5000",
        "0.7500",
        "0.6000",
        "0.6000",
        "",
    ]
    missed = client.get(two_layers["csv"], {"source": "annotator:a", "table": "missed"}).content.decode()
    start, end = span("2001")
    assert missed.splitlines() == [
        "doc_id,annotator,entity_id,entity_type,identifier,offsets,mentions",
        f"d,b,d_b_e4,DATETIME,QUASI,{start}-{end},2001",
    ]
    types = client.get(two_layers["csv"], {"source": "annotator:a", "table": "types"}).content.decode()
    assert types.splitlines() == [
        "entity_type,false_negative_tokens,token_recall",
        "DATETIME,1,0.0000",
        "LOC,0,1.0000",
        "PERSON,0,1.0000",
    ]
    assert client.get(two_layers["csv"], {"source": "annotator:a", "table": "other"}).status_code == 404
    refused = client.get(two_layers["csv"], {"source": "preannotation"})
    assert refused.status_code == 400 and "has been pre-annotated" in refused.content.decode()
    assert client.get(two_layers["csv"]).status_code == 400


def test_an_uploaded_files_csv_comes_from_its_checked_spans(two_layers):
    client = client_for(two_layers["manager"])
    page = client.post(two_layers["url"], {"file": upload(SYSTEM), "annotators": ["a"]}).content.decode()
    hidden = page[page.index('id="missed"') :]
    masked = hidden.split('name="masked" value="', 1)[1].split('"', 1)[0].replace("&quot;", '"')
    assert json.loads(masked) == SYSTEM
    response = client.post(
        two_layers["csv"], {"masked": masked, "label": "system.json", "annotators": ["a"], "table": "missed"}
    )
    assert response["Content-Disposition"] == 'attachment; filename="ECHR test-evaluation-file-missed.csv"'
    assert [line.split(",")[:4] for line in response.content.decode().splitlines()[1:]] == [
        ["d", "a", "d_a_e2", "PERSON"]
    ]  # gold a only: Carl Dahl
    tampered = client.post(two_layers["csv"], {"masked": '{"d": [[0, 999]]}', "label": "system.json"})
    assert tampered.status_code == 400 and "span [0, 999]" in tampered.content.decode()


def test_an_empty_corpus_says_so(corpus, people):
    client = client_for(people["manager"])
    page = client.get(f"/corpora/{corpus.pk}/evaluation/", {"compare": "1"}).content.decode()
    assert "Nothing to compare yet: no layer and no pre-annotation in this corpus." in page
    assert "No layers yet." in page
    page = client.get(f"/corpora/{corpus.pk}/evaluation/", {"source": "preannotation"}).content.decode()
    assert "No document of corpus ECHR test has been pre-annotated." in page


def test_the_corpus_and_agreement_pages_link_to_the_evaluation(two_layers):
    manager = client_for(two_layers["manager"])
    link = f'href="{two_layers["url"]}"'
    assert link in manager.get(f"/corpora/{two_layers['corpus'].pk}/").content.decode()
    assert link in manager.get(f"/corpora/{two_layers['corpus'].pk}/agreement/").content.decode()
    assert link not in client_for(two_layers["ann"]).get(f"/corpora/{two_layers['corpus'].pk}/").content.decode()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("rules_only_engine")
def test_a_manager_evaluates_the_engine_in_a_browser(login, live_server, pick, import_documents):
    from annotation.enums import Role
    from annotation.models import Corpus, CorpusMembership
    from annotation.services.preannotation import run_batch, start_run

    corpus = Corpus.objects.create(name="ECHR")
    import_documents(corpus, pick("001-85667", "001-90163"))
    mia = make_user("mia")
    CorpusMembership.objects.create(corpus=corpus, user=mia, role=Role.MANAGER)
    run = start_run(corpus, actor=mia)
    run_batch(run.pk, list(corpus.documents.values_list("pk", flat=True)))

    page = login("mia")
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/")
    page.click("text=Evaluation")
    page.click("#compare-button")
    page.wait_for_selector("#compare table")
    assert page.locator("#compare tbody tr").count() == 1 + 10  # the engine and ten annotators
    page.select_option("#id_source", "preannotation")
    page.click("#choose button[type=submit]")
    page.wait_for_selector("#false-negatives svg.chart")
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


def test_wp_with_the_masked_lms_information_content(two_layers, settings, tiny_models):  # noqa: F811
    from sanitize_app.engine.lm import load_masked_lm

    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "masked_lm": tiny_models["mlm"]}
    client = client_for(two_layers["manager"])
    page = client.post(two_layers["url"], {"file": upload(SYSTEM)}).content.decode()
    # WP = Σ covering annotators × IC / (2 × Σ IC) over the system tokens Anna Berg met
    # Oslo, covered by 2, 2, 0 and 2 annotators: 1 - IC(met) / Σ IC.
    lm = load_masked_lm(tiny_models["mlm"]).model
    weights = {text: lm.information_content(TEXT, tuple(span(text))) for text in ("Anna", "Berg", "met", "Oslo")}
    expected = 1 - weights["met"] / sum(weights.values())
    assert 0 < expected < 1
    row = page[page.index('id="wp-lm"') :]
    assert f'<td class="num">{expected:.3f}</td>' in row and "needs a masked language model" not in row
    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "masked_lm": "/nowhere/mlm"}
    page = client.post(two_layers["url"], {"file": upload(SYSTEM)}).content.decode()
    assert "masked language model &#x27;/nowhere/mlm&#x27; could not be loaded" in page
    assert metric(page, "ER_di") == "1.000"  # the other figures are still there
