"""A new model scored beside the engine in use and the zero-shot engine, on the same
held-out documents, so that a promotion is judged like for like.

The trainers' own held-out metrics (``sanitize_app.engine.training``) come from an
engine of their own making; here the three engines differ only in the models they use:

- ``in_use``: the corpus's engine as it is now (``engine_config``: its promoted models);
- ``candidate``: that same engine with this kind's model replaced by the new one;
- ``zero_shot``: the configured defaults, without any of the corpus's promoted models.

All three share the corpus's word statistics, the search backend and the token filter.
The evaluation runs in the training's worker after the training, within a time limit
(``SANITIZE_TRAINING["comparison_time_limit_s"]``, 600 s by default): an engine that
could not be scored in time or failed to load is recorded as such, never guessed."""

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from ..models import TrainedModel
from .engine import corpus_statistics, engine_config, search_backend

ENGINES = ("candidate", "in_use", "zero_shot")
# What is kept of each engine's evaluation (the rest, such as the missed entities, is
# the trainer's report to give).
KEPT = ("ER_di", "ER_qi", "WP", "token_precision", "token_recall", "entity_type_f1", "recall_by_type")
CONFIG_FIELD = {"recognizer": "spacy_pipeline", "masking": "span_classifier", "sequence": "sequence_model"}
# The indicator that uses a trained model of each kind (the recognizer is checked apart).
INDICATOR = {"masking": "span classification", "sequence": "sequence labelling"}
DEFAULT_TIME_LIMIT_S = 600
Progress = Callable[[float, str], None]


class _TimeUp(Exception):
    pass


class _NotLoaded(Exception):
    pass


def _check_candidate(kind: str, engine) -> None:
    """A model that does not load leaves the engine without it, silently: scoring that
    engine would compare the model in use with itself."""
    if kind == "recognizer":
        if not engine.recognizer.trained_on_tab:
            raise _NotLoaded(f"the new recognizer did not load ({engine.recognizer.status})")
        return
    status = next((s for s in engine.indicator_statuses if s.name == INDICATOR[kind]), None)
    if status is None or not status.available:
        raise _NotLoaded(f"the new {kind} model did not load ({status.reason if status else 'no indicator'})")


class _Timed:
    """The engine as ``evaluate_engine`` sees it: each document it annotates reports
    progress, and none starts after the deadline (so the evaluation stops in time)."""

    def __init__(self, engine, deadline: float, on_document: Callable[[], None]):
        self._engine = engine
        self._deadline = deadline
        self._on_document = on_document

    def annotate(self, *args, **kwargs):
        if time.monotonic() > self._deadline:
            raise _TimeUp
        result = self._engine.annotate(*args, **kwargs)
        self._on_document()
        return result

    def __getattr__(self, name):
        return getattr(self._engine, name)


def time_limit_s() -> float:
    return float(settings.SANITIZE_TRAINING.get("comparison_time_limit_s") or DEFAULT_TIME_LIMIT_S)


def in_use_label(model: TrainedModel) -> str:
    """The model of ``model``'s kind in use now: a version's label, or "" for the default."""
    active = TrainedModel.objects.filter(corpus=model.corpus_id, kind=model.kind, is_active=True).first()
    return active.label if active else ""


def engine_configs(model: TrainedModel, candidate_path: Path) -> dict:
    in_use = engine_config(model.corpus)
    candidate = dataclasses.replace(
        in_use,
        **{CONFIG_FIELD[model.kind]: str(candidate_path)},
        model_version=f"{in_use.model_version} with {model.label}"[:100],
    )
    return {"candidate": candidate, "in_use": in_use, "zero_shot": engine_config(None)}


def compare_engines(model: TrainedModel, candidate_path: Path, heldout: list[dict], progress: Progress) -> dict:
    """The three engines' metrics on ``heldout`` ({"candidate": ..., "in_use": ...,
    "zero_shot": ..., "in_use_model": label, "documents": n}); progress goes from 0 to 1."""
    comparison = {"in_use_model": in_use_label(model), "documents": len(heldout)}
    if not heldout:
        return {**comparison, "skipped": "no held-out documents to compare on"}
    from sanitize_app.engine.evaluation import official_token_filter
    from sanitize_app.engine.preannotation import PreannotationEngine

    configs = engine_configs(model, candidate_path)
    shared = {"search_backend": search_backend(), "statistics": corpus_statistics(model.corpus)}
    token_filter = official_token_filter()
    # The zero-shot engine is the one in use when the corpus has no promoted model.
    same = configs["zero_shot"] == configs["in_use"]
    names = [name for name in ENGINES if not (same and name == "zero_shot")]
    deadline = time.monotonic() + time_limit_s()
    steps = len(names) * len(heldout)
    done = [0]

    def on_document():
        done[0] += 1
        progress(done[0] / steps, "")

    for position, name in enumerate(names, start=1):
        progress(done[0] / steps, f"comparing: the {name.replace('_', '-')} engine on {len(heldout)} documents")
        try:
            engine = PreannotationEngine(configs[name], **shared)
            if name == "candidate":
                _check_candidate(model.kind, engine)
            comparison[name] = _score(_Timed(engine, deadline, on_document), heldout, token_filter)
        except _TimeUp:
            comparison[name] = {"skipped": f"the comparison's time limit ({time_limit_s():.0f} s) was reached"}
        except _NotLoaded as exc:
            comparison[name] = {"error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - one engine that fails to load is recorded, not fatal
            comparison[name] = {"error": f"{exc.__class__.__name__}: {exc}"[:500]}
        comparison[name]["engine"] = configs[name].model_version
        done[0] = position * len(heldout)  # an engine that stopped early counts as done
        progress(done[0] / steps, "")
    if same:
        comparison["zero_shot"] = {**comparison["in_use"], "same_as": "in_use"}
    return comparison


def _score(engine, heldout: list[dict], token_filter) -> dict:
    from sanitize_app.engine.training.heldout import evaluate_engine

    metrics = evaluate_engine(engine, heldout, token_filter=token_filter)
    if not metrics:
        return {"skipped": "no held-out document has an annotated layer"}
    return {"documents": metrics["documents"], **{key: metrics[key] for key in KEPT if key in metrics}}
