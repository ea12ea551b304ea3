"""The rule of guarded promotion: a model replaces the one in use without a written reason
only when the comparison on held-out documents shows it no worse on ER_di and ER_qi.

The evidence is the comparison stored with the model (``model_comparison``): the model
in use and the candidate scored on the same held-out documents. A reason is asked for
when that evidence shows a drop, and also when there is no such evidence: no held-out
documents, an engine that could not be scored, or a comparison with a model that is no
longer the one in use (privacy first: an unproven model is not promoted silently). The
beat schedule never overrides: it promotes only what needs no reason."""

from dataclasses import dataclass

from ..models import TrainedModel
from .model_comparison import in_use_label

GUARDED = ("ER_di", "ER_qi")
# Scores computed the same way on the same documents are equal when equal; the margin
# only absorbs floating-point noise, never a real drop.
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Drop:
    metric: str
    candidate: float
    in_use: float

    def __str__(self) -> str:
        return f"{self.metric} {self.candidate:.3f} against {self.in_use:.3f} in use"


def comparison_of(model: TrainedModel) -> dict:
    return (model.metrics or {}).get("comparison") or {}


def drops(comparison: dict) -> list[Drop]:
    """The guarded metrics on which the candidate scored lower than the model in use."""
    candidate, in_use = comparison.get("candidate") or {}, comparison.get("in_use") or {}
    return [
        Drop(metric, candidate[metric], in_use[metric])
        for metric in GUARDED
        if isinstance(candidate.get(metric), int | float)
        and isinstance(in_use.get(metric), int | float)
        and candidate[metric] < in_use[metric] - TOLERANCE
    ]


def _missing_evidence(model: TrainedModel, comparison: dict) -> str:
    if not comparison:
        return f"{model.label} was not compared with the model in use on held-out documents"
    if comparison.get("skipped") or comparison.get("error"):
        why = comparison.get("skipped") or comparison["error"]
        return f"{model.label} was not compared with the model in use: {why}"
    for name, words in (("candidate", model.label), ("in_use", "the model in use")):
        entry = comparison.get(name) or {}
        if any(not isinstance(entry.get(metric), int | float) for metric in GUARDED):
            why = entry.get("error") or entry.get("skipped") or "no score"
            return f"{words} could not be scored on the held-out documents ({why})"
    return ""


def _named(label: str) -> str:
    return label or "the configured default"


def active_labels(models) -> dict[tuple[int, str], str]:
    """The label of the model in use for each (corpus, kind) of ``models``, in one query
    (a registry page asks ``objection`` for every version)."""
    corpora = {model.corpus_id for model in models}
    active = TrainedModel.objects.filter(corpus_id__in=corpora, is_active=True)
    return {(m.corpus_id, m.kind): m.label for m in active.only("corpus_id", "kind", "version")}


def needs_reason(model: TrainedModel, active: dict | None = None) -> str:
    """``objection`` for a trained model ("" for one that is not trained); ``active``
    (``active_labels``) spares the query for the model in use."""
    if model.status != TrainedModel.Status.SUCCEEDED:
        return ""
    in_use = None if active is None else active.get((model.corpus_id, model.kind), "")
    return objection(model, in_use)


def objection(model: TrainedModel, in_use: str | None = None) -> str:
    """Why ``model`` needs a written reason to be promoted; "" when it needs none.
    ``in_use``: the label of the model in use now, when the caller knows it."""
    if model.is_active:
        return ""
    comparison = comparison_of(model)
    missing = _missing_evidence(model, comparison)
    if missing:
        return missing
    then = comparison.get("in_use_model", "")
    now = in_use_label(model) if in_use is None else in_use
    stale = f"; it was compared with {_named(then)}, and {_named(now)} is in use now" if then != now else ""
    found = drops(comparison)
    if found:
        where = f"on the same {comparison.get('documents', 0)} held-out documents"
        return f"{model.label} is worse than {_named(then)} {where}: {', '.join(map(str, found))}{stale}"
    if stale:
        return f"{model.label} has no comparison with the model in use{stale}"
    return ""


def refusal(model: TrainedModel, reason: str) -> str:
    """The promotion's refusal in words, or "" when it may go ahead with ``reason``."""
    found = objection(model)
    if not found or reason.strip():
        return ""
    return f"{found}. Give a written reason to promote it anyway."
