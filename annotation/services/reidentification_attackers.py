"""Re-identification attackers fitted on a background collection, one per process.

Fitting reads the whole background (pretreated once and cached in the database, see
``background.pretreated_background``) and trains a classifier: seconds to minutes. The
release's guided masking, the workspace's risk meter and the release attack all ask for
the same fitted attacker, so a process keeps the last two, keyed by what they were fitted
on: the collection, the attacker and its settings, and the state of the background
(documents, newest id, pretreatment). A changed background is a new key: refitted."""

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from django.conf import settings

from sanitize_app.engine.reidentification.attackers import build_attacker
from sanitize_app.engine.reidentification.pretreatment import Pretreatment
from sanitize_app.engine.reidentification.types import BackgroundText, ReidentificationAttacker

from ..models import ReidentificationRun
from .background import background_state, pretreated_background
from .errors import DomainError
from .process_cache import ProcessCache

# progress(stage, done, total): "pretreating the background" counts documents, "training" has none.
StageProgress = Callable[[str, int, int], None]
PRETREATING = "pretreating the background"
TRAINING = "training"

_pretreatments: ProcessCache[Pretreatment] = ProcessCache(keep=1)
_fitted: ProcessCache["FittedAttacker"] = ProcessCache(keep=2)


@dataclass
class FittedAttacker:
    attacker: ReidentificationAttacker  # fitted
    pretreatment: Pretreatment
    people: list[str]
    # What it is, for the record of every figure: attacker, settings, collection,
    # background (documents), people, pretreatment, fit_seconds.
    description: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.description.get("attacker", getattr(self.attacker, "name", ""))


def pretreatment() -> Pretreatment:
    """The process's pretreatment (a spaCy pipeline, loaded once)."""
    pipeline = settings.SANITIZE_ENGINE.get("spacy_pipeline") or "en_core_web_sm"
    return _pretreatments.get_or_build(pipeline, lambda: Pretreatment(pipeline=pipeline))


def attacker_name(attacker: str = "") -> str:
    """``attacker`` or the configured default, once known to be one of the attackers."""
    name = attacker or settings.SANITIZE_REIDENTIFICATION.get("attacker") or ReidentificationRun.Attacker.TFIDF_SVC
    if name not in ReidentificationRun.Attacker.values:
        raise DomainError(
            f"Unknown attacker {name!r}: one of {', '.join(ReidentificationRun.Attacker.values)}.", field="attacker"
        )
    return name


def attacker_settings(name: str) -> dict:
    """The configured settings of attacker ``name`` (what ``build_attacker`` receives)."""
    engine = settings.SANITIZE_ENGINE
    config = settings.SANITIZE_REIDENTIFICATION
    if name == ReidentificationRun.Attacker.ENCODER_LR:
        return {"encoder": engine.get("encoder", ""), "device": engine.get("device", "cpu")}
    if name == ReidentificationRun.Attacker.TRANSFORMER_FT:
        return {
            "model": config.get("transformer") or engine.get("encoder", ""),
            "epochs": config.get("transformer_epochs", 3),
            "device": engine.get("device", "cpu"),
        }
    return {}


def fitted_attacker(collection: str, attacker: str = "", *, progress: StageProgress | None = None) -> FittedAttacker:
    """Attacker ``attacker`` (default: the configured one) fitted on the background
    ``collection``, from this process's cache when the background has not changed.
    Refused, naming the field, for an unknown attacker or an empty collection."""
    name = attacker_name(attacker)
    options = attacker_settings(name)
    treat = pretreatment()
    key = (collection, name, json.dumps(options, sort_keys=True), *background_state(collection), treat.key)

    def build() -> FittedAttacker:
        def pretreating(done: int, total: int) -> None:
            if progress:
                progress(PRETREATING, done, total)

        background = pretreated_background(collection, treat, pretreating)
        if progress:
            progress(TRAINING, 0, 0)
        return fit(name, options, treat, background, collection=collection)

    return _fitted.get_or_build(key, build)


def fit(
    name: str, options: dict, treat: Pretreatment, background: Sequence[BackgroundText], *, collection: str
) -> FittedAttacker:
    """Attacker ``name`` built with ``options`` and trained on ``background`` (also for a
    background read from a file, with no collection in the database)."""
    model = build_attacker(name, **options)
    started = time.perf_counter()
    model.fit(background)
    seconds = time.perf_counter() - started
    description = {
        "attacker": name,
        "settings": model.describe(),
        "collection": collection,
        "background": len(background),
        "people": len(model.people),
        "pretreatment": treat.key,
        "fit_seconds": round(seconds, 3),
    }
    return FittedAttacker(attacker=model, pretreatment=treat, people=list(model.people), description=description)


def forget_fitted() -> None:
    """Drop this process's fitted attackers (tests; a background replaced in place)."""
    _fitted.clear()
