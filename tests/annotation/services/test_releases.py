"""Sanitized releases: start refused by field, one set of decisions per document however
often a batch runs, a failing document does not stop the others, metrics on close."""

from datetime import timedelta

import pytest

from annotation.enums import LayerStatus
from annotation.models import AnnotationLayer, AuditEvent, Release, ReleaseDecision, ReleaseDocument
from annotation.services import job_steps, jobs
from annotation.services.errors import DomainError
from annotation.services.releases import (
    corpus_releases,
    finish_if_complete,
    nearest_rank,
    release_counts,
    run_batch,
    start_release,
)
from annotation.tasks import release_batches, submit_release
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

POLAT, CANPOLAT = "001-83927", "001-79436"
# The beginning of Polat's text with annotator10's (reviewed) spans as numbered
# placeholders, written by hand from the TAB file.
POLAT_PLACEHOLDERS_START = (
    "PROCEDURE\n\nThe case originated in an application (no. CODE_1) against the Republic of Turkey lodged with the "
    "Court under Article 34 of the Convention for the Protection of Human Rights and Fundamental Freedoms (“the "
    "Convention”) by a Turkish national, PERSON_1 (“the applicant”), on DATETIME_1.\n\nThe applicant was "
    "represented by PERSON_2, a lawyer practising in LOC_1."
)


@pytest.fixture
def documents(corpus, pick, import_documents):
    import_documents(corpus, pick(POLAT, CANPOLAT))
    return {d.doc_id: d for d in corpus.documents.all()}


@pytest.fixture
def manager(people):
    return people["manager"]


def ids(*documents) -> list[int]:
    return [d.pk for d in documents]


@pytest.mark.parametrize(
    "arguments, field, message",
    [
        ({"source": "reviewed", "strategy": "blur"}, "strategy", "Unknown strategy 'blur'"),
        ({"source": "everyone", "strategy": "label"}, "source", "Unknown source 'everyone'"),
        ({"source": "annotator", "strategy": "label"}, "annotator", "needs an annotator"),
        ({"source": "reviewed", "annotator": "annotator1", "strategy": "label"}, "annotator", "only with the source"),
        ({"source": "annotator", "annotator": "nobody", "strategy": "label"}, "annotator", "no annotator named"),
    ],
)
def test_start_refuses_bad_values_naming_the_field(corpus, documents, manager, arguments, field, message):
    with pytest.raises(DomainError, match=message) as refused:
        start_release(corpus, actor=manager, **arguments)
    assert refused.value.field == field
    assert not Release.objects.exists()


def test_start_refuses_a_corpus_with_nothing_to_release(corpus, documents, manager):
    AnnotationLayer.objects.filter(document__corpus=corpus).update(status=LayerStatus.IN_PROGRESS)
    with pytest.raises(DomainError, match="no document to release from source 'reviewed' \\(no finished layer\\)") as e:
        start_release(corpus, source="reviewed", strategy="label", actor=manager)
    assert e.value.field == "source"
    with pytest.raises(DomainError) as never:
        start_release(corpus, source="preannotation", strategy="label", actor=manager)
    assert never.value.field == "source" and "never pre-annotated" in never.value.message


def test_start_creates_one_pending_document_per_releasable_document(corpus, documents, manager):
    annotator10 = AnnotationLayer.objects.get(document=documents[POLAT], annotator__username="annotator10").annotator

    release = start_release(corpus, source="annotator", annotator=annotator10, strategy="placeholder", actor=manager)

    assert (release.status, release.total, release.annotator, release.created_by) == (
        "pending",
        1,
        annotator10,
        manager,
    )
    assert list(release.documents.values_list("document__doc_id", "status")) == [(POLAT, "pending")]
    assert release.metrics["skipped"] == [{"doc_id": CANPOLAT, "reason": "annotator10 has no finished layer"}]
    assert release.settings["strategy"] == "placeholder" and release.settings["annotator"] == "annotator10"
    event = AuditEvent.objects.get(action="release.start")
    assert event.changes["documents"] == 1 and event.changes["skipped"] == 1 and event.actor == manager


def test_a_batch_writes_text_spans_and_one_decision_per_entity(corpus, documents, manager):
    release = start_release(corpus, source="reviewed", strategy="placeholder", actor=manager)

    result = run_batch(release.pk, ids(documents[POLAT], documents[CANPOLAT]))

    assert result == {"release": release.pk, "done": 2, "failed": 0}
    polat = release.documents.get(document=documents[POLAT])
    assert polat.status == "done" and polat.sanitized_text.startswith(POLAT_PLACEHOLDERS_START)
    assert "Cengiz Polat" not in polat.sanitized_text
    # 21 spans (annotator10's DIRECT/QUASI mentions), offsets into the original.
    assert len(polat.spans) == 21
    assert polat.spans[0] == {
        "start": 54,
        "end": 62,
        "replacement": "CODE_1",
        "entity_type": "CODE",
        "identifier_type": "DIRECT",
        "reason": "replaced by a numbered placeholder",
    }
    decisions = list(polat.decisions.all())
    assert len(decisions) == 19
    court = next(d for d in decisions if d.entity_key == "001-83927_a10_e22")
    assert (court.original, court.replacement, court.path) == ("Court of Cassation", "ORG_3", "fixed")
    # Edirne F-type Prison and TKP/ML-TIKKO come first.
    assert court.mentions == [[2218, 2236], [3094, 3112]]
    assert polat.seconds > 0

    release.refresh_from_db()
    assert release.status == "succeeded" and release.finished_at
    assert release.metrics["documents"] == {"total": 2, "done": 2, "failed": 0}
    total_decisions = ReleaseDecision.objects.filter(release_document__release=release).count()
    assert release.metrics["paths"] == {"first": 0, "later": 0, "fallback": 0, "fixed": total_decisions, "attack": 0}
    assert set(release.metrics["seconds_per_document"]) == {"median", "p95"}
    # Every direct identifier of the finished layers (annotator1's of Polat included) is
    # among the released spans.
    assert release.metrics["ER_di"] == 1.0
    assert {"TPS", "TPS_worst", "ic", "embedder", "ER_qi", "skipped"} <= set(release.metrics)
    assert (
        release.settings["ic"] == release.metrics["ic"] and release.settings["embedder"] == release.metrics["embedder"]
    )
    document_tps = sorted(release.documents.values_list("tps", flat=True))
    assert all(0 < tps < 1 for tps in document_tps)
    assert release.metrics["TPS"] == round(sum(document_tps) / 2, 4)
    assert release.metrics["TPS_worst"] == round(document_tps[0], 4)
    assert AuditEvent.objects.filter(action="release.finish").count() == 1


def test_running_a_batch_twice_stores_one_set_of_decisions(corpus, documents, manager):
    release = start_release(corpus, source="reviewed", strategy="label", actor=manager)
    batch = ids(documents[POLAT], documents[CANPOLAT])
    run_batch(release.pk, batch)
    first = list(ReleaseDecision.objects.filter(release_document__release=release).values_list("pk", flat=True))
    texts = dict(release.documents.values_list("document_id", "sanitized_text"))

    again = run_batch(release.pk, batch)

    assert again == {"release": release.pk, "done": 0, "failed": 0}
    assert list(ReleaseDecision.objects.filter(release_document__release=release).values_list("pk", flat=True)) == first
    assert dict(release.documents.values_list("document_id", "sanitized_text")) == texts
    assert AuditEvent.objects.filter(action="release.finish").count() == 1


def test_a_failing_document_is_marked_and_the_batch_goes_on(corpus, documents, manager):
    release = start_release(corpus, source="reviewed", strategy="suppress", actor=manager)
    # Canpolat's only layer is reopened after the release started: it cannot be released.
    AnnotationLayer.objects.filter(document=documents[CANPOLAT]).update(status=LayerStatus.IN_PROGRESS)

    result = run_batch(release.pk, ids(documents[CANPOLAT], documents[POLAT]))

    assert result["done"] == 1 and result["failed"] == 1
    failed = release.documents.get(document=documents[CANPOLAT])
    assert failed.status == "failed" and f"Document {CANPOLAT} has no finished layer" in failed.error
    assert not failed.decisions.exists() and failed.sanitized_text == ""
    release.refresh_from_db()
    assert release.status == "succeeded"
    assert release.metrics["documents"] == {"total": 2, "done": 1, "failed": 1}
    assert release.done == release.total == 2  # both finished, one of them failed
    assert release_counts(release) == {"total": 2, "done": 1, "failed": 1, "pending": 0, "percent": 100}


def test_a_release_where_every_document_fails_is_failed(corpus, documents, manager):
    release = start_release(corpus, source="reviewed", strategy="suppress", actor=manager)
    AnnotationLayer.objects.filter(document__corpus=corpus).update(status=LayerStatus.WITHDRAWN)

    run_batch(release.pk, ids(documents[POLAT], documents[CANPOLAT]))

    release.refresh_from_db()
    assert release.status == "failed" and release.error == "No document could be sanitized."


def test_a_release_stays_open_while_a_document_is_pending(corpus, documents, manager):
    release = start_release(corpus, source="reviewed", strategy="stars", actor=manager)
    run_batch(release.pk, ids(documents[POLAT]))
    release.refresh_from_db()
    assert release.status == "running" and not release.finished_at and release.done == 1
    assert release_counts(release) == {"total": 2, "done": 1, "failed": 0, "pending": 1, "percent": 50}
    finish_if_complete(release)
    release.refresh_from_db()
    assert release.status == "running"


def test_a_duplicate_batch_leaves_a_document_another_live_worker_holds_until_that_worker_stalls(
    corpus, documents, manager
):
    release = start_release(corpus, source="reviewed", strategy="label", actor=manager)
    both = ids(documents[POLAT], documents[CANPOLAT])
    job_steps.start_batch(release)
    assert job_steps.take_steps(ReleaseDocument, "release", release, ids(documents[POLAT])) == ids(documents[POLAT])

    assert run_batch(release.pk, both) == {"release": release.pk, "done": 1, "failed": 0}
    held = release.documents.get(document=documents[POLAT])
    assert held.status == "pending" and held.sanitized_text == "" and not held.decisions.exists()
    release.refresh_from_db()
    assert (release.status, release.done) == ("running", 1)

    # The other worker went silent: the batch sent again takes its document up.
    ReleaseDocument.objects.filter(pk=held.pk).update(heartbeat_at=jobs.stall_cutoff() - timedelta(seconds=1))
    assert run_batch(release.pk, both) == {"release": release.pk, "done": 1, "failed": 0}
    release.refresh_from_db()
    assert (release.status, release.done) == ("succeeded", 2)
    assert release.documents.get(pk=held.pk).attempts == 2


def test_stars_keep_every_offset_of_the_original(corpus, documents, manager):
    release = start_release(corpus, source="reviewed", strategy="stars", actor=manager)
    run_batch(release.pk, ids(documents[POLAT], documents[CANPOLAT]))
    polat = release.documents.get(document=documents[POLAT])
    original = documents[POLAT].text
    assert len(polat.sanitized_text) == len(original)
    assert polat.sanitized_text[54:62] == "********" and polat.sanitized_text[:54] == original[:54]


def test_submit_release_sends_batches_of_the_configured_size(
    corpus, documents, manager, settings, eager_tasks, django_capture_on_commit_callbacks
):
    settings.SANITIZE_RELEASE = {**settings.SANITIZE_RELEASE, "batch": 1}
    with django_capture_on_commit_callbacks(execute=True):
        release = submit_release(corpus, source="reviewed", strategy="label", actor=manager)
    assert release_batches(release) == []
    release.refresh_from_db()
    assert release.status == "succeeded"
    assert set(release.documents.values_list("status", flat=True)) == {ReleaseDocument.Status.DONE}


def test_release_batches_follow_the_corpus_order(corpus, documents, manager, settings):
    settings.SANITIZE_RELEASE = {**settings.SANITIZE_RELEASE, "batch": 1}
    release = start_release(corpus, source="reviewed", strategy="label", actor=manager)
    # Polat was imported first.
    assert release_batches(release) == [[documents[POLAT].pk], [documents[CANPOLAT].pk]]


def test_corpus_releases_lists_the_newest_first_with_metrics(corpus, documents, manager):
    older = start_release(corpus, source="reviewed", strategy="suppress", actor=manager)
    run_batch(older.pk, ids(documents[POLAT], documents[CANPOLAT]))
    newer = start_release(corpus, source="reviewed", strategy="label", actor=manager)

    rows = corpus_releases(corpus)

    assert [row["id"] for row in rows] == [newer.pk, older.pk]
    decisions = ReleaseDecision.objects.filter(release_document__release=older).count()
    assert rows[1]["status"] == "succeeded" and rows[1]["ER_di"] == 1.0 and rows[1]["paths"]["fixed"] == decisions
    assert rows[0]["status"] == "pending" and rows[0]["TPS"] is None and rows[0]["created_by"] == manager.username


def test_nearest_rank_percentile():
    # Nearest rank: the ceil(0.95 * 20) = 19th of 1..20; the 1st and 3rd of three for 0 and 95 %.
    assert nearest_rank([float(i) for i in range(20, 0, -1)], 95) == 19.0
    assert nearest_rank([3.0, 1.0, 2.0], 95) == 3.0
    assert nearest_rank([3.0, 1.0, 2.0], 0) == 1.0


def test_settings_record_the_source_rule_and_no_annotator_for_reviewed(corpus, documents, manager):
    make_user("someone")
    release = start_release(corpus, source="reviewed", strategy="suppress", actor=manager)
    assert release.settings["source"] == "reviewed" and "reviewed" in release.settings["source_rule"]
    assert release.annotator is None


@pytest.fixture
def worker():
    from celery.contrib.testing.worker import start_worker

    from sanitize_app.celery import app as celery_app

    assert not celery_app.conf.task_always_eager, "set CELERY_BROKER_URL to a Redis server to run this test"
    assert celery_app.conf.broker_url.startswith("redis://")
    celery_app.control.purge()  # leftovers of earlier runs must not reach this worker
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30, queues=["default"]) as w:
        yield w


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_release_is_sanitized_by_a_real_worker_and_a_redelivered_batch_changes_nothing(
    worker, corpus, people, pick, import_documents, settings
):
    import time

    from annotation.tasks import sanitize_release_documents

    settings.SANITIZE_RELEASE = {**settings.SANITIZE_RELEASE, "batch": 1}  # two documents, two tasks
    import_documents(corpus, pick(POLAT, CANPOLAT))
    release = submit_release(corpus, source="reviewed", strategy="placeholder", actor=people["manager"])
    deadline = time.monotonic() + 120
    while not release.finished and time.monotonic() < deadline:
        time.sleep(0.2)
        release.refresh_from_db()
    assert release.status == "succeeded", release.error
    assert release_counts(release) == {"total": 2, "done": 2, "failed": 0, "pending": 0, "percent": 100}
    polat = release.documents.get(document__doc_id=POLAT)
    assert polat.sanitized_text.startswith(POLAT_PLACEHOLDERS_START)
    decisions = ReleaseDecision.objects.filter(release_document__release=release).count()
    assert decisions == release.metrics["paths"]["fixed"] > 0

    again = sanitize_release_documents.delay(release.pk, [polat.document_id]).get(timeout=60)

    assert again == {"release": release.pk, "done": 0, "failed": 0}
    assert ReleaseDecision.objects.filter(release_document__release=release).count() == decisions


def test_an_engine_that_cannot_be_built_refuses_the_start_or_fails_the_documents(corpus, documents, manager, settings):
    from annotation.services.release_engine import forget_release_engines

    release = start_release(corpus, source="reviewed", strategy="intact", actor=manager)
    # The LLM configured after the start, with a timeout the client refuses.
    settings.SANITIZE_RELEASE = {
        **settings.SANITIZE_RELEASE,
        "llm_base_url": "http://127.0.0.1:9/v1",
        "llm_model": "m",
        "llm_timeout_s": 0,
    }
    forget_release_engines()
    try:
        result = run_batch(release.pk, ids(documents[POLAT], documents[CANPOLAT]))
        with pytest.raises(DomainError, match="The intact release engine cannot be built here: ValueError") as refused:
            start_release(corpus, source="reviewed", strategy="intact", actor=manager)
    finally:
        forget_release_engines()

    assert result == {"release": release.pk, "done": 0, "failed": 2}
    errors = set(release.documents.values_list("error", flat=True))
    assert errors == {"The release engine could not be built: ValueError: LLMConfig.timeout_s must be positive, got 0"}
    release.refresh_from_db()
    assert release.status == "failed"
    assert refused.value.field == "strategy" and Release.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_embedded_release_runs_its_batches_in_a_background_thread(
    corpus, documents, manager, settings, eager_tasks, django_capture_on_commit_callbacks
):
    import threading

    settings.SANITIZE_RELEASE = {**settings.SANITIZE_RELEASE, "in_thread": True, "batch": 1}
    with django_capture_on_commit_callbacks(execute=True):
        release = submit_release(corpus, source="reviewed", strategy="placeholder", actor=manager)
    worker = next(t for t in threading.enumerate() if t.name == f"release-{release.pk}")
    worker.join(timeout=120)
    assert not worker.is_alive()
    release.refresh_from_db()
    assert release.status == "succeeded"
    assert release.documents.filter(status=ReleaseDocument.Status.DONE).count() == 2
