"""The batches of a batched job (services.job_steps): a batch takes up only the free
steps (pending, no live worker's heartbeat) and resets the job's back-off when it does;
two copies of one batch running at once never both take a step; the job's ``done`` is
counted at most once a second while a batch works, and exactly at its end."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from annotation.models import PreannotationRun, RunDocument
from annotation.services import job_steps, jobs, preannotation
from tests.support.job_rows import run_of

pytestmark = pytest.mark.django_db

PENDING, DONE = RunDocument.Status.PENDING, RunDocument.Status.DONE


def test_take_steps_takes_the_free_steps_only_and_resets_the_jobs_back_off(corpus):
    run, (free, stale, held, done) = run_of(corpus, 4, attempts=2)
    stale_at = jobs.stall_cutoff() - timedelta(seconds=1)
    RunDocument.objects.filter(run=run, document_id=stale).update(heartbeat_at=stale_at, attempts=1)
    RunDocument.objects.filter(run=run, document_id=held).update(heartbeat_at=timezone.now(), attempts=1)
    RunDocument.objects.filter(run=run, document_id=done).update(status=DONE)
    other, _ = run_of(corpus, 0)  # another run's batch takes nothing of this one
    assert job_steps.take_steps(RunDocument, "run", other, [free, stale]) == []

    assert job_steps.take_steps(RunDocument, "run", run, [free, stale, held, done]) == [free, stale]

    attempts = dict(RunDocument.objects.filter(run=run).values_list("document_id", "attempts"))
    assert attempts == {free: 1, stale: 2, held: 1, done: 0}
    run.refresh_from_db()
    assert run.attempts == 0  # progress: the sweeper's back-off starts over
    # A copy of the batch finds every step held: it takes nothing and leaves the back-off.
    PreannotationRun.objects.filter(pk=run.pk).update(attempts=3)
    assert job_steps.take_steps(RunDocument, "run", run, [free, stale, held, done]) == []
    run.refresh_from_db()
    assert run.attempts == 3


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_copies_of_a_batch_taking_steps_at_once_never_take_the_same_step(corpus):
    assert connection.vendor == "postgresql", "row locks are what this proves: run it on PostgreSQL"
    for round_ in range(10):
        run, ids = run_of(corpus, 8, prefix=f"round{round_}-")
        start = threading.Barrier(2)
        taken: list[list[int]] = [[], []]

        def copy(index: int, run=run, ids=ids, start=start, taken=taken) -> None:
            try:
                start.wait(timeout=10)
                taken[index] = job_steps.take_steps(RunDocument, "run", run, ids)
            finally:
                connection.close()

        threads = [threading.Thread(target=copy, args=(index,)) for index in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert not set(taken[0]) & set(taken[1]), f"round {round_}: both copies took {set(taken[0]) & set(taken[1])}"
        assert sorted(taken[0] + taken[1]) == ids  # together they took every step, each once
        assert set(RunDocument.objects.filter(run=run).values_list("attempts", flat=True)) == {1}


def test_done_is_counted_at_most_once_a_second_while_a_batch_works_and_exactly_at_its_end(corpus, monkeypatch):
    """Five documents of 0.4 s each (a clock the work moves): counted after the third
    (1.2 s, the first second past) and not again before 2.2 s; the batch's end counts all 5."""
    run, ids = run_of(corpus, 5)
    clock = [0.0]
    monkeypatch.setattr(job_steps, "monotonic", lambda: clock[0])
    seen: list[int] = []

    def prepare(job):
        def work_one(step) -> str:
            seen.append(PreannotationRun.objects.get(pk=job.pk).done)
            RunDocument.objects.filter(pk=step.pk).update(status=DONE)
            clock[0] += 0.4
            return DONE

        return work_one

    outcome = job_steps.run_steps(RunDocument, "run", run, ids, prepare, preannotation.finish_if_complete)

    assert outcome == {"run": run.pk, "done": 5, "failed": 0}
    assert seen == [0, 0, 0, 3, 3]
    run.refresh_from_db()
    assert (run.status, run.done, run.total) == (PreannotationRun.Status.SUCCEEDED, 5, 5)


def test_a_batch_of_a_finished_job_does_nothing(corpus):
    run, ids = run_of(corpus, 1, status=PreannotationRun.Status.FAILED)

    def prepare(job):
        raise AssertionError("a finished job's batch must not build anything")

    assert job_steps.run_steps(RunDocument, "run", run, ids, prepare, preannotation.finish_if_complete) == {
        "run": run.pk,
        "done": 0,
        "failed": 0,
    }
    assert RunDocument.objects.get(run=run).status == PENDING
