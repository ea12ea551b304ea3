"""My work tells an annotator what is new: layers given to them in the last week
(assigned or handed over), layers back from review with open notes, and documents whose
pre-annotation the engine refreshed while their layer was open."""

import re
from datetime import timedelta

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.enums import LayerStatus
from annotation.models import AuditEvent, Document, PreannotationRun, Prediction, ReviewThread
from annotation.services.layers import assign_layer
from annotation.services.preannotation_apply import apply_predictions
from annotation.services.reassignment import hand_over_layer

from .conftest import client_for

TEXT = "Mr John Smith was born in 1961 in Oslo."


def section(page: str, name: str) -> list[str] | None:
    """The document ids linked in a news section, or None when the section is absent."""
    found = re.search(rf'<section class="news-card" id="news-{name}".*?</section>', page, re.S)
    return re.findall(r'<a href="/layers/\d+/">([\w-]+)</a>', found.group(0)) if found else None


def documents(corpus, *doc_ids):
    return [
        Document.objects.create(corpus=corpus, doc_id=doc_id, text=TEXT, person_to_protect="John Smith")
        for doc_id in doc_ids
    ]


def test_layers_given_in_the_last_week_are_new_older_ones_are_not(corpus, people):
    fresh, old, handed = documents(corpus, "fresh", "old", "handed")
    manager, ann = people["manager"], people["ann"]
    assign_layer(fresh, ann, actor=manager)
    old_layer = assign_layer(old, ann, actor=manager)
    AuditEvent.objects.filter(layer=old_layer).update(at=timezone.now() - timedelta(days=8))
    bobs = assign_layer(handed, people["bob"], actor=manager)
    AuditEvent.objects.filter(layer=bobs).update(at=timezone.now() - timedelta(days=30))  # bob got it long ago
    hand_over_layer(bobs, ann, actor=manager)
    page = client_for(ann).get("/work/").content.decode()
    assert sorted(section(page, "assigned")) == ["fresh", "handed"]
    assert "(last 7 days)" in page
    assert section(client_for(people["bob"]).get("/work/").content.decode(), "assigned") is None


def test_layers_under_review_with_open_notes_are_back_for_the_author(corpus, people):
    noted, settled = documents(corpus, "noted", "settled")
    ann = people["ann"]
    for document, status in ((noted, ReviewThread.Status.OPEN), (settled, ReviewThread.Status.RESOLVED)):
        layer = assign_layer(document, ann, actor=people["manager"])
        layer.status = LayerStatus.UNDER_REVIEW
        layer.save(update_fields=["status"])
        for _ in range(2 if status == ReviewThread.Status.OPEN else 1):
            ReviewThread.objects.create(layer=layer, anchor="John Smith", opened_by=people["rita"], status=status)
    page = client_for(ann).get("/work/").content.decode()
    assert section(page, "review") == ["noted"]
    assert "2 open notes to answer" in page


def test_an_engine_refresh_of_an_open_layer_is_announced(corpus, people):
    refreshed, assigned_only = documents(corpus, "refreshed", "assigned-only")
    ann = people["ann"]
    run = PreannotationRun.objects.create(corpus=corpus)
    layers = {}
    for document in (refreshed, assigned_only):
        layers[document.doc_id] = assign_layer(document, ann, actor=people["manager"])
    prediction = Prediction.objects.create(
        run=run, document=refreshed, entity_key=0, start_offset=34, end_offset=38, span_text="Oslo",
        entity_type="LOC", identifier_type="QUASI",
    )  # fmt: skip
    apply_predictions(layers["refreshed"], [prediction])  # by nobody: a run refreshing open layers
    # The pre-annotation a manager's assignment starts from is not news.
    AuditEvent.objects.create(
        corpus=corpus, layer=layers["assigned-only"], actor=people["manager"], action="preannotation.apply"
    )
    page = client_for(ann).get("/work/").content.decode()
    assert section(page, "engine") == ["refreshed"]
    assert "(1 added, 0 taken back); nothing you changed was touched." in page


def test_my_work_reads_the_same_number_of_queries_for_one_new_layer_or_eight(corpus, people):
    client = client_for(people["ann"])
    for document in documents(corpus, "n0"):
        assign_layer(document, people["ann"], actor=people["manager"])
    with CaptureQueriesContext(connection) as few:
        assert section(client.get("/work/").content.decode(), "assigned") == ["n0"]
    for document in documents(corpus, *(f"n{i}" for i in range(1, 8))):
        assign_layer(document, people["ann"], actor=people["manager"])
    with CaptureQueriesContext(connection) as many:
        assert len(section(client.get("/work/").content.decode(), "assigned")) == 8
    assert len(many) == len(few), [query["sql"] for query in many.captured_queries]
