"""The assignment page: the preview shows what apply creates, apply creates exactly
that (or shows the new preview when it changed), "all matching" covers every page, and
open layers are withdrawn or handed over with the service's refusals shown."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.enums import LayerStatus, Role
from annotation.models import AnnotationLayer, CorpusMembership, Document
from annotation.services.layers import assign_layer
from annotation.services.mentions import create_mention
from tests.conftest import make_user

from .conftest import client_for

pytestmark = pytest.mark.django_db
TEXT = "Mr John Smith was born in 1961 in Oslo."


@pytest.fixture
def team(corpus, people):
    cara = make_user("cara_annotator")
    CorpusMembership.objects.create(corpus=corpus, user=cara, role=Role.ANNOTATOR)
    return {**people, "cara": cara}


def make_documents(corpus, *doc_ids):
    return [
        Document.objects.create(corpus=corpus, doc_id=doc_id, text=TEXT, person_to_protect="John Smith", position=i)
        for i, doc_id in enumerate(doc_ids)
    ]


def pairs_in_db(corpus) -> set[tuple[str, str]]:
    return set(
        AnnotationLayer.objects.filter(document__corpus=corpus).values_list("document__doc_id", "annotator__username")
    )


def apply_form(page: str) -> list[tuple[str, str]]:
    """The hidden fields of the preview's Apply form, as the browser would post them."""
    form = re.search(r'<form[^>]*id="apply-form".*?</form>', page, re.S).group(0)
    return re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form)


def as_post(fields: list[tuple[str, str]]) -> dict[str, list[str]]:
    data: dict[str, list[str]] = {}
    for name, value in fields:
        data.setdefault(name, []).append(value)
    return data


def test_preview_shows_balanced_pairs_and_loads_and_apply_creates_exactly_them(corpus, team):
    documents = make_documents(corpus, "d1", "d2", "d3", "d4")
    client = client_for(team["manager"])
    url = f"/corpora/{corpus.pk}/assign/"
    people = [team["ann"].pk, team["bob"].pk, team["cara"].pk]
    preview = client.post(
        url + "preview/",
        {"documents": [d.pk for d in documents], "annotators": people, "strategy": "balanced", "per_document": "2"},
    )
    page = preview.content.decode()
    assert preview.status_code == 200 and pairs_in_db(corpus) == set()  # a preview changes nothing
    # By hand: each document to the two least loaded, ties to the first given (ann, bob, cara).
    # d1: ann, bob (1 1 0); d2: cara, then ann (2 1 1); d3: bob, cara (2 2 2); d4: ann, bob (3 3 2).
    rows = re.findall(r"<tr><td>(d\d)</td><td>(.*?)</td></tr>", page)
    shown = {doc: re.findall(r'<span class="chip">(\w+)</span>', cell) for doc, cell in rows}
    assert shown == {
        "d1": ["ann_annotator", "bob_annotator"],
        "d2": ["ann_annotator", "cara_annotator"],
        "d3": ["bob_annotator", "cara_annotator"],
        "d4": ["ann_annotator", "bob_annotator"],
    }
    loads = re.findall(r'<tr><td>(\w+)</td><td class="num">(\d+)</td><td class="num"><strong>(\d+)</strong></td>', page)
    assert loads == [("ann_annotator", "0", "3"), ("bob_annotator", "0", "3"), ("cara_annotator", "0", "2")]
    applied = client.post(url + "apply/", as_post(apply_form(page)), follow=True)
    assert "8 layers assigned to ann_annotator, bob_annotator, cara_annotator." in applied.content.decode()
    assert pairs_in_db(corpus) == {(doc, user) for doc, users in shown.items() for user in users}


def test_all_matching_assigns_every_matching_document_not_only_the_visible_page(corpus, team):
    alphas = [f"alpha-{i:02}" for i in range(52)]
    make_documents(corpus, *alphas, "beta-1")
    client = client_for(team["manager"])
    url = f"/corpora/{corpus.pk}/assign/"
    listed = client.get(url, {"q": "alpha"}).content.decode()
    assert "Select all 52 matching documents (every page)" in listed
    assert listed.count('name="documents"') == 50  # one page
    beta = Document.objects.get(doc_id="beta-1")
    data = {
        "q": "alpha",
        "all_matching": "1",
        "documents": [beta.pk],  # ticked before "all matching": the filter decides, not the boxes
        "annotators": [team["ann"].pk, team["bob"].pk],
        "strategy": "round_robin",
    }
    page = client.post(url + "preview/", data).content.decode()
    assert "Preview: 52 new layers on 52 documents" in page
    client.post(url + "apply/", as_post(apply_form(page)))
    made = pairs_in_db(corpus)
    # Round robin: alpha-00 to ann, alpha-01 to bob, and so on.
    assert made == {(doc, "ann_annotator" if i % 2 == 0 else "bob_annotator") for i, doc in enumerate(alphas)}


def test_apply_shows_the_new_preview_instead_when_the_assignment_changed(corpus, team):
    d1, d2 = make_documents(corpus, "d1", "d2")
    client = client_for(team["manager"])
    url = f"/corpora/{corpus.pk}/assign/"
    data = {"documents": [d1.pk, d2.pk], "annotators": [team["ann"].pk, team["bob"].pk], "strategy": "round_robin"}
    page = client.post(url + "preview/", data).content.decode()
    assign_layer(d1, team["bob"], actor=team["manager"])  # another manager, meanwhile
    response = client.post(url + "apply/", as_post(apply_form(page)))
    assert response.status_code == 409
    assert "no longer the one you previewed" in response.content.decode()
    assert pairs_in_db(corpus) == {("d1", "bob_annotator")}  # nothing applied


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"strategy": "balanced", "per_document": "1"}, "Choose at least one annotator."),
        ({"strategy": "balanced", "per_document": "3", "annotators": "ann"}, "between 1 and the 1 annotators chosen"),
        (
            {"strategy": "balanced", "per_document": "x", "annotators": "ann"},
            "must be a whole number, not &#x27;x&#x27;",
        ),
        ({"strategy": "explicit", "pairs": "d1 bob_annotator\nnope ann_annotator"}, "Line 2: corpus ECHR test has no"),
        ({"strategy": "balanced", "per_document": "1", "annotators": "rita"}, "rita_reviewer is not an annotator"),
    ],
)
def test_preview_refusals_name_what_is_wrong_and_keep_the_choices(corpus, team, data, message):
    (d1,) = make_documents(corpus, "d1")
    people = {"ann": team["ann"].pk, "rita": team["rita"].pk}
    posted = {**data, "documents": [d1.pk]}
    if "annotators" in data:
        posted["annotators"] = [people[data["annotators"]]]
    response = client_for(team["manager"]).post(f"/corpora/{corpus.pk}/assign/preview/", posted)
    page = response.content.decode()
    assert response.status_code == 422 and message in page
    assert f'value="{d1.pk}" id="doc-{d1.pk}" aria-label="d1" checked' in page  # the ticked box stays ticked
    assert pairs_in_db(corpus) == set()


def test_explicit_pairs_are_applied_as_listed(corpus, team):
    make_documents(corpus, "d1", "d2")
    client = client_for(team["manager"])
    url = f"/corpora/{corpus.pk}/assign/"
    page = client.post(
        url + "preview/", {"strategy": "explicit", "pairs": "d1 bob_annotator\nd2, cara_annotator\n"}
    ).content.decode()
    client.post(url + "apply/", as_post(apply_form(page)))
    assert pairs_in_db(corpus) == {("d1", "bob_annotator"), ("d2", "cara_annotator")}


def test_inactive_annotators_are_not_offered_and_the_page_says_how_many(corpus, team):
    team["cara"].is_active = False
    team["cara"].save()
    page = client_for(team["manager"]).get(f"/corpora/{corpus.pk}/assign/").content.decode()
    annotators = re.search(r'<fieldset class="field" id="annotators">(.*?)</fieldset>', page, re.S).group(1)
    assert "ann_annotator" in annotators and "cara_annotator" not in annotators
    assert "1 inactive annotator not listed" in annotators


# --- Withdraw and hand over ----------------------------------------------------------------------


@pytest.fixture
def layers(corpus, team):
    d1, d2 = make_documents(corpus, "d1", "d2")
    unstarted = assign_layer(d1, team["ann"], actor=team["manager"])
    started = assign_layer(d2, team["ann"], actor=team["manager"])
    create_mention(started, actor=team["ann"], start_offset=3, end_offset=13, entity_type="PERSON")
    bob_on_d2 = assign_layer(d2, team["bob"], actor=team["manager"])
    return {"unstarted": unstarted, "started": started, "bob_on_d2": bob_on_d2}


def test_withdrawing_removes_an_unstarted_layer_and_closes_a_started_one(corpus, team, layers):
    client = client_for(team["manager"])
    base = f"/corpora/{corpus.pk}/layers/"
    response = client.post(f"{base}{layers['unstarted'].pk}/withdraw/", {"back": "?holder=ann_annotator"})
    assert response["Location"] == f"/corpora/{corpus.pk}/assign/?holder=ann_annotator#open-layers"
    assert not AnnotationLayer.objects.filter(pk=layers["unstarted"].pk).exists()
    page = client.post(f"{base}{layers['started'].pk}/withdraw/", follow=True).content.decode()
    assert "ann_annotator&#x27;s layer on d2 is withdrawn: it had been started" in page
    started = AnnotationLayer.objects.get(pk=layers["started"].pk)
    assert started.status == LayerStatus.WITHDRAWN and started.mentions.count() == 1


def test_finished_layers_are_not_withdrawn_and_the_refusal_is_shown(corpus, team, layers):
    AnnotationLayer.objects.filter(pk=layers["started"].pk).update(status=LayerStatus.CONFIRMED)
    page = (
        client_for(team["manager"])
        .post(f"/corpora/{corpus.pk}/layers/{layers['started'].pk}/withdraw/", follow=True)
        .content.decode()
    )
    assert "finished work is never withdrawn" in page
    assert AnnotationLayer.objects.get(pk=layers["started"].pk).status == LayerStatus.CONFIRMED


def test_hand_over_gives_the_layer_and_its_work_to_another_annotator(corpus, team, layers):
    client = client_for(team["manager"])
    url = f"/corpora/{corpus.pk}/layers/{layers['started'].pk}/hand-over/"
    page = client.get(f"/corpora/{corpus.pk}/assign/").content.decode()
    row = re.search(rf'<tr id="layer-{layers["started"].pk}">.*?</tr>', page, re.S).group(0)
    offered = re.findall(r'<option value="\d+">(\w+)</option>', row)
    assert offered == ["cara_annotator"]  # ann holds it, bob has his own layer on d2
    refused = client.post(url, {"annotator": team["bob"].pk}, follow=True).content.decode()
    assert "bob_annotator already has a layer on document d2." in refused
    client.post(url, {"annotator": team["cara"].pk})
    layer = AnnotationLayer.objects.get(pk=layers["started"].pk)
    assert layer.annotator == team["cara"] and layer.mentions.count() == 1
    assert layer.status == LayerStatus.IN_PROGRESS


def test_open_layers_of_removed_members_are_marked_for_handing_over(corpus, team, layers):
    CorpusMembership.objects.filter(corpus=corpus, user=team["bob"]).delete()
    page = client_for(team["manager"]).get(f"/corpora/{corpus.pk}/assign/").content.decode()
    row = re.search(rf'<tr id="layer-{layers["bob_on_d2"].pk}">.*?</tr>', page, re.S).group(0)
    assert 'bob_annotator <span class="muted">(no longer an annotator here)</span>' in row


def test_the_assignment_page_reads_the_same_number_of_queries_for_two_documents_or_twelve(corpus, team):
    def assign_both(documents):
        for document in documents:
            assign_layer(document, team["ann"], actor=team["manager"])
            assign_layer(document, team["bob"], actor=team["manager"])

    client = client_for(team["manager"])
    url = f"/corpora/{corpus.pk}/assign/"
    assign_both(make_documents(corpus, "d0", "d1"))
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    assign_both(make_documents(corpus, *(f"e{i}" for i in range(10))))
    with CaptureQueriesContext(connection) as many:
        page = client.get(url).content.decode()
    assert "e9" in page  # the new documents and their open layers are on the page
    assert len(many) == len(few), [query["sql"] for query in many.captured_queries]
