"""The pair review pages answer each role as the rules say, name what is wrong, and
serve the masked document as text and HTML."""

import pytest

from annotation.enums import LayerStatus
from annotation.models import AnnotationLayer, Document, ReviewAssignment, ReviewPair, ReviewThread
from annotation.services import review
from annotation.services.layers import add_reviewer
from annotation.services.mentions import create_mention
from tests.conftest import version

from .conftest import client_for

TEXT = "Mr John Smith was born in 1961 in Oslo."
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def confirmed(corpus, people, eager_tasks, django_capture_on_commit_callbacks):
    """ann's confirmed layer with the name masked and 1961 readable but HEALTH-marked
    (a contrived category: it shows the marking), rita paired as reviewer."""
    document = Document.objects.create(corpus=corpus, doc_id="case-1", text=TEXT, person_to_protect="John Smith")
    layer = AnnotationLayer.objects.create(document=document, annotator=people["ann"])
    create_mention(
        layer, actor=people["ann"], start_offset=0, end_offset=13, entity_type="PERSON", identifier_type="DIRECT"
    )
    create_mention(
        layer,
        actor=people["ann"],
        start_offset=26,
        end_offset=30,
        entity_type="DATETIME",
        identifier_type="NO_MASK",
        confidential_status="HEALTH",
    )
    from annotation.services.layers import change_layer_status

    with django_capture_on_commit_callbacks(execute=True):  # the masked review is rendered on confirmation
        change_layer_status(layer, LayerStatus.CONFIRMED, actor=people["ann"])
    add_reviewer(layer, people["rita"], actor=people["manager"])
    return layer


def test_only_the_paired_reviewer_reads_the_masked_document_first(confirmed, people):
    url = f"/layers/{confirmed.pk}/review/"
    assert client_for(people["outsider"]).get(url).status_code == 404
    assert client_for(people["bob"]).get(url).status_code == 404  # cannot even see the layer
    assert client_for(people["ann"]).get(url).status_code == 403  # the author is no reviewer
    rita = client_for(people["rita"])
    page = rita.get(url).content.decode()
    assert "*************" in page and "John Smith" in page  # masked text; the person in the task box
    assert "Could you re-identify" in page
    refused = rita.post(url, {"comment": "hm"})
    assert refused.status_code == 422 and "no, perhaps or yes" in refused.content.decode()
    assert rita.post(url, {"reidentifiable": "maybe", "comment": "the birth year"}).status_code == 302
    assignment = ReviewAssignment.objects.get(layer=confirmed)
    assert assignment.reidentifiable == "maybe" and assignment.masked_read_at is not None
    confirmed.refresh_from_db()
    assert confirmed.status == LayerStatus.UNDER_REVIEW


def test_before_the_masked_reading_the_reviewer_sees_neither_text_nor_annotations(confirmed, people):
    rita = client_for(people["rita"])
    for url in (f"/layers/{confirmed.pk}/", f"/documents/{confirmed.document_id}/"):
        response = rita.get(url)
        assert response.status_code == 302 and response["Location"] == f"/layers/{confirmed.pk}/review/", url
    entity = confirmed.entities.first()
    assert rita.get(f"/layers/{confirmed.pk}/entities/{entity.pk}/").status_code == 404
    assert rita.post(f"/layers/{confirmed.pk}/review/", {"reidentifiable": "no"}).status_code == 302
    page = rita.get(f"/documents/{confirmed.document_id}/")
    assert page.status_code == 200 and "Mr John Smith" in page.content.decode()


def test_notes_from_the_panel_and_their_errors(confirmed, people):
    entity = confirmed.entities.get(tab_entity_id__endswith="e1")
    rita = client_for(people["rita"])
    # The review order: no note before the masked reading.
    early = rita.post(f"/layers/{confirmed.pk}/review/notes/", {"entity": entity.pk, "body": "Title?"}, **HTMX)
    assert early.status_code == 403 and not ReviewThread.objects.exists()
    assert rita.post(f"/layers/{confirmed.pk}/review/", {"reidentifiable": "no"}).status_code == 302
    empty = rita.post(f"/layers/{confirmed.pk}/review/notes/", {"entity": entity.pk, "body": " "}, **HTMX)
    assert empty.status_code == 422 and "Write something in the note." in empty.content.decode()
    no_anchor = rita.post(f"/layers/{confirmed.pk}/review/notes/", {"body": "x"}, **HTMX)
    assert "Choose the mention or entity" in no_anchor.content.decode()
    made = rita.post(f"/layers/{confirmed.pk}/review/notes/", {"entity": entity.pk, "body": "Title?"}, **HTMX)
    assert made.status_code == 200 and "“Mr John Smith”" in made.content.decode()
    thread = ReviewThread.objects.get()
    # bob is neither author nor reviewer: he cannot see the layer at all
    assert client_for(people["bob"]).post(f"/layers/{confirmed.pk}/review/notes/{thread.pk}/reply/").status_code == 404
    answer = client_for(people["ann"]).post(
        f"/layers/{confirmed.pk}/review/notes/{thread.pk}/settle/", {"status": "resolved", "body": "Yes."}, **HTMX
    )
    assert answer.status_code == 200 and "Resolved" in answer.content.decode()
    thread.refresh_from_db()
    assert thread.status == "resolved" and thread.settled_by == people["ann"]
    assert [c.body for c in thread.comments.all()] == ["Title?", "Yes."]


def test_signing_off_from_the_panel_refreshes_the_page_once_reviewed(confirmed, people):
    rita, ann = client_for(people["rita"]), client_for(people["ann"])

    def sign(client, seen=None):
        seen = version(confirmed) if seen is None else seen
        return client.post(f"/layers/{confirmed.pk}/review/confirm/", {"layer_version": seen}, **HTMX)

    early = sign(ann)
    assert "not started the review" in early.content.decode()
    assert rita.post(f"/layers/{confirmed.pk}/review/", {"reidentifiable": "no"}).status_code == 302
    assert sign(rita).status_code == 200
    # A sign-off names the version it saw: an older one is refused, nothing signed.
    stale = sign(ann, seen=version(confirmed) - 1)
    assert stale.status_code == 422 and "changed by someone else" in stale.content.decode()
    no_version = ann.post(f"/layers/{confirmed.pk}/review/confirm/", **HTMX)
    assert no_version.status_code == 422 and "layer_version" in no_version.content.decode()
    last = sign(ann)
    assert last["HX-Refresh"] == "true"
    confirmed.refresh_from_db()
    assert confirmed.status == LayerStatus.REVIEWED
    # a reviewed layer is closed to discussion
    assert sign(rita).status_code == 403


def test_masked_downloads_as_text_and_html(confirmed, people, eager_tasks):
    ann = client_for(people["ann"])
    text = ann.get(f"/layers/{confirmed.pk}/masked.txt")
    assert text.status_code == 200
    assert text.content.decode() == "*************" + TEXT[13:]
    assert text["Content-Disposition"] == 'attachment; filename="case-1.ann_annotator.masked.txt"'
    html = ann.get(f"/layers/{confirmed.pk}/masked.html").content.decode()
    assert '<span class="masked">*************</span>' in html
    assert '<mark class="confidential" data-category="HEALTH">1961</mark>' in html
    assert "<script" not in html
    assert client_for(people["outsider"]).get(f"/layers/{confirmed.pk}/masked.txt").status_code == 404


def test_masked_download_of_an_open_layer_says_why_not(corpus, people):
    document = Document.objects.create(corpus=corpus, doc_id="open", text=TEXT)
    layer = AnnotationLayer.objects.create(document=document, annotator=people["ann"])
    response = client_for(people["ann"]).get(f"/layers/{layer.pk}/masked.txt")
    assert response.status_code == 409 and "once the layer is confirmed" in response.content.decode()


def test_managers_pair_annotators_and_choose_the_mask_style(confirmed, people, corpus, eager_tasks):
    url = f"/corpora/{corpus.pk}/reviews/"
    assert client_for(people["ann"]).get(url).status_code == 403
    assert client_for(people["outsider"]).get(url).status_code == 404
    mia = client_for(people["manager"])
    same = mia.post(url, {"action": "pair", "first": people["ann"].pk, "second": people["ann"].pk}, follow=True)
    assert "cannot be paired with themselves" in same.content.decode()
    done = mia.post(url, {"action": "pair", "first": people["bob"].pk, "second": people["ann"].pk}, follow=True)
    assert "Paired ann_annotator and bob_annotator." in done.content.decode()
    assert ReviewPair.objects.count() == 1
    # ann's confirmed layer got bob (her partner) as a second reviewer
    assert set(confirmed.review_assignments.values_list("reviewer__username", flat=True)) == {
        "rita_reviewer",
        "bob_annotator",
    }
    missing = mia.post(
        url,
        {"action": "reviewer", "doc_id": "nope", "annotator": "ann_annotator", "reviewer": people["rita"].pk},
        follow=True,
    )
    assert "No layer of ann_annotator on document “nope”" in missing.content.decode()
    mia.post(url, {"action": "mask_style", "mask_style": "labels"})
    corpus.refresh_from_db()
    assert corpus.mask_style == "labels"
    text = client_for(people["ann"]).get(f"/layers/{confirmed.pk}/masked.txt").content.decode()
    assert text == "[PERSON]" + TEXT[13:]
    bad = mia.post(url, {"action": "mask_style", "mask_style": "blur"}, follow=True)
    assert "not &#x27;blur&#x27;" in bad.content.decode()


def test_a_reviewer_still_annotating_the_document_is_not_paired_on_it(confirmed, people, corpus):
    from annotation.enums import Role
    from annotation.models import CorpusMembership
    from annotation.services.errors import DomainError

    CorpusMembership.objects.create(corpus=corpus, user=people["bob"], role=Role.REVIEWER)
    AnnotationLayer.objects.create(document=confirmed.document, annotator=people["bob"], position=1)
    with pytest.raises(DomainError, match="bob_annotator still annotates document case-1"):
        add_reviewer(confirmed, people["bob"], actor=people["manager"])
    review.pair_annotators(corpus, people["ann"], people["bob"], actor=people["manager"])
    assert not confirmed.review_assignments.filter(reviewer=people["bob"]).exists()


def test_the_queue_lists_what_to_review_and_my_layers_in_review(confirmed, people):
    rita_page = client_for(people["rita"]).get("/reviews/").content.decode()
    assert "case-1" in rita_page and "Read masked document" in rita_page
    ann_page = client_for(people["ann"]).get("/reviews/").content.decode()
    assert "rita_reviewer" in ann_page and "Nothing to review" in ann_page


def test_the_managers_list_hides_reviewed_layers_unless_asked(confirmed, people, corpus):
    AnnotationLayer.objects.filter(pk=confirmed.pk).update(status=LayerStatus.REVIEWED)
    mia = client_for(people["manager"])
    default = mia.get(f"/corpora/{corpus.pk}/reviews/").content.decode()
    assert "No layer waits for review." in default and "1 reviewed" in default
    everything = mia.get(f"/corpora/{corpus.pk}/reviews/?reviewed=1").content.decode()
    assert f'href="/layers/{confirmed.pk}/"' in everything
