"""The sweeper (services.job_sweeper): a running job whose worker went silent is sent
again, then failed once lost too often; a pending job nobody took up is sent again
with waits that double; only the stalled steps of a batched job are sent again (those
nobody took up with a doubling back-off), those lost too often are failed and the job
settled; a batched job whose last worker died before ending it is settled; one sweep at
a time; embedded, what is stalled is failed instead."""

from datetime import timedelta

import pytest
from django.core.cache import cache

from annotation.models import PreannotationRun, ReportJob, RunDocument
from annotation.services import job_steps, job_sweeper, jobs
from tests.support.job_rows import ago, fresh, report_job, run_of, stall

pytestmark = pytest.mark.django_db

RUNNING, PENDING = ReportJob.Status.RUNNING, ReportJob.Status.PENDING
SUCCEEDED, FAILED = ReportJob.Status.SUCCEEDED, ReportJob.Status.FAILED
STALL = timedelta(seconds=60)  # SANITIZE_JOBS["stall_s"] in the test settings


@pytest.fixture(autouse=True)
def stall_s(settings):
    settings.SANITIZE_JOBS = {**settings.SANITIZE_JOBS, "stall_s": 60, "max_attempts": 3}


@pytest.fixture
def with_broker():
    """As with a broker (tasks sent to workers), whatever this run's configuration: a
    stalled job is sent again rather than failed at once."""
    from sanitize_app.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = previous


def sweep(capture) -> list[str]:
    with capture(execute=True):
        return job_sweeper.sweep_stalled()


def test_a_stalled_job_is_sent_again_then_failed_after_max_attempts_and_a_lost_worker_cannot_flip_it(
    corpus, sent, with_broker, django_capture_on_commit_callbacks
):
    job = report_job(corpus, task_id="task-7")
    for attempt in (1, 2):
        jobs.claim(ReportJob, job.pk)
        stall(job)
        assert sweep(django_capture_on_commit_callbacks) == [f"report {job.pk}: sent again"]
        row = fresh(job)
        assert (row.status, row.attempts) == (PENDING, attempt) and "its worker was lost" in row.log
    assert sent == [job.pk, job.pk]
    third = jobs.claim(ReportJob, job.pk)
    assert third.attempts == 3
    stall(job)
    assert sweep(django_capture_on_commit_callbacks) == [f"report {job.pk}: failed, its worker was lost"]
    row = fresh(job)
    assert row.status == FAILED and "Its worker was lost 3 times" in row.error and "task task-7" in row.error
    assert sent == [job.pk, job.pk]
    assert not jobs.finish(third, SUCCEEDED)  # the lost worker wakes up: the job stays failed
    assert fresh(job).status == FAILED


def test_a_running_job_that_never_beat_is_swept_too(corpus, sent, with_broker, django_capture_on_commit_callbacks):
    """A job left running by an older version (no heartbeat column then) is not
    invisible to the sweeper: it counts from its creation."""
    job = report_job(corpus, status=RUNNING, attempts=1)
    ReportJob.objects.filter(pk=job.pk).update(heartbeat_at=None, created_at=ago(61))
    assert sweep(django_capture_on_commit_callbacks) == [f"report {job.pk}: sent again"]
    assert sent == [job.pk]


def test_a_pending_job_nobody_took_up_is_sent_again_with_waits_that_double(
    corpus, sent, with_broker, django_capture_on_commit_callbacks
):
    job = report_job(corpus)
    assert sweep(django_capture_on_commit_callbacks) == []  # just sent: it may simply be queued
    ReportJob.objects.filter(pk=job.pk).update(created_at=ago(61))
    assert sweep(django_capture_on_commit_callbacks) == [f"report {job.pk}: not taken up, sent again"]
    assert sent == [job.pk] and "not taken up by a worker in 61 s" in fresh(job).log
    # Sent again at 61 s: the next wait is as long as it has waited in all (61 s), not stall_s.
    ReportJob.objects.filter(pk=job.pk).update(created_at=ago(61 + 60), heartbeat_at=ago(60))
    assert sweep(django_capture_on_commit_callbacks) == []
    ReportJob.objects.filter(pk=job.pk).update(created_at=ago(61 + 62), heartbeat_at=ago(62))
    assert sweep(django_capture_on_commit_callbacks) == [f"report {job.pk}: not taken up, sent again"]
    assert sent == [job.pk, job.pk]
    # The duplicate message finds it taken up and ends at once.
    assert jobs.claim(ReportJob, job.pk).attempts == 1 and jobs.claim(ReportJob, job.pk) is None


def preannotation_run(corpus, count: int) -> tuple[PreannotationRun, list[int]]:
    """A running run whose ``count`` documents one worker took up (attempt 1 each)."""
    run, ids = run_of(corpus, count)
    job_steps.start_batch(run)
    assert sorted(job_steps.take_steps(RunDocument, "run", run, ids)) == ids
    return run, ids


def steps(run, *ids):
    return RunDocument.objects.filter(run=run, document_id__in=ids)


def test_only_the_stalled_steps_are_sent_again_and_those_lost_too_often_failed(
    corpus, sent, with_broker, django_capture_on_commit_callbacks
):
    run, (done, held, lost_once, lost_thrice) = preannotation_run(corpus, 4)
    steps(run, done).update(status=RunDocument.Status.DONE)
    steps(run, lost_once).update(heartbeat_at=ago(61))
    steps(run, lost_thrice).update(heartbeat_at=ago(61), attempts=3)

    assert sweep(django_capture_on_commit_callbacks) == [f"preannotation {run.pk}: 1 documents sent again, 1 failed"]

    assert sent == [(run.pk, [lost_once])]
    by_document = {step.document_id: step for step in RunDocument.objects.filter(run=run)}
    assert (by_document[lost_once].status, by_document[lost_once].heartbeat_at) == ("pending", None)
    assert by_document[lost_thrice].status == "failed" and "lost 3 times" in by_document[lost_thrice].error
    assert by_document[held].status == "pending" and by_document[held].heartbeat_at > ago(60)
    assert fresh(run).status == RUNNING  # two documents are still to do
    # The batch sent again takes the lost document only: not the one a live worker holds.
    assert job_steps.take_steps(RunDocument, "run", run, [done, held, lost_once, lost_thrice]) == [lost_once]

    # The live worker finishes; the other is lost for the third time: the run is settled.
    steps(run, held).update(status=RunDocument.Status.DONE)
    steps(run, lost_once).update(heartbeat_at=ago(61), attempts=3)
    assert sweep(django_capture_on_commit_callbacks) == [f"preannotation {run.pk}: 0 documents sent again, 1 failed"]
    row = fresh(run)
    assert (row.status, row.done, row.total) == (SUCCEEDED, 4, 4) and row.finished_at
    assert sent == [(run.pk, [lost_once])]


def test_steps_nobody_took_up_are_sent_again_when_the_run_is_silent_with_a_doubling_back_off(
    corpus, sent, with_broker, django_capture_on_commit_callbacks
):
    """A batch received by a worker killed before it began (the broker gives it back only
    after its visibility timeout): its documents are sent again once no batch of the run
    has been alive for stall_s, then after 2, 4 ... stall_s, so a run merely queued behind
    long work adds few duplicates; taking a step up resets the back-off."""
    run, (done, untaken) = preannotation_run(corpus, 2)
    steps(run, done).update(status=RunDocument.Status.DONE)
    steps(run, untaken).update(heartbeat_at=None, attempts=0)
    assert sweep(django_capture_on_commit_callbacks) == []  # a batch of the run is alive
    stall(run)
    assert sweep(django_capture_on_commit_callbacks) == [f"preannotation {run.pk}: 1 documents sent again, 0 failed"]
    assert sent == [(run.pk, [untaken])] and fresh(run).attempts == 1
    stall(run, 61)  # the next wait is 2 stall_s
    assert sweep(django_capture_on_commit_callbacks) == []
    stall(run, 121)
    assert sweep(django_capture_on_commit_callbacks) == [f"preannotation {run.pk}: 1 documents sent again, 0 failed"]
    assert fresh(run).attempts == 2
    assert job_steps.take_steps(RunDocument, "run", run, [untaken]) == [untaken]
    assert fresh(run).attempts == 0  # progress: the back-off starts again


def test_a_run_whose_last_worker_died_before_ending_it_is_settled(
    corpus, sent, with_broker, django_capture_on_commit_callbacks
):
    run, ids = preannotation_run(corpus, 2)
    steps(run, *ids).update(status=RunDocument.Status.DONE)
    assert sweep(django_capture_on_commit_callbacks) == []  # its worker may still end it
    stall(run)
    assert sweep(django_capture_on_commit_callbacks) == [f"preannotation {run.pk}: settled"]
    row = fresh(run)
    assert (row.status, row.done) == (SUCCEEDED, 2) and sent == []


def test_a_sweep_while_another_holds_the_lock_is_a_no_op_and_never_frees_the_others_lock(corpus, sent, with_broker):
    job = jobs.claim(ReportJob, report_job(corpus).pk)
    stall(job)
    assert cache.add(job_sweeper.SWEEP_LOCK, "another host", timeout=60)
    assert job_sweeper.sweep_stalled() == [] and fresh(job).status == RUNNING
    assert cache.get(job_sweeper.SWEEP_LOCK) == "another host"
    cache.delete(job_sweeper.SWEEP_LOCK)
    assert job_sweeper.sweep_stalled() == [f"report {job.pk}: sent again"]
    assert cache.get(job_sweeper.SWEEP_LOCK) is None


def test_embedded_stalled_jobs_and_steps_are_failed_instead_of_sent_again(corpus, sent, eager_tasks):
    job = jobs.claim(ReportJob, report_job(corpus).pk)
    stall(job)
    run, (done, lost) = preannotation_run(corpus, 2)
    steps(run, done).update(status=RunDocument.Status.DONE)
    steps(run, lost).update(heartbeat_at=ago(61))

    assert job_sweeper.sweep_stalled() == [
        f"report {job.pk}: failed, its worker was lost",
        f"preannotation {run.pk}: 0 documents sent again, 1 failed",
    ]

    assert sent == []
    assert fresh(job).status == FAILED and fresh(job).error.startswith("The process running it stopped")
    assert steps(run, lost).get().error == "The process running it stopped before this document was done."
    assert (fresh(run).status, fresh(run).done) == (SUCCEEDED, 2)


def test_embedded_a_new_job_of_a_kind_first_fails_the_ones_whose_thread_died(corpus, sent, eager_tasks):
    dead = jobs.claim(ReportJob, report_job(corpus).pk)
    stall(dead)
    live = jobs.claim(ReportJob, report_job(corpus).pk)
    assert job_sweeper.recover_embedded("report") == [f"report {dead.pk}: failed, its worker was lost"]
    assert (fresh(dead).status, fresh(live).status) == (FAILED, RUNNING)
    assert job_sweeper.recover_embedded("no such kind") == []


def test_a_job_waiting_since_long_ago_is_sent_again_within_ten_stall_times_not_after_hours(
    corpus, sent, with_broker, django_capture_on_commit_callbacks
):
    """A job put back to pending after hours of work (its worker lost), whose message is
    lost again, waits at most 10 stall_s before the next send, not as long as its age."""
    job = report_job(corpus)
    ReportJob.objects.filter(pk=job.pk).update(created_at=ago(3 * 3600), heartbeat_at=ago(9 * 60))
    assert sweep(django_capture_on_commit_callbacks) == []
    ReportJob.objects.filter(pk=job.pk).update(heartbeat_at=ago(10 * 60 + 1))
    assert sweep(django_capture_on_commit_callbacks) == [f"report {job.pk}: not taken up, sent again"]
    assert sent == [job.pk]


@pytest.mark.django_db(transaction=True)
def test_embedded_a_job_this_process_is_working_on_is_never_failed_for_a_stale_heartbeat(corpus, sent, eager_tasks):
    """Embedded, the jobs run in this process's threads: a heartbeat gone stale while
    SQLite's one writer was busy is not a dead thread."""
    job = jobs.claim(ReportJob, report_job(corpus).pk)
    with jobs.Heartbeat(job):
        stall(job)
        assert job_sweeper.recover_embedded("report") == []
        assert fresh(job).status == RUNNING
    stall(job)
    assert job_sweeper.recover_embedded("report") == [f"report {job.pk}: failed, its worker was lost"]
