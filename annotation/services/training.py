"""The retraining loop: train a recognizer, masking or sequence model from a corpus's
finished layers, keep every version in the registry, promote one for pre-annotation
and roll back.

A training is a job (``services.jobs``): a ``TrainedModel`` row first (pending), then the
work of a Celery task (``run_training``) that claims it, keeps its heartbeat fresh while
it trains (a long epoch is never taken for a lost worker) and reports its progress.
The model is written to a scratch directory under ``SANITIZE_MODEL_ROOT``, then stored
as an archive in the default storage (``model_store``), from where every worker fetches
it. Whatever goes wrong while training (bad configuration, no data, an exception, the
time limit) ends in a failed row with the error in words; a worker that died is found by
the sweeper, which sends the training again or fails it. The active model is never
touched by a training, only by ``promote`` (guarded: ``promotion_guard``), or at the end
of a training by the schedule when ``SANITIZE_TRAINING["auto_promote"]`` is on and the
model needs no reason."""

import contextlib
import dataclasses
import shutil
import time
import traceback
from pathlib import Path

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from ..corpus_io.tab_writer import iter_tab_documents
from ..enums import FINISHED_LAYER_STATUSES, LayerStatus
from ..models import AnnotationLayer, Corpus, TrainedModel
from . import job_sweeper, jobs, model_store
from .audit import record_event
from .engine import engine_config, sequence_backbone
from .errors import DomainError
from .model_comparison import ENGINES, compare_engines, in_use_label
from .promotion import auto_promote
from .promotion import promote as promote  # the registry's actions, here as before
from .promotion import roll_back as roll_back
from .promotion_guard import GUARDED
from .training_scratch import clear_earlier_attempts, scratch_dir
from .training_time_limit import time_limit_error

Kind = TrainedModel.Kind
Status = TrainedModel.Status
# The share of a run's progress bar that the training takes; the comparison has the rest.
TRAINING_SHARE = 0.9


def training_statuses() -> list[str]:
    if settings.SANITIZE_TRAINING.get("reviewed_only"):
        return [LayerStatus.REVIEWED]
    return list(FINISHED_LAYER_STATUSES)


def training_layers(corpus: Corpus):
    return AnnotationLayer.objects.filter(document__corpus=corpus, status__in=training_statuses())


# --- Starting -------------------------------------------------------------------------


def start_training(
    corpus: Corpus, kind: str, *, actor: AbstractBaseUser | None = None, trigger: str = "manual"
) -> TrainedModel:
    """Queue a training of ``kind``. Refused while another training of the same kind is
    pending or running for this corpus (one whose worker was lost is the sweeper's:
    embedded, where no sweeper runs, it is failed here first)."""
    if kind not in Kind.values:
        raise DomainError(f"Unknown model kind {kind!r}: use one of {', '.join(Kind.values)}.", field="kind")
    if kind == Kind.SEQUENCE:
        sequence_backbone()  # refuses, saying why, when there is none
    layers = list(training_layers(corpus).values_list("pk", "version"))
    if not layers:
        raise DomainError(f"Corpus {corpus.name} has no confirmed layer to train on yet.", field="corpus")
    try:
        return _create(corpus, kind, layers, actor=actor, trigger=trigger)
    except IntegrityError:
        pass
    # No beat embedded: a training whose process died would block the kind for good.
    if job_sweeper.recover_embedded("training"):
        try:
            return _create(corpus, kind, layers, actor=actor, trigger=trigger)
        except IntegrityError:
            pass
    current = TrainedModel.objects.filter(corpus=corpus, kind=kind, status__in=[Status.PENDING, Status.RUNNING]).first()
    raise DomainError(
        f"A {kind} training is already {current.get_status_display().lower() if current else 'running'}"
        f"{f' ({current.label})' if current else ''}: one at a time.",
        field="kind",
    )


def _create(corpus: Corpus, kind: str, layers: list, *, actor, trigger: str) -> TrainedModel:
    with transaction.atomic():
        version = (TrainedModel.objects.filter(corpus=corpus, kind=kind).aggregate(v=Max("version"))["v"] or 0) + 1
        model = TrainedModel.objects.create(
            corpus=corpus,
            kind=kind,
            version=version,
            created_by=actor if actor is not None and actor.is_authenticated else None,
            trigger=trigger,
            training_layers=[list(row) for row in layers],
        )
        record_event("model.train", actor=actor, corpus=corpus, target=model.label, changes={"trigger": trigger})
    return model


# --- Running --------------------------------------------------------------------------


class _Lost(BaseException):
    """The training was taken over by another worker (this one was declared lost). A
    BaseException, so that the trainers' and the comparison's handlers of their own
    failures let it through: it stops the work, it is not an error of the model."""


class _Progress:
    """Progress (done of 100), the stage and log lines, reported at most every half
    second (a message is always written). Raises ``_Lost`` once the training is no
    longer this attempt's: its work would be thrown away."""

    def __init__(self, model: TrainedModel):
        self.model = model
        self.last = 0.0

    def __call__(self, fraction: float, message: str = "") -> None:
        now = time.monotonic()
        done = round(self.model.total * max(0.0, min(1.0, float(fraction))))
        if not message and now - self.last < 0.5 and fraction < 1.0:
            self.model.done = done
            return
        self.last = now
        stage = message[:200] if message else None
        if not jobs.report(self.model, stage=stage, done=done, log=message):
            raise _Lost


def run_training(model_id: int) -> TrainedModel:
    """Train the pending model ``model_id``, store it, compare it with the engine in use
    and the zero-shot engine on its held-out documents, and record the result. Never
    raises for a training that fails: the row says what went wrong. Safe to redeliver:
    a model that another worker holds or that finished is left as it is; one taken up
    again after its worker was lost starts from a clean scratch directory."""
    model = jobs.claim(TrainedModel, model_id)
    if model is None:
        model = TrainedModel.objects.select_related("corpus").get(pk=model_id)
        if model.status == Status.FAILED:  # claim failed it (lost too often): its orphans go
            model_store.discard_unreferenced(model)
        return model
    if model.attempts > 1:  # what lost attempts left: their files here, their archives
        clear_earlier_attempts(model)
        model_store.discard_unreferenced(model)
    target = scratch_dir(model)
    started = time.monotonic()
    progress = _Progress(model)
    try:
        with jobs.Heartbeat(model):
            result, heldout = _train_and_store(model, target, progress)
            comparison = _compare(model, model_store.local_path(model), heldout, progress)
    except _Lost:
        model_store.discard(model)
        return model
    except Exception as exc:  # noqa: BLE001 - any failure must end as a failed row
        model_store.discard(model)
        _finish(model, Status.FAILED, started, error=_explain(exc))
        return model
    finally:
        shutil.rmtree(target, ignore_errors=True)
        with contextlib.suppress(OSError):  # the version's folder, once no attempt is left in it
            target.parent.rmdir()
    finished = _finish(
        model,
        Status.SUCCEEDED,
        started,
        path=model.path,
        archive=model.archive,
        checksum=model.checksum,
        metrics={**result.metrics, "comparison": comparison},
        config=result.config,
        train_documents=list(result.train_documents),
        heldout_documents=list(result.heldout_documents),
    )
    if not finished:
        model_store.discard(model)  # another attempt owns the row now
    elif model.trigger == "schedule" and settings.SANITIZE_TRAINING.get("auto_promote"):
        _record_auto_promotion(model, *auto_promote(model))
    return model


def _train_and_store(model: TrainedModel, target: Path, progress: _Progress):
    train, heldout = _split(model, progress)
    result = _train(model, train, heldout, target, _scaled(progress, 0.02, TRAINING_SHARE - 0.02))
    progress(TRAINING_SHARE, "storing the model's archive")
    model_store.store(model, Path(result.path))
    return result, heldout


def _record_auto_promotion(model: TrainedModel, promoted: bool, decided: str) -> None:
    model.metrics = {**model.metrics, "auto_promotion": {"promoted": promoted, "why": decided}}
    model.log = jobs.logged(model.log, decided, timezone.now())
    model.save(update_fields=["metrics", "log"])


def _scaled(progress: _Progress, start: float, share: float):
    """A trainer's progress (0 to 1) as its part of the whole run's."""
    return lambda fraction, message="": progress(start + share * fraction, message)


def _split(model: TrainedModel, progress: _Progress) -> tuple[list[dict], list[dict]]:
    from sanitize_app.engine import training

    documents = _snapshot_documents(model)
    progress(0.0, f"{len(documents)} documents with finished layers")
    train, heldout = training.split_documents(documents, seed=settings.SANITIZE_TRAINING.get("seed", 13))
    progress(0.02, f"split: {len(train)} to train on, {len(heldout)} held out")
    return train, heldout


def _compare(model: TrainedModel, path: Path, heldout: list[dict], progress: _Progress) -> dict:
    """The comparison with the engine in use and the zero-shot one, the candidate as
    every worker gets it (``path``: unpacked from its archive); a comparison that fails
    says so (the model is trained all the same, and its promotion needs a reason)."""
    try:
        return compare_engines(model, path, heldout, _scaled(progress, TRAINING_SHARE, 1 - TRAINING_SHARE))
    except Exception as exc:  # noqa: BLE001 - the training's result is kept
        progress(TRAINING_SHARE, f"comparison failed: {exc.__class__.__name__}: {exc}")
        return {"error": _explain(exc)[:500], "in_use_model": in_use_label(model)}


def _train(model: TrainedModel, train: list[dict], heldout: list[dict], target: Path, progress):
    from sanitize_app.engine import training

    options = settings.SANITIZE_TRAINING
    limit = options.get("time_limit_s")
    if model.kind == Kind.RECOGNIZER:
        return training.train_recognizer(
            train,
            heldout,
            target,
            base_model=_base_model(),
            max_epochs=options.get("max_epochs", 20),
            time_limit_s=limit,
            seed=options.get("seed", 13),
            progress=progress,
        )
    if model.kind == Kind.MASKING:
        # Features as the corpus's engine computes them (its promoted recognizer
        # included), without the classifier being replaced.
        config = dataclasses.replace(engine_config(model.corpus), span_classifier=None)
        return training.train_masking_classifier(
            train,
            heldout,
            target / "classifier.joblib",
            engine_config=config,
            progress=progress,
            time_limit_s=limit,
        )
    return training.train_sequence_labeller(
        train,
        heldout,
        target,
        backbone=sequence_backbone(),
        device=settings.SANITIZE_ENGINE.get("device", "cpu"),
        progress=progress,
        time_limit_s=limit,
        # Held-out scores of the corpus's engine with the new labeller in it (and the
        # user's encoder digest, SANITIZE_ENCODER_SHA256, checked again).
        engine_config=engine_config(model.corpus),
    )


def _base_model() -> str | None:
    """The spaCy pipeline a recognizer starts from: the setting ("blank" for a blank
    English pipeline), else the engine's configured pipeline when it is installed."""
    chosen = settings.SANITIZE_TRAINING.get("base_model") or ""
    if chosen:
        return None if chosen == "blank" else chosen
    import spacy.util

    pipeline = settings.SANITIZE_ENGINE.get("spacy_pipeline") or ""
    return pipeline if pipeline and spacy.util.is_package(pipeline) else None


def _snapshot_documents(model: TrainedModel) -> list[dict]:
    """The training data: the layers recorded when the training was queued, in the TAB
    format (one query for the snapshot's names, then the writer's chunked reads)."""
    names = set(
        AnnotationLayer.objects.filter(pk__in=[row[0] for row in model.training_layers]).values_list(
            "document__doc_id", "annotator__username"
        )
    )
    documents = model.corpus.documents.filter(doc_id__in={doc_id for doc_id, _ in names})
    snapshot = []
    for document in iter_tab_documents(documents, finished_only=True):
        annotations = document["annotations"]
        document["annotations"] = {
            name: layer for name, layer in annotations.items() if (document["doc_id"], name) in names
        }
        if document["annotations"]:
            snapshot.append(document)
    return snapshot


def _explain(exc: Exception) -> str:
    if isinstance(exc, SoftTimeLimitExceeded):
        return time_limit_error()
    message = str(exc) or exc.__class__.__name__
    if not isinstance(exc, DomainError) and exc.__class__.__name__ != "TrainingError":
        message = f"{exc.__class__.__name__}: {message}\n" + "".join(traceback.format_exception(exc)[-3:])
    return message[:5000]


def _finish(model: TrainedModel, status: str, started: float, *, error: str = "", **fields) -> bool:
    """End the training with ``fields`` and audit it, if it is still this attempt's
    (a worker declared lost writes nothing)."""
    with transaction.atomic():
        finished = jobs.finish(model, status, error=error, duration_s=round(time.monotonic() - started, 2), **fields)
        if finished:
            record_event(
                "model.trained" if status == Status.SUCCEEDED else "model.failed",
                actor=None,
                corpus=model.corpus,
                target=model.label,
                changes={"error": error[:500]} if error else {"metrics": _headline(model.metrics)},
            )
    return finished


def _headline(metrics: dict) -> dict:
    headline = {key: metrics[key] for key in ("ER_di", "ER_qi", "WP", "entity_type_f1") if key in metrics}
    comparison = metrics.get("comparison") or {}
    compared = {
        name: {key: comparison[name][key] for key in GUARDED if key in comparison[name]}
        for name in ENGINES
        if isinstance(comparison.get(name), dict)
    }
    return {**headline, "comparison": compared} if compared else headline
