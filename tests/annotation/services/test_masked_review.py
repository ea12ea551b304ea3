from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import MaskedReview
from annotation.services.masked_review import render_masked_review
from annotation.services.mentions import create_mention
from annotation.tasks import render_masked_review as render_task

from .conftest import TEXT, span


def test_the_review_masks_direct_and_quasi_and_marks_confidential(layer, people):
    ann = people["ann"]
    name = span("Mr John Smith")
    create_mention(
        layer, actor=ann, start_offset=name[0], end_offset=name[1], entity_type="PERSON", identifier_type="DIRECT"
    )
    year = span("1961")
    create_mention(
        layer,
        actor=ann,
        start_offset=year[0],
        end_offset=year[1],
        entity_type="DATETIME",
        identifier_type="NO_MASK",
        confidential_status="HEALTH",
    )
    review = render_masked_review(layer)
    expected = TEXT[: name[0]] + "*" * len("Mr John Smith") + TEXT[name[1] :]
    assert review.masked_text == expected
    assert review.confidential_spans == [[year[0], year[1], "HEALTH"]]
    assert review.masked_mentions == 1 and review.layer_version == layer.version


def test_rendering_an_unchanged_layer_again_only_reads(layer, people):
    create_mention(
        layer, actor=people["ann"], start_offset=0, end_offset=3, entity_type="MISC", identifier_type="QUASI"
    )
    first = render_masked_review(layer)
    with CaptureQueriesContext(connection) as queries:
        again = render_masked_review(layer)
    assert again.pk == first.pk and len(queries) == 2  # the layer version, the stored review
    create_mention(layer, actor=people["ann"], start_offset=4, end_offset=13, entity_type="DEM")
    assert render_masked_review(layer).layer_version == first.layer_version + 1
    assert MaskedReview.objects.count() == 1


def test_the_task_renders_the_review(layer, people, eager_tasks):
    create_mention(
        layer, actor=people["ann"], start_offset=0, end_offset=3, entity_type="MISC", identifier_type="QUASI"
    )
    result = render_task.delay(layer.pk).get()
    assert result == {"layer": layer.pk, "layer_version": layer.version, "masked_mentions": 1}
    assert layer.version == 1
    assert MaskedReview.objects.get(layer=layer).masked_text.startswith("***")


def annotate(layer, actor, text: str, entity_type: str, decision: str, occurrence: int = 0):
    start, end = span(text, occurrence)
    return create_mention(
        layer, actor=actor, start_offset=start, end_offset=end, entity_type=entity_type, identifier_type=decision
    )


def test_the_corpus_label_style_renders_entity_types_and_a_style_change_rerenders(layer, people):
    name = annotate(layer, people["ann"], "Mr John Smith", "PERSON", "DIRECT")
    stars = render_masked_review(layer)
    assert stars.style == "stars" and "*************" in stars.masked_text
    corpus = layer.document.corpus
    corpus.mask_style = "labels"
    corpus.save()
    labels = render_masked_review(layer)
    assert labels.pk == stars.pk and labels.style == "labels"
    assert labels.masked_text == TEXT.replace("Mr John Smith", "[PERSON]", 1)
    assert labels.masked_spans == [[name.start_offset, name.start_offset + len("[PERSON]")]]


def test_a_change_after_confirmation_shows_in_the_review_when_it_is_next_opened(
    layer, people, eager_tasks, django_capture_on_commit_callbacks
):
    from annotation.services.layers import change_layer_status
    from frontend.workspace.confirm_views import current_masked_review

    ann = people["ann"]
    mention = annotate(layer, ann, "Mr John Smith", "PERSON", "DIRECT")
    annotate(layer, ann, "Mr Smith", "PERSON", "DIRECT")
    annotate(layer, ann, "John Smith", "PERSON", "DIRECT", occurrence=1)
    with django_capture_on_commit_callbacks(execute=True):
        change_layer_status(layer, "confirmed", actor=ann)
    review = MaskedReview.objects.get(layer=layer)
    assert review.layer_version == layer.version  # rendered on confirmation, without being asked
    # Under review the author may still change the layer (acting on a note).
    change_layer_status(layer, "under_review", actor=people["manager"])
    with django_capture_on_commit_callbacks(execute=True):
        year = annotate(layer, ann, "1961", "DATETIME", "QUASI")
    # Embedded, the correction's request did not render (a worker would have, at once:
    # tests/annotation/test_celery_worker.py); the masked page does when it is opened.
    review.refresh_from_db()
    assert review.layer_version < layer.version
    with django_capture_on_commit_callbacks(execute=True):
        current_masked_review(layer)  # (in a request its rendering runs before it returns)
    review.refresh_from_db()
    assert review.layer_version == layer.version
    assert review.masked_text[year.start_offset : year.end_offset] == "****" and "1961" not in review.masked_text
    assert review.masked_text[mention.start_offset : mention.end_offset] == "*" * len("Mr John Smith")
