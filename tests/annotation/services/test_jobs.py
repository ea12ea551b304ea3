"""The one job mechanism (services.jobs): a job is claimed by one worker at a time,
fenced by its attempts so that a worker declared lost writes nothing, and the heartbeat
thread keeps a long job fresh (the sweeper: test_job_sweeper; batches: test_job_steps)."""

import time

import pytest

from annotation.models import ReportJob
from annotation.services import job_sweeper, jobs
from tests.support.job_rows import fresh, report_job, stall

pytestmark = pytest.mark.django_db

RUNNING, PENDING = ReportJob.Status.RUNNING, ReportJob.Status.PENDING
SUCCEEDED, FAILED = ReportJob.Status.SUCCEEDED, ReportJob.Status.FAILED


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
        assert job_sweeper.sweep_stalled() == [] and jobs.claim(ReportJob, job.pk) is None
    time.sleep(1.2)
    assert job_sweeper.sweep_stalled() == [f"report {job.pk}: failed, its worker was lost"]


def test_claim_records_the_task_that_took_the_job_up_not_the_last_one_sent(corpus):
    """The sweeper may send a duplicate (a new task id) while the first message is still
    queued; whichever task claims the job is the one its time limit must fail."""
    from sanitize_app.celery import app

    @app.task(name="tests.claim_probe")
    def probe(pk):
        return jobs.claim(ReportJob, pk).task_id

    job = report_job(corpus, task_id="duplicate-sent-later")
    assert probe.apply(args=[job.pk], task_id="the-first-message").get() == "the-first-message"
    assert fresh(job).task_id == "the-first-message"
