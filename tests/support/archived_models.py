"""Registry rows with a real archive in the default storage (``services.model_store``),
for tests that need a promoted model without training one."""

import tempfile
from pathlib import Path

from annotation.models import TrainedModel
from annotation.services import model_store


def archived_model(corpus, kind="recognizer", version=1, files=None, **fields) -> TrainedModel:
    """A succeeded ``TrainedModel`` whose archive holds ``files`` ({relative name: text};
    a stand-in directory model by default), stored as a training stores it."""
    files = files if files is not None else {"meta.json": '{"stand_in": true}'}
    model = TrainedModel(corpus=corpus, kind=kind, version=version, status="succeeded", **fields)
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch) / "model"
        for name, text in files.items():
            (directory / name).parent.mkdir(parents=True, exist_ok=True)
            (directory / name).write_text(text, encoding="utf-8")
        model_store.store(model, directory)
    model.save()
    return model
