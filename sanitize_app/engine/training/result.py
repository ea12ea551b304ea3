"""What a training run returns, the error it raises, and its clock.

Every trainer returns a ``TrainingResult``: where the model was saved, its held-out
metrics, what it was trained with and on which documents. A trainer that cannot train
(no data, one class only, a bad configuration, a model that cannot be loaded, a time
limit reached before anything was learned) raises ``TrainingError`` with a message that
names what is wrong."""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

Progress = Callable[[float, str], None]


class TrainingError(Exception):
    """A model could not be trained; the message says why."""


@dataclass
class TrainingResult:
    kind: str  # "recognizer" | "masking" | "sequence"
    path: Path  # a directory for spaCy and transformers models, a file for the classifier
    metrics: dict  # held-out metrics (see ``training.heldout``) and the number of training examples
    config: dict  # hyper-parameters, base model, seed, epochs actually run, stopped_early
    duration_s: float
    train_documents: list[str] = field(default_factory=list)
    heldout_documents: list[str] = field(default_factory=list)


class Clock:
    """The time limit of a run (None: no limit) and its progress reports."""

    def __init__(self, time_limit_s: float | None, progress: Progress | None = None):
        if time_limit_s is not None and time_limit_s < 0:
            raise TrainingError(f"the time limit must be a positive number of seconds, not {time_limit_s}")
        self.started = time.perf_counter()
        self.time_limit_s = time_limit_s
        self._progress = progress

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    @property
    def expired(self) -> bool:
        return self.time_limit_s is not None and self.elapsed >= self.time_limit_s

    def report(self, fraction: float, message: str) -> None:
        if self._progress is not None:
            self._progress(min(1.0, max(0.0, fraction)), message)


def doc_ids(documents: list[dict]) -> list[str]:
    return [str(document["doc_id"]) for document in documents]
