"""Where a training writes its model before it is archived (``model_store``): a scratch
directory per attempt under ``SANITIZE_MODEL_ROOT``, on the worker's own disk."""

import shutil
from pathlib import Path

from django.conf import settings

from ..models import TrainedModel


def model_root() -> Path:
    return Path(settings.SANITIZE_MODEL_ROOT)


def scratch_dir(model: TrainedModel) -> Path:
    """Where this attempt writes the model while training it (archived, then removed).
    Each attempt has its own: a worker declared lost while still alive and the attempt
    that took over on the same host never remove each other's files."""
    return model_root() / f"corpus-{model.corpus_id}" / model.kind / f"v{model.version}" / f"attempt-{model.attempts}"


def clear_earlier_attempts(model: TrainedModel) -> None:
    """Remove what earlier attempts of this training left on this host (a killed worker
    cleans nothing): they are fenced off, and whatever they still write is discarded."""
    for folder in scratch_dir(model).parent.glob("attempt-*"):
        number = folder.name.removeprefix("attempt-")
        if number.isdigit() and int(number) < model.attempts:
            shutil.rmtree(folder, ignore_errors=True)
