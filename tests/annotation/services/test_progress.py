"""The progress dashboard's numbers, on a small corpus built by hand through the real
services, with every audit event's time set explicitly. Expected values are worked out
by hand in the comments of ``build_progress_corpus``."""

import csv
import io
from datetime import datetime, timedelta

import pytest

from annotation.enums import EditType, EntityType, IdentifierType, LayerStatus, Origin, Role
from annotation.models import AnnotationLayer, AuditEvent, CorpusMembership, Document, Entity, Mention
from annotation.services.layers import add_reviewer, assign_layer, change_layer_status
from annotation.services.mentions import create_mention, delete_mention, update_mention
from annotation.services.progress import active_seconds, corpus_progress, progress_csv
from annotation.services.undo import undo_last_change
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

TEXT = "Anna Berg lives in Oslo since 2001. Anna Berg works for Acme."
DAY = datetime.fromisoformat("2024-03-01T00:00:00+00:00")


def span(text: str, occurrence: int = 0) -> tuple[int, int]:
    start = -1
    for _ in range(occurrence + 1):
        start = TEXT.index(text, start + 1)
    return start, start + len(text)


def stamp(clock: str) -> None:
    """Give the audit event just written the time ``clock`` (HH:MM:SS) on DAY."""
    last = AuditEvent.objects.order_by("-id").values_list("id", flat=True).first()
    AuditEvent.objects.filter(pk=last).update(at=DAY + (datetime.strptime(clock, "%H:%M:%S") - datetime(1900, 1, 1)))


def preannotate(layer: AnnotationLayer, text: str, entity_type: str, identifier: str, edit_type=EditType.CHECK):
    """A mention as the engine (or an import) leaves it: a span of its own entity."""
    start, end = span(text)
    serial = layer.mentions.count() + 1
    entity = Entity.objects.create(layer=layer, tab_entity_id=f"pre_{layer.pk}_e{serial}")
    return Mention.objects.create(
        layer=layer,
        entity=entity,
        tab_mention_id=f"pre_{layer.pk}_em{serial}",
        start_offset=start,
        end_offset=end,
        span_text=text,
        entity_type=entity_type,
        identifier_type=identifier,
        edit_type=edit_type,
        origin=Origin.PREANNOTATION,
        original_start=start,
        original_end=end,
        original_entity_type=entity_type,
    )


def create(layer, actor, text: str, occurrence: int = 0, entity_type=EntityType.PERSON, identifier=None):
    start, end = span(text, occurrence)
    return create_mention(
        layer, actor=actor, start_offset=start, end_offset=end, entity_type=entity_type, identifier_type=identifier
    )


def build_progress_corpus(corpus, people) -> dict:
    """Three documents, two working annotators and one (cleo) with nothing assigned.

    ann, layer on d1, pre-annotated Anna Berg (PERSON), Oslo (ORG), 2001, Acme:
      10:00:00 Oslo ORG -> LOC (corrected)    10:01:00 deletes Acme (removed)
      10:02:00 adds the 2nd Anna Berg (inserted, joins the entity)
      10:02:30 deletes 2001, 10:02:50 undoes that (2001 is back, kept; not removed)
      10:25:00 confirms (22 min pause: a new session)
      -> kept 2 (Anna Berg, 2001), corrected 1, inserted 1, removed 1; 4 mentions,
         3 entities (Anna Berg x2, Oslo, 2001)
      -> time 30 + 60 + 60 + 30 + 20 (session 1) + 30 (session 2) = 230 s
    ann, layer on d2 (stays in progress, so none of its edits count, except its time):
      12:00:00 deletes pre-annotated Acme, 12:00:40 adds Oslo -> time 30 + 40 = 70 s
    bob, layer on d1, no pre-annotation:
      11:00:00 adds Anna Berg, 11:05:00 adds the 2nd (gap 300 s = the cutoff: counts),
      11:10:01 confirms (gap 301 s: a new session); 11:30 the manager moves it under
      review (the manager's events are not bob's time)
      -> inserted 2, 1 entity; time 30 + 300 + 30 = 360 s
    bob, imported reviewed layer on d2 (no time, no record of deletions, even once rita
      is paired on it): Anna Berg without edit type (unknown), Oslo check -> kept 1,
      unknown 1, 2 entities
    bob, layer on d3: assigned, untouched.
    """
    manager, ann, bob = people["manager"], people["ann"], people["bob"]
    cleo = make_user("cleo_annotator")
    CorpusMembership.objects.create(corpus=corpus, user=cleo, role=Role.ANNOTATOR)
    d1, d2, d3 = (
        Document.objects.create(corpus=corpus, doc_id=f"d{n}", text=TEXT, person_to_protect="Anna Berg", position=n)
        for n in (1, 2, 3)
    )
    ann1 = assign_layer(d1, ann, actor=manager)
    stamp("09:00:00")
    for text, kind, identifier in (
        ("Anna Berg", EntityType.PERSON, IdentifierType.DIRECT),
        ("Oslo", EntityType.ORG, IdentifierType.QUASI),
        ("2001", EntityType.DATETIME, IdentifierType.QUASI),
        ("Acme", EntityType.ORG, IdentifierType.NO_MASK),
    ):
        preannotate(ann1, text, kind, identifier)
    update_mention(ann1.mentions.get(span_text="Oslo"), actor=ann, entity_type=EntityType.LOC)
    stamp("10:00:00")
    delete_mention(ann1.mentions.get(span_text="Acme"), actor=ann)
    stamp("10:01:00")
    create(ann1, ann, "Anna Berg", occurrence=1)
    stamp("10:02:00")
    delete_mention(ann1.mentions.get(span_text="2001"), actor=ann)
    stamp("10:02:30")
    undo_last_change(ann1, actor=ann)
    stamp("10:02:50")
    change_layer_status(ann1, LayerStatus.CONFIRMED, actor=ann)
    stamp("10:25:00")

    ann2 = assign_layer(d2, ann, actor=manager)
    stamp("09:00:00")
    preannotate(ann2, "Acme", EntityType.ORG, IdentifierType.NO_MASK)
    delete_mention(ann2.mentions.get(), actor=ann)
    stamp("12:00:00")
    create(ann2, ann, "Oslo", entity_type=EntityType.LOC)
    stamp("12:00:40")

    bob1 = assign_layer(d1, bob, actor=manager)
    stamp("09:00:00")
    create(bob1, bob, "Anna Berg", identifier=IdentifierType.DIRECT)
    stamp("11:00:00")
    create(bob1, bob, "Anna Berg", occurrence=1)
    stamp("11:05:00")
    change_layer_status(bob1, LayerStatus.CONFIRMED, actor=bob)
    stamp("11:10:01")
    change_layer_status(bob1, LayerStatus.UNDER_REVIEW, actor=manager)
    stamp("11:30:00")

    bob2 = AnnotationLayer.objects.create(document=d2, annotator=bob, status=LayerStatus.REVIEWED)
    preannotate(bob2, "Anna Berg", EntityType.PERSON, IdentifierType.DIRECT, edit_type=None)
    preannotate(bob2, "Oslo", EntityType.LOC, IdentifierType.QUASI)
    add_reviewer(bob2, people["rita"], actor=manager)
    assign_layer(d3, bob, actor=manager)
    return {"ann1": ann1, "ann2": ann2, "bob1": bob1, "bob2": bob2}


@pytest.fixture
def report(corpus, people):
    build_progress_corpus(corpus, people)
    return corpus_progress(corpus)


def rows_by_name(report) -> dict:
    return {row.annotator: row for row in report.rows}


def test_the_setup_went_as_described(corpus, people):
    layers = build_progress_corpus(corpus, people)
    statuses = {name: AnnotationLayer.objects.get(pk=layer.pk).status for name, layer in layers.items()}
    assert statuses == {"ann1": "confirmed", "ann2": "in_progress", "bob1": "under_review", "bob2": "reviewed"}
    assert sorted(layers["ann1"].mentions.values_list("span_text", "edit_type")) == [
        ("2001", "check"),
        ("Anna Berg", "check"),
        ("Anna Berg", "insert"),
        ("Oslo", "correct"),
    ]


def test_layer_statuses_per_annotator_and_in_total(report):
    rows = rows_by_name(report)
    assert list(rows) == ["ann_annotator", "bob_annotator", "cleo_annotator"]
    assert rows["ann_annotator"].statuses == {
        "assigned": 0,
        "in_progress": 1,
        "confirmed": 1,
        "under_review": 0,
        "reviewed": 0,
        "withdrawn": 0,
    }
    assert rows["bob_annotator"].statuses == {
        "assigned": 1,
        "in_progress": 0,
        "confirmed": 0,
        "under_review": 1,
        "reviewed": 1,
        "withdrawn": 0,
    }
    # Cleo is on the team with nothing assigned: a row of zeros, not a missing row.
    assert rows["cleo_annotator"].documents == 0
    assert report.total.statuses == {
        "assigned": 1,
        "in_progress": 1,
        "confirmed": 1,
        "under_review": 1,
        "reviewed": 1,
        "withdrawn": 0,
    }
    assert (report.total.documents, report.total.finished) == (5, 3)


def test_edit_types_count_finished_layers_and_removed_pre_annotations(report):
    ann, bob, total = rows_by_name(report)["ann_annotator"], rows_by_name(report)["bob_annotator"], report.total
    # ann's open layer on d2 (a removed Acme, an inserted Oslo) does not count; nor does
    # the deletion of 2001 she undid.
    assert (ann.mentions, ann.kept, ann.corrected, ann.inserted, ann.unknown, ann.removed) == (4, 2, 1, 1, 0, 1)
    assert (bob.mentions, bob.kept, bob.corrected, bob.inserted, bob.unknown, bob.removed) == (4, 1, 0, 2, 1, 0)
    assert (total.mentions, total.kept, total.corrected, total.inserted, total.unknown, total.removed) == (
        8,
        3,
        1,
        3,
        1,
        1,
    )
    # ann: 4 mentions with an edit type -> kept 2/4, corrected 1/4, inserted 1/4;
    # removed 1 of the 4 pre-annotated spans she handled (2 kept + 1 corrected + 1 removed).
    assert [ann.share(kind) for kind in ("kept", "corrected", "inserted", "removed")] == [0.5, 0.25, 0.25, 0.25]
    # bob: the unknown mention is left out -> 3 known: kept 1/3, inserted 2/3. His kept
    # Oslo is on the imported layer, which has no record of deletions: no removed share.
    assert bob.share("kept") == pytest.approx(1 / 3) and bob.share("inserted") == pytest.approx(2 / 3)
    assert (bob.share("corrected"), bob.tracked, bob.share("removed")) == (0, 0, None)
    # total: 7 known -> 3/7, 1/7, 3/7; removed: only ann's 4 handled spans -> 1/4.
    assert total.share("kept") == pytest.approx(3 / 7) and total.share("corrected") == pytest.approx(1 / 7)
    assert (total.tracked, total.share("removed")) == (3, 0.25)
    assert rows_by_name(report)["cleo_annotator"].share("kept") is None


def test_entities_per_finished_document(report):
    ann, bob, cleo = (rows_by_name(report)[name] for name in ("ann_annotator", "bob_annotator", "cleo_annotator"))
    # ann: 3 entities, 4 mentions on 1 finished layer; bob: 1 + 2 entities and 2 + 2
    # mentions on 2 finished layers; in total 6 entities and 8 mentions on 3.
    assert (ann.entities, ann.per_finished(ann.entities), ann.per_finished(ann.mentions)) == (3, 3.0, 4.0)
    assert (bob.entities, bob.per_finished(bob.entities), bob.per_finished(bob.mentions)) == (3, 1.5, 2.0)
    assert report.total.per_finished(report.total.entities) == 2.0
    assert report.total.per_finished(report.total.mentions) == pytest.approx(8 / 3)
    assert cleo.per_finished(cleo.entities) is None


def test_active_time_from_the_annotators_own_events(report):
    ann, bob = rows_by_name(report)["ann_annotator"], rows_by_name(report)["bob_annotator"]
    # ann: 230 s on d1 (finished) + 70 s on d2 (open).
    assert (ann.active_seconds, ann.finished_seconds, ann.seconds_per_finished) == (300, 230, 230)
    # bob: 360 s on d1; his imported reviewed layer has no time and is not averaged in.
    assert (bob.active_seconds, bob.timed_finished, bob.seconds_per_finished) == (360, 1, 360)
    assert report.total.active_seconds == 660
    assert report.total.seconds_per_finished == (230 + 360) / 2
    assert rows_by_name(report)["cleo_annotator"].seconds_per_finished is None


def test_active_seconds_rule():
    at = [DAY + timedelta(seconds=s) for s in (0, 10, 310, 611, 612)]
    # 30 (start) + 10 + 300 (= the cutoff, counted) + 30 (301 s pause: new session) + 1.
    assert active_seconds(at) == 371
    assert active_seconds(at[:1]) == 30
    assert active_seconds([]) == 0


def test_a_constant_number_of_queries(corpus, people, django_assert_num_queries):
    build_progress_corpus(corpus, people)
    with django_assert_num_queries(6):
        corpus_progress(corpus)


def test_annotators_in_natural_order(corpus):
    for name in ("annotator10", "Annotator2", "annotator1"):
        CorpusMembership.objects.create(corpus=corpus, user=make_user(name), role=Role.ANNOTATOR)
    CorpusMembership.objects.create(corpus=corpus, user=make_user("reviewer3"), role=Role.REVIEWER)
    assert [row.annotator for row in corpus_progress(corpus).rows] == ["annotator1", "Annotator2", "annotator10"]


def test_an_empty_corpus(corpus):
    report = corpus_progress(corpus)
    assert report.rows == [] and report.total.documents == 0 and report.total.share("kept") is None


def test_csv_tables(report):
    def table(name: str) -> dict:
        return {row["annotator"]: row for row in csv.DictReader(io.StringIO(progress_csv(report, name)))}

    status = table("status")
    assert status["bob_annotator"] == {
        "annotator": "bob_annotator",
        "documents": "3",
        "assigned": "1",
        "in_progress": "0",
        "confirmed": "0",
        "under_review": "1",
        "reviewed": "1",
        "withdrawn": "0",
    }
    assert status["All annotators"]["documents"] == "5"
    edits = table("edits")["ann_annotator"]
    assert (edits["kept"], edits["corrected_share"], edits["removed"], edits["removed_share"]) == (
        "2",
        "0.2500",
        "1",
        "0.2500",
    )
    work = table("work")
    assert (work["bob_annotator"]["entities_per_document"], work["bob_annotator"]["active_seconds"]) == (
        "1.5000",
        "360",
    )
    assert work["cleo_annotator"]["seconds_per_finished_document"] == ""
    assert work["All annotators"]["seconds_per_finished_document"] == "295"
    with pytest.raises(ValueError):
        progress_csv(report, "nope")
