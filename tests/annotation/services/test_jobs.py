"""The one job mechanism (services.jobs): a job is claimed by one worker at a time,
fenced by its attempts so that a worker declared lost writes nothing; the heartbeat
thread keeps a long job fresh; the sweeper sends a stalled job (or only the stalled
steps of a batched one) again, fails what was lost too often, settles the batched job,
runs once at a time, and fails instead of sending again when embedded."""

import time
from datetime import timedelta

import pytest
from django.core.cache import cache

from annotation.models import Document, PreannotationRun, ReportJob, RunDocument
from annotation.services import jobs, preannotation

pytestmark = pytest.mark.django_db

RUNNING, PENDING = ReportJob.Status.RUNNING, ReportJob.Status.PENDING
SUCCEEDED, FAILED = ReportJob.Status.SUCCEEDED, ReportJob.Status.FAILED


@pytest.fixture
def sent(monkeypatch) -> list:
    """The sweeper sees only this test's kinds (the real registrations come back after
    it): a report job and a pre-annotation run, whose resend records what was sent."""
    calls: list = []
    monkeypatch.setattr(jobs, "KINDS", {})
    jobs.register(jobs.JobKind("report", ReportJob, lambda job: calls.append(job.pk)))
    jobs.register(
        jobs.JobKind(
            "preannotation",
            PreannotationRun,
            lambda run, ids: calls.append((run.pk, sorted(ids))),
            step_model=RunDocument,
            steps="run",
            settle=preannotation.finish_if_complete,
        )
    )
    return calls


@pytest.fixture
def with_broker():
    """As with a broker (tasks sent to workers), whatever this run's configuration: a
    stalled job is sent again rather than failed at once."""
    from sanitize_app.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = previous


def report_job(corpus, **fields) -> ReportJob:
    return ReportJob.objects.create(corpus=corpus, kind=ReportJob.Kind.EVALUATION, data_key="key", **fields)


def stale():
    """A heartbeat older than stall_s."""
    return jobs.stall_cutoff() - timedelta(seconds=1)


def stall(job) -> None:
    """Its worker went silent: the heartbeat is older than stall_s."""
    type(job).objects.filter(pk=job.pk).update(heartbeat_at=stale())


def fresh(job):
    return type(job).objects.get(pk=job.pk)


def test_claim_refuses_a_job_a_live_heartbeat_holds_and_takes_a_stale_one_bumping_attempts(corpus):
    job = report_job(corpus)
    first = jobs.claim(ReportJob, job.pk)
    assert (first.status, first.attempts) == (RUNNING, 1) and first.started_at and first.heartbeat_at
    assert jobs.claim(ReportJob, job.pk) is None  # its worker is alive
    stall(job)
    second = jobs.claim(ReportJob, job.pk)
    assert (second.status, second.attempts) == (RUNNING, 2) and "taken up again (attempt 2)" in second.log
    assert second.started_at == first.started_at
    assert jobs.finish(second, SUCCEEDED)
    stall(job)
    assert jobs.claim(ReportJob, job.pk) is None  # finished: never taken up again


def test_finish_by_a_stale_attempt_writes_nothing_so_a_lost_worker_cannot_flip_the_job(corpus):
    job = report_job(corpus)
    lost = jobs.claim(ReportJob, job.pk)
    stall(job)
    taker = jobs.claim(ReportJob, job.pk)
    assert not jobs.finish(lost, SUCCEEDED, result={"from": "the lost worker"})
    row = fresh(job)
    assert (row.status, row.attempts, row.result, row.finished_at) == (RUNNING, 2, {}, None)
    assert jobs.finish(taker, FAILED, error="the input is broken")
    assert not jobs.finish(lost, SUCCEEDED, result={"from": "the lost worker"})
    row = fresh(job)
    assert (row.status, row.error, row.result) == (FAILED, "the input is broken", {})
    assert lost.status == RUNNING  # nothing was written, nothing pretends it was


def test_report_writes_progress_only_while_the_job_is_this_attempts(corpus):
    job = report_job(corpus)
    mine = jobs.claim(ReportJob, job.pk)
    assert jobs.report(mine, stage="reading", done=3, total=10, log="started")
    row = fresh(job)
    assert (row.stage, row.done, row.total) == ("reading", 3, 10) and row.log.endswith(" started\n")
    stall(job)
    jobs.claim(ReportJob, job.pk)
    assert not jobs.report(mine, stage="writing", done=9)
    row = fresh(job)
    assert (row.stage, row.done) == ("reading", 3)


@pytest.mark.django_db(transaction=True)
def test_the_heartbeat_keeps_a_long_job_fresh_past_stall_s_and_writes_its_progress(corpus, settings, sent, eager_tasks):
    """A job working longer than stall_s is not taken for lost while its heartbeat
    thread runs; once it stops (the worker died), the sweeper finds it (embedded here:
    it fails it)."""
    settings.SANITIZE_JOBS = {**settings.SANITIZE_JOBS, "heartbeat_s": 0.1, "stall_s": 1}
    job = jobs.claim(ReportJob, report_job(corpus).pk)
    with jobs.Heartbeat(job) as heartbeat:
        heartbeat.report(stage="computing", done=2, total=4)
        time.sleep(1.5)
        row = fresh(job)
        assert row.heartbeat_at >= jobs.stall_cutoff() and (row.stage, row.done, row.total) == ("computing", 2, 4)
        assert jobs.sweep_stalled() == [] and jobs.claim(ReportJob, job.pk) is None
    time.sleep(1.2)
    assert jobs.sweep_stalled() == [f"report {job.pk}: failed, its worker was lost"]


def test_the_sweeper_sends_a_stalled_job_again_and_fails_it_after_max_attempts(
    corpus, settings, sent, with_broker, django_capture_on_commit_callbacks
):
    job = report_job(corpus, task_id="task-7")
    for attempt in (1, 2):
        jobs.claim(ReportJob, job.pk)
        stall(job)
        with django_capture_on_commit_callbacks(execute=True):
            assert jobs.sweep_stalled() == [f"report {job.pk}: sent again"]
        row = fresh(job)
        assert (row.status, row.attempts) == (PENDING, attempt) and "its worker was lost" in row.log
    assert sent == [job.pk, job.pk]
    third = jobs.claim(ReportJob, job.pk)
    assert third.attempts == settings.SANITIZE_JOBS["max_attempts"] == 3
    stall(job)
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs.sweep_stalled() == [f"report {job.pk}: failed, its worker was lost"]
    row = fresh(job)
    assert row.status == FAILED and row.finished_at
    assert "Its worker was lost 3 times" in row.error and "task task-7" in row.error
    assert sent == [job.pk, job.pk]
    assert not jobs.finish(third, SUCCEEDED)  # the lost worker wakes up: the job stays failed
    assert fresh(job).status == FAILED


def preannotation_run(corpus, count: int) -> tuple[PreannotationRun, list[int]]:
    """A running run whose ``count`` documents one worker took up (attempt 1 each)."""
    documents = [
        Document.objects.create(corpus=corpus, doc_id=f"d{i}", text=f"Text {i}.", position=i) for i in range(count)
    ]
    run = PreannotationRun.objects.create(corpus=corpus, total=count)
    RunDocument.objects.bulk_create(RunDocument(run=run, document=document) for document in documents)
    jobs.start_batch(run)
    ids = [document.pk for document in documents]
    assert sorted(jobs.take_steps(RunDocument, "run", run, ids)) == ids
    return run, ids


def steps(run, *ids):
    return RunDocument.objects.filter(run=run, document_id__in=ids)


def test_the_sweeper_sends_only_the_stalled_steps_again_and_fails_those_past_max_attempts(corpus, sent, with_broker):
    run, (done, held, lost_once, lost_thrice) = preannotation_run(corpus, 4)
    steps(run, done).update(status=RunDocument.Status.DONE)
    steps(run, lost_once).update(heartbeat_at=stale())
    steps(run, lost_thrice).update(heartbeat_at=stale(), attempts=3)

    assert jobs.sweep_stalled() == [f"preannotation {run.pk}: 1 documents sent again, 1 failed"]

    assert sent == [(run.pk, [lost_once])]
    by_document = {step.document_id: step for step in RunDocument.objects.filter(run=run)}
    assert (by_document[lost_once].status, by_document[lost_once].heartbeat_at) == ("pending", None)
    assert by_document[lost_thrice].status == "failed" and "lost 3 times" in by_document[lost_thrice].error
    assert by_document[held].status == "pending" and by_document[held].heartbeat_at >= jobs.stall_cutoff()
    assert fresh(run).status == RUNNING  # two documents are still to do
    # The batch sent again takes the lost document only: not the one a live worker holds.
    assert jobs.take_steps(RunDocument, "run", run, [done, held, lost_once, lost_thrice]) == [lost_once]

    # The live worker finishes; the other is lost for the third time: the run is settled.
    steps(run, held).update(status=RunDocument.Status.DONE)
    steps(run, lost_once).update(heartbeat_at=stale(), attempts=3)
    assert jobs.sweep_stalled() == [f"preannotation {run.pk}: 0 documents sent again, 1 failed"]
    row = fresh(run)
    assert (row.status, row.done, row.total) == (SUCCEEDED, 4, 4) and row.finished_at
    assert sent == [(run.pk, [lost_once])]


def test_a_batch_lost_before_it_started_is_sent_again_once_its_whole_run_is_silent(corpus, sent, with_broker):
    """A document no worker took up (its batch received by a worker killed before it
    began) is sent again once no batch of its run has been alive for stall_s; not while
    one is, and not again before another stall_s has passed."""
    run, (done, untaken) = preannotation_run(corpus, 2)
    steps(run, done).update(status=RunDocument.Status.DONE)
    steps(run, untaken).update(heartbeat_at=None, attempts=0)
    assert jobs.sweep_stalled() == []  # the run's batch is alive: its other batch may just be queued
    stall(run)
    assert jobs.sweep_stalled() == [f"preannotation {run.pk}: 1 documents sent again, 0 failed"]
    assert sent == [(run.pk, [untaken])]
    assert jobs.sweep_stalled() == []  # sent: it has stall_s to be taken up
    # A run none of whose batches ever started, created longer than stall_s ago.
    never = PreannotationRun.objects.create(corpus=corpus, total=1)
    RunDocument.objects.create(run=never, document_id=untaken)
    PreannotationRun.objects.filter(pk=never.pk).update(created_at=stale())
    assert jobs.sweep_stalled() == [f"preannotation {never.pk}: 1 documents sent again, 0 failed"]
    assert sent[-1] == (never.pk, [untaken])


def test_a_sweep_while_another_runs_is_a_no_op(corpus, sent, with_broker):
    """Another host's beat holds the lock: nothing is swept. A sweep that starts while
    this one works (here: from its resend of one run, while the other run is still
    stalled) does nothing either; the lock goes when the sweep ends."""
    job = jobs.claim(ReportJob, report_job(corpus).pk)
    stall(job)
    assert cache.add(jobs.SWEEP_LOCK, "another host", timeout=60)
    assert jobs.sweep_stalled() == [] and fresh(job).status == RUNNING
    cache.delete(jobs.SWEEP_LOCK)
    assert jobs.finish(job, SUCCEEDED)

    nested: list = []
    jobs.register(
        jobs.JobKind(
            "preannotation",
            PreannotationRun,
            lambda run, ids: nested.append(jobs.sweep_stalled()),
            step_model=RunDocument,
            steps="run",
        )
    )
    runs = []
    for first in (0, 1):
        run = PreannotationRun.objects.create(corpus=corpus, total=1, status=RUNNING)
        document = Document.objects.create(corpus=corpus, doc_id=f"d{first}", text="Text.", position=first)
        RunDocument.objects.create(run=run, document=document, attempts=1, heartbeat_at=stale())
        runs.append(run)
    assert sorted(jobs.sweep_stalled()) == [f"preannotation {run.pk}: 1 documents sent again, 0 failed" for run in runs]
    assert nested == [[], []]
    assert cache.get(jobs.SWEEP_LOCK) is None


def test_embedded_the_sweeper_fails_stalled_jobs_and_steps_instead_of_sending_them_again(corpus, sent, eager_tasks):
    job = jobs.claim(ReportJob, report_job(corpus).pk)
    stall(job)
    run, (done, lost) = preannotation_run(corpus, 2)
    steps(run, done).update(status=RunDocument.Status.DONE)
    steps(run, lost).update(heartbeat_at=stale())

    assert jobs.sweep_stalled() == [
        f"report {job.pk}: failed, its worker was lost",
        f"preannotation {run.pk}: 0 documents sent again, 1 failed",
    ]

    assert sent == []
    row = fresh(job)
    assert row.status == FAILED and row.error.startswith("The process running it stopped")
    assert steps(run, lost).get().error == "The process running it stopped before this document was done."
    assert (fresh(run).status, fresh(run).done) == (SUCCEEDED, 2)
