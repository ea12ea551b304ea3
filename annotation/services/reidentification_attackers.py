"""Re-identification attackers fitted on a background collection, one per process.

Fitting reads the whole background (pretreated once and cached in the database, see
``background.pretreated_background``) and trains a classifier: seconds to minutes. The
release's guided masking, the workspace's risk meter and the release attack all ask for
the same fitted attacker, so a process keeps the last two, keyed by what they were fitted
on: the collection, the attacker and its settings, and the state of the background
(documents, newest id, pretreatment). A changed background is a new key: refitted."""

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from sanitize_app.engine.reidentification.attack import fit_attacker
from sanitize_app.engine.reidentification.attackers import build_attacker
from sanitize_app.engine.reidentification.pretreatment import DEFAULT_PIPELINE, Pretreatment
from sanitize_app.engine.reidentification.types import BackgroundText, ReidentificationAttacker

from ..corpus_io.errors import TabImportError
from ..models import BackgroundDocument, ReidentificationRun
from .background import background_state, pretreat_stale, pretreated_background, pretreated_file
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
    pipeline = settings.SANITIZE_ENGINE.get("spacy_pipeline") or DEFAULT_PIPELINE
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
    """The configured settings of attacker ``name`` (what ``build_attacker`` receives):
    the encoder's, or the transformer's that transformer-ft fine-tunes (on a GPU when
    there is one). The others' settings are the engine's defaults."""
    engine = settings.SANITIZE_ENGINE
    config = settings.SANITIZE_REIDENTIFICATION
    if name == ReidentificationRun.Attacker.ENCODER_LR:
        return {"encoder": engine.get("encoder", ""), "encoder_sha256": engine.get("encoder_sha256", "")}
    if name == ReidentificationRun.Attacker.TRANSFORMER_FT:
        own = config.get("transformer", "")
        return {
            "model": own or engine.get("encoder", ""),
            "model_sha256": "" if own else engine.get("encoder_sha256", ""),
            "epochs": config.get("transformer_epochs", 3),
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

    def pretreating(done: int, total: int) -> None:
        if progress:
            progress(PRETREATING, done, total)

    # Pretreating a new background takes minutes: done before the cache's lock, so
    # other threads' attackers are not held up meanwhile.
    pretreat_stale(collection, treat, pretreating)

    def build() -> FittedAttacker:
        background = pretreated_background(collection, treat, pretreating)
        if progress:
            progress(TRAINING, 0, 0)
        return fit(name, options, treat, background, collection=collection)

    return _fitted.get_or_build(key, build)


def background_attacker(
    background: str, attacker: str = "", *, progress: StageProgress | None = None
) -> FittedAttacker:
    """Attacker fitted on ``background``: a collection in the database, else a background
    file (WikiActors rows, ``{title, url, text}`` rows or JSON lines) pretreated in memory."""
    if BackgroundDocument.objects.filter(collection=background).exists():
        return fitted_attacker(background, attacker, progress=progress)
    path = Path(background)
    if not path.is_file():
        raise DomainError(
            f"The background {background!r} is neither a collection in the database nor a file.",
            field="background",
        )
    name = attacker_name(attacker)
    treat = pretreatment()

    def pretreating(done: int, total: int) -> None:
        if progress:
            progress(PRETREATING, done, total)

    try:
        texts = pretreated_file(path, treat, pretreating)
    except TabImportError as exc:
        raise DomainError(str(exc), field="background") from None
    if progress:
        progress(TRAINING, 0, 0)
    return fit(name, attacker_settings(name), treat, texts, collection=path.name)


def fit(
    name: str, options: dict, treat: Pretreatment, background: Sequence[BackgroundText], *, collection: str
) -> FittedAttacker:
    """Attacker ``name`` built with ``options`` and trained on ``background`` (also for a
    background read from a file, with no collection in the database)."""
    model = build_attacker(name, **options)
    seconds = fit_attacker(model, background)
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
