"""The evaluation tables as CSV downloads, for linkable sources and for an uploaded file."""

import csv
import io
import json

import pytest
from django.test import TestCase

from annotation.models import ReportJob

from ..conftest import client_for
from .conftest import SYSTEM, computed, span, upload

# Reports run in-process (eager) here, whatever the broker: tests/frontend/evaluation/test_worker.py
# has a real worker compute one.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]


def test_csv_downloads_read_the_stored_report_and_never_start_one(two_layers):
    client = client_for(two_layers["manager"])
    # Before the page has had its report computed, the download refuses, naming the page.
    with TestCase.captureOnCommitCallbacks(execute=True):
        none_yet = client.get(two_layers["csv"], {"source": "annotator:a"})
    assert none_yet.status_code == 409
    page = f"{two_layers['url']}?source=annotator%3Aa"
    assert none_yet.content.decode() == (
        f"No current evaluation report: open {page} and download the CSV once the page shows the evaluation."
    )
    assert not ReportJob.objects.exists()
    computed(client, two_layers["url"], {"source": "annotator:a"})
    assert ReportJob.objects.get().kind == "evaluation"
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
    assert ReportJob.objects.count() == 1  # every table from the one stored report
    computed(client, two_layers["url"], {"source": "preannotation"})
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
