"""The model registry and the retraining loop: one training of a kind at a time, lost
trainings found failed (embedded) or taken up again from a clean scratch directory, a
failed training never touches the active model, trained models stored as archives and
fetched from them, a promoted model that cannot be fetched stops the pre-annotation,
promotion and roll back, every training compared with the engine in use and the
zero-shot one, and the schedule's rules (when to retrain, what it may promote)."""

from datetime import timedelta

import pytest
from django.core.files.storage import default_storage
from django.utils import timezone

from annotation.enums import LayerStatus
from annotation.models import AnnotationLayer, TrainedModel
from annotation.services import model_store, training, training_schedule, training_scratch, training_time_limit
from annotation.services.engine import engine_config
from annotation.services.errors import DomainError
from sanitize_app.engine.training import TrainingResult
from tests.support.archived_models import archived_model

DOCS = ("001-79436", "001-83927", "001-95183")


@pytest.fixture
def trained_corpus(corpus, pick, import_documents, settings, tmp_path):
    settings.SANITIZE_MODEL_ROOT = tmp_path / "models"
    settings.SANITIZE_MODEL_CACHE = tmp_path / "model-cache"
    import_documents(corpus, pick(*DOCS))
    return corpus


def _succeeded(corpus, kind="recognizer", version=1, **fields):
    return archived_model(corpus, kind, version, **fields)


def _archives() -> list[str]:
    """The model archives in the default storage."""
    found = []

    def walk(folder):
        folders, files = default_storage.listdir(folder) if default_storage.exists(folder) else ([], [])
        found.extend(f"{folder}/{name}" for name in files)
        for name in folders:
            walk(f"{folder}/{name}")

    walk("models")
    return sorted(found)


def _stored_unrecorded(model, text="from a killed attempt") -> str:
    """Store an archive for ``model`` as an attempt killed before it finished would."""
    directory = training_scratch.model_root() / "stored-unrecorded"
    directory.mkdir(parents=True)
    (directory / "meta.json").write_text(text)
    return model_store.store(
        TrainedModel(pk=model.pk, corpus=model.corpus, kind=model.kind, version=model.version), directory
    )


def _comparison(candidate, in_use, in_use_model=""):
    """A stored comparison, by hand: (ER_di, ER_qi) of the new model and of the one in use."""
    return {
        "candidate": {"ER_di": candidate[0], "ER_qi": candidate[1], "documents": 1},
        "in_use": {"ER_di": in_use[0], "ER_qi": in_use[1], "documents": 1},
        "zero_shot": {"ER_di": 1.0, "ER_qi": 0.8, "documents": 1},
        "in_use_model": in_use_model,
        "documents": 1,
    }


def test_one_training_of_a_kind_at_a_time(trained_corpus, people):
    first = training.start_training(trained_corpus, "recognizer", actor=people["manager"])
    assert first.version == 1 and first.status == "pending"
    assert len(first.training_layers) == AnnotationLayer.objects.filter(document__corpus=trained_corpus).count()
    with pytest.raises(DomainError, match=r"A recognizer training is already pending \(recognizer v1\): one at a time"):
        training.start_training(trained_corpus, "recognizer")
    other = training.start_training(trained_corpus, "masking")  # another kind may run beside it
    assert other.version == 1


def test_what_cannot_be_trained_is_refused_with_the_reason(corpus, trained_corpus, settings):
    with pytest.raises(DomainError, match="Unknown model kind 'ner'"):
        training.start_training(trained_corpus, "ner")
    settings.SANITIZE_TRAINING = {**settings.SANITIZE_TRAINING, "sequence_backbone": ""}
    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "encoder": ""}
    with pytest.raises(DomainError, match="SANITIZE_ENCODER"):
        training.start_training(trained_corpus, "sequence")
    AnnotationLayer.objects.filter(document__corpus=trained_corpus).update(status=LayerStatus.IN_PROGRESS)
    with pytest.raises(DomainError, match="no confirmed layer to train on yet"):
        training.start_training(trained_corpus, "recognizer")


def test_embedded_a_dead_training_is_found_failed_and_frees_the_kind(trained_corpus, eager_tasks, settings):
    import annotation.tasks  # noqa: F401 - registers the kinds of jobs

    lost = training.start_training(trained_corpus, "masking")
    stale = timezone.now() - timedelta(seconds=settings.SANITIZE_JOBS["stall_s"] + 1)
    TrainedModel.objects.filter(pk=lost.pk).update(status="running", attempts=1, heartbeat_at=stale)
    orphan = _stored_unrecorded(lost)  # it died after storing its archive, before recording it
    again = training.start_training(trained_corpus, "masking")
    lost.refresh_from_db()
    assert lost.status == "failed" and "The process running it stopped" in lost.error
    assert orphan.startswith(f"models/corpus-{trained_corpus.pk}/masking/v1-") and _archives() == []
    assert again.version == 2
    # one that is alive (fresh heartbeat) still blocks the kind
    TrainedModel.objects.filter(pk=again.pk).update(status="running", attempts=1, heartbeat_at=timezone.now())
    with pytest.raises(DomainError, match=r"A masking training is already running \(masking v2\)"):
        training.start_training(trained_corpus, "masking")


def test_a_failing_training_leaves_the_active_model_and_says_why(trained_corpus, settings):
    active = _succeeded(trained_corpus, is_active=True, activated_at=timezone.now())
    settings.SANITIZE_TRAINING = {**settings.SANITIZE_TRAINING, "base_model": "no_such_pipeline_xyz"}
    model = training.run_training(training.start_training(trained_corpus, "recognizer", trigger="command").pk)
    assert model.status == "failed" and "no_such_pipeline_xyz" in model.error
    assert model.finished_at is not None and not model.is_active and model.archive == ""
    active.refresh_from_db()
    assert active.is_active
    assert not training_scratch.scratch_dir(model).exists() and _archives() == [active.archive]
    # a redelivered task does not train a finished model again
    assert training.run_training(model.pk).status == "failed"


def test_promote_and_roll_back(trained_corpus, people, settings):
    default = engine_config(trained_corpus)
    v1 = _succeeded(trained_corpus, version=1, metrics={"comparison": _comparison((1.0, 0.9), (1.0, 0.9))})
    v2 = _succeeded(
        trained_corpus, version=2, metrics={"comparison": _comparison((1.0, 0.92), (1.0, 0.9), "recognizer v1")}
    )
    failed = TrainedModel.objects.create(corpus=trained_corpus, kind="recognizer", version=3, status="failed")
    with pytest.raises(DomainError, match="only a trained model is used"):
        training.promote(failed, actor=people["manager"])
    training.promote(v1, actor=people["manager"])
    training.promote(v2, actor=people["manager"])
    assert list(TrainedModel.objects.filter(is_active=True)) == [v2]
    config = engine_config(trained_corpus)
    assert config.spacy_pipeline == str(settings.SANITIZE_MODEL_CACHE / v2.checksum / "model")
    assert config.model_version.startswith("recognizer v2")
    assert training.roll_back(trained_corpus, "recognizer", actor=people["manager"]) == v1
    assert training.roll_back(trained_corpus, "recognizer", actor=people["manager"]) is None
    assert not TrainedModel.objects.filter(is_active=True).exists()
    assert engine_config(trained_corpus) == default
    with pytest.raises(DomainError, match="already in use"):
        training.roll_back(trained_corpus, "recognizer", actor=people["manager"])


def test_a_retraining_is_due_after_enough_newly_finished_layers(trained_corpus, settings):
    layers = AnnotationLayer.objects.filter(document__corpus=trained_corpus)
    total = layers.count()
    settings.SANITIZE_TRAINING = {**settings.SANITIZE_TRAINING, "retrain_every": total, "sequence_backbone": ""}
    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "encoder": ""}
    layers.update(confirmed_at=timezone.now())
    assert training_schedule.due_trainings(trained_corpus) == ["recognizer", "masking"]
    model = training.start_training(trained_corpus, "recognizer")
    assert training_schedule.due_trainings(trained_corpus) == ["masking"]  # one is running already
    TrainedModel.objects.filter(pk=model.pk).update(status="succeeded")
    assert training_schedule.due_trainings(trained_corpus) == ["masking"]  # nothing finished since it started
    layers.update(confirmed_at=timezone.now() + timedelta(seconds=5))
    assert training_schedule.due_trainings(trained_corpus) == ["recognizer", "masking"]
    settings.SANITIZE_TRAINING = {**settings.SANITIZE_TRAINING, "retrain_every": 0}
    assert training_schedule.due_trainings(trained_corpus) == []


@pytest.mark.usefixtures("rules_only_engine")
def test_trained_models_are_stored_promoted_and_used_by_the_preannotation(trained_corpus, people, settings):
    """A real (small) training of both kinds from the corpus's layers, end to end."""
    from annotation.services.preannotation import start_run

    settings.SANITIZE_TRAINING = {
        **settings.SANITIZE_TRAINING,
        "base_model": "blank",
        "max_epochs": 2,
        "seed": 13,
        "time_limit_s": 120,
    }
    recognizer = training.run_training(training.start_training(trained_corpus, "recognizer").pk)
    assert recognizer.status == "succeeded", recognizer.error
    assert len(recognizer.train_documents) + len(recognizer.heldout_documents) == len(DOCS)
    assert not set(recognizer.train_documents) & set(recognizer.heldout_documents)
    assert 0 <= recognizer.metrics["entity_type_f1"] <= 1 and "ER_di" in recognizer.metrics
    # Stored as an archive, the scratch copy gone; every worker unpacks it into its cache.
    assert recognizer.archive in _archives() and not training_scratch.scratch_dir(recognizer).exists()
    assert (model_store.local_path(recognizer) / "meta.json").exists()
    assert recognizer.progress == 1.0 and "split:" in recognizer.log  # progress was written to the row
    # Compared on its held-out document with the engine in use, which is the zero-shot
    # engine while nothing is promoted.
    compared = recognizer.metrics["comparison"]
    assert compared["documents"] == len(recognizer.heldout_documents) == 1 and compared["in_use_model"] == ""
    assert compared["candidate"]["engine"] == "rules with recognizer v1" and compared["in_use"]["engine"] == "rules"
    for name in ("candidate", "in_use", "zero_shot"):
        assert {"ER_di", "ER_qi", "WP", "token_precision", "recall_by_type"} <= set(compared[name]), name
        assert compared[name]["documents"] == 1
    assert (
        compared["zero_shot"]["same_as"] == "in_use" and compared["zero_shot"]["ER_qi"] == compared["in_use"]["ER_qi"]
    )
    assert "comparing: the candidate engine on 1 documents" in recognizer.log
    training.promote(recognizer, actor=people["manager"], reason="End-to-end test of a two-epoch model.")

    masking = training.run_training(training.start_training(trained_corpus, "masking").pk)
    assert masking.status == "succeeded", masking.error
    assert model_store.local_path(masking).is_file() and masking.path == "classifier.joblib"
    compared = masking.metrics["comparison"]
    # The engine in use has the promoted recognizer; the zero-shot engine has none.
    assert compared["in_use"]["engine"] == "recognizer v1" and compared["zero_shot"]["engine"] == "rules"
    assert compared["candidate"]["engine"] == "recognizer v1 with masking v1"
    assert "same_as" not in compared["zero_shot"] and "ER_di" in compared["zero_shot"]
    training.promote(masking, actor=people["manager"], reason="End-to-end test.")
    config = engine_config(trained_corpus)
    assert config.model_version == "recognizer v1 + masking v1"
    run = start_run(trained_corpus)
    assert run.model_version == "recognizer v1 + masking v1"  # pre-annotations say which models made them


def test_the_beat_task_queues_the_due_trainings_once(trained_corpus, settings):
    from annotation.tasks import retrain_due_models

    settings.SANITIZE_TRAINING = {**settings.SANITIZE_TRAINING, "retrain_every": 1, "sequence_backbone": ""}
    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "encoder": ""}
    AnnotationLayer.objects.filter(document__corpus=trained_corpus).update(confirmed_at=timezone.now())
    started = retrain_due_models()
    assert started == [f"{trained_corpus.name}: recognizer v1", f"{trained_corpus.name}: masking v1"]
    assert set(TrainedModel.objects.values_list("trigger", "status")) == {("schedule", "pending")}
    assert retrain_due_models() == []  # both still queued: nothing twice


@pytest.fixture
def stand_ins(trained_corpus, monkeypatch, settings):
    """``run_training`` with the trainer and the comparison replaced by stand-ins: the
    test appends the comparison each next training gets (written by hand)."""
    comparisons = []

    def train(model, train, heldout, target, progress):
        target.mkdir(parents=True)
        return TrainingResult(
            kind=model.kind,
            path=target,
            metrics={"ER_di": 1.0},
            config={},
            duration_s=0.1,
            train_documents=[d["doc_id"] for d in train],
            heldout_documents=[d["doc_id"] for d in heldout],
        )

    monkeypatch.setattr(training, "_train", train)
    monkeypatch.setattr(training, "compare_engines", lambda model, path, heldout, progress: comparisons.pop(0))
    settings.SANITIZE_TRAINING = {**settings.SANITIZE_TRAINING, "auto_promote": True}
    return comparisons


def _scheduled(corpus, trigger="schedule"):
    model = training.run_training(training.start_training(corpus, "recognizer", trigger=trigger).pk)
    assert model.status == "succeeded", model.error
    model.refresh_from_db()
    return model


def test_the_schedule_promotes_a_model_no_worse_than_the_one_in_use_and_never_a_worse_one(trained_corpus, stand_ins):
    stand_ins.append(_comparison((1.0, 0.91), (1.0, 0.91)))  # as good as the default
    v1 = _scheduled(trained_corpus)
    assert v1.is_active and v1.promoted_by is None and v1.promotion_reason == ""
    assert v1.metrics["auto_promotion"] == {
        "promoted": True,
        "why": "promoted automatically: no worse than the model in use on ER_di and ER_qi",
    }
    assert "promoted automatically" in v1.log
    stand_ins.append(_comparison((0.964, 0.95), (1.0, 0.91), "recognizer v1"))  # better ER_qi, lower ER_di
    v2 = _scheduled(trained_corpus)
    assert not v2.is_active and TrainedModel.objects.get(is_active=True) == v1
    why = v2.metrics["auto_promotion"]["why"]
    assert v2.metrics["auto_promotion"]["promoted"] is False
    assert why == (
        "not promoted automatically: recognizer v2 is worse than recognizer v1 on the same 1 held-out documents: "
        "ER_di 0.964 against 1.000 in use"
    )
    assert why in v2.log
    assert v2.metrics["comparison"]["candidate"]["ER_di"] == 0.964  # the comparison is kept with the model


def test_the_schedule_promotes_nothing_it_could_not_compare(trained_corpus, stand_ins):
    stand_ins.append({"skipped": "no held-out documents to compare on", "documents": 0, "in_use_model": ""})
    model = _scheduled(trained_corpus)
    assert not model.is_active
    assert model.metrics["auto_promotion"]["why"] == (
        "not promoted automatically: recognizer v1 was not compared with the model in use: "
        "no held-out documents to compare on"
    )


def test_without_auto_promote_or_outside_the_schedule_a_training_is_not_promoted(trained_corpus, stand_ins, settings):
    stand_ins.append(_comparison((1.0, 0.95), (1.0, 0.9)))
    manual = _scheduled(trained_corpus, trigger="manual")  # auto_promote is only the schedule's
    assert not manual.is_active and "auto_promotion" not in manual.metrics
    settings.SANITIZE_TRAINING = {**settings.SANITIZE_TRAINING, "auto_promote": False}
    stand_ins.append(_comparison((1.0, 0.95), (1.0, 0.9)))
    scheduled = _scheduled(trained_corpus)
    assert not scheduled.is_active and "auto_promotion" not in scheduled.metrics
    assert not TrainedModel.objects.filter(is_active=True).exists()


def test_a_training_taken_up_after_its_worker_was_lost_starts_from_a_clean_scratch_directory(trained_corpus, stand_ins):
    stand_ins.append(_comparison((1.0, 0.9), (1.0, 0.9)))
    model = training.start_training(trained_corpus, "recognizer")
    stale = timezone.now() - timedelta(minutes=5)
    TrainedModel.objects.filter(pk=model.pk).update(status="running", attempts=1, heartbeat_at=stale)
    model.attempts = 1
    leftover = training_scratch.scratch_dir(model)
    leftover.mkdir(parents=True)
    (leftover / "half-written").write_text("from the lost attempt")
    orphan = _stored_unrecorded(model)  # killed between storing its archive and recording it

    model = training.run_training(model.pk)
    assert model.status == "succeeded", model.error
    model.refresh_from_db()
    assert model.attempts == 2 and "taken up again (attempt 2)" in model.log
    assert training_scratch.scratch_dir(model) != leftover and not leftover.exists()
    assert list(model_store.local_path(model).iterdir()) == [] and _archives() == [model.archive] != [orphan]


def test_a_worker_declared_lost_writes_nothing_and_keeps_no_archive(trained_corpus, stand_ins, monkeypatch):
    model = training.start_training(trained_corpus, "recognizer")
    stored = []

    def taken_over_while_comparing(model, path, heldout, progress):
        stored.append(model.archive)
        # Another worker took the training up (this one's heartbeat looked lost), on this host.
        TrainedModel.objects.filter(pk=model.pk).update(attempts=2, log="the other worker's")
        theirs = training_scratch.scratch_dir(TrainedModel(corpus=model.corpus, kind=model.kind, version=1, attempts=2))
        theirs.mkdir(parents=True)
        stored.append(theirs)
        return _comparison((1.0, 0.9), (1.0, 0.9))

    monkeypatch.setattr(training, "compare_engines", taken_over_while_comparing)
    training.run_training(model.pk)
    model.refresh_from_db()
    assert (model.status, model.attempts, model.log, model.archive) == ("running", 2, "the other worker's", "")
    assert stored[0].startswith("models/") and _archives() == []  # its archive was stored, then deleted
    model.attempts = 1
    assert not training_scratch.scratch_dir(model).exists() and stored[1].exists()  # its own directory only


def test_a_promoted_model_whose_archive_is_gone_stops_the_preannotation_naming_it(trained_corpus, people, settings):
    """A worker that cannot fetch the promoted recognizer fails the run's documents with
    the reason; it never pre-annotates with rules while the run says "recognizer v1"."""
    from annotation.models import Prediction, RunDocument
    from annotation.services.preannotation import run_batch, start_run

    promoted = _succeeded(trained_corpus, is_active=True, activated_at=timezone.now())
    run = start_run(trained_corpus)
    assert run.model_version.startswith("recognizer v1")
    default_storage.delete(promoted.archive)
    settings.SANITIZE_MODEL_CACHE = settings.SANITIZE_MODEL_CACHE.parent / "another-worker"

    run_batch(run.pk, list(RunDocument.objects.filter(run=run).values_list("document_id", flat=True)))
    run.refresh_from_db()
    assert run.status == "failed" and not Prediction.objects.filter(run=run).exists()
    errors = set(RunDocument.objects.filter(run=run).values_list("status", "error"))
    assert len(errors) == 1
    status, error = errors.pop()
    assert status == "failed"
    assert f"The recognizer v1 model of corpus {trained_corpus.name} cannot be used on this host" in error
    assert promoted.archive in error and "the archive is missing from the storage" in error


def test_a_training_stopped_at_its_soft_time_limit_ends_failed_saying_so(trained_corpus, stand_ins, monkeypatch):
    from celery.exceptions import SoftTimeLimitExceeded

    def stuck(model, train, heldout, target, progress):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(training, "_train", stuck)
    model = training.run_training(training.start_training(trained_corpus, "recognizer").pk)
    model.refresh_from_db()
    limit = training_time_limit.task_time_limit_s()
    assert model.status == "failed" and model.attempts == 1 and model.archive == ""
    assert model.error.startswith(f"The training was stopped at its time limit ({limit:.0f} s)")


def test_a_training_killed_at_its_hard_time_limit_is_failed_not_sent_again(trained_corpus, settings):
    from celery.exceptions import TimeLimitExceeded

    from annotation.tasks import train_model

    settings.SANITIZE_TRAINING = {**settings.SANITIZE_TRAINING, "time_limit_s": 100, "comparison_time_limit_s": 40}
    model = training.start_training(trained_corpus, "recognizer")
    TrainedModel.objects.filter(pk=model.pk).update(status="running", attempts=1, task_id="task-2")
    model.attempts = 1
    scratch = training_scratch.scratch_dir(model)
    scratch.mkdir(parents=True)
    orphan = _stored_unrecorded(model)

    # The worker's parent calls on_failure when it kills the task's process.
    train_model.on_failure(TimeLimitExceeded(230), "task-1", (model.pk,), {}, None)
    model.refresh_from_db()
    assert model.status == "running" and _archives() == [orphan]  # sent again meanwhile as task-2: not ours
    train_model.on_failure(TimeLimitExceeded(230), "task-2", (model.pk,), {}, None)
    model.refresh_from_db()
    assert model.status == "failed" and model.finished_at is not None
    assert model.error.startswith("The training was stopped at its time limit (200 s)")  # 100 + 40 + 60
    assert "stopped at its time limit" in model.log and not scratch.exists() and _archives() == []
