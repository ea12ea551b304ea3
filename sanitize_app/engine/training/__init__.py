"""The retraining loop's engine side: training data from confirmed layers, a split by
document, the trainers and their held-out evaluation. Framework-free: nothing here
imports Django.

- ``split_documents``: train / held-out, by document (``split``);
- ``train_recognizer``: the recognizer's spaCy NER on the 8 TAB types (``recognizer``);
- ``train_masking_classifier``: P(mask | entity features), scikit-learn (``masking``);
- ``train_sequence_labeller``: a MASK / NO_MASK transformer token classifier (``sequence``).

Each returns a ``TrainingResult`` (where the model is, held-out metrics from
``heldout``, what it was trained with) or raises ``TrainingError`` saying why not."""

from .masking import train_masking_classifier
from .recognizer import train_recognizer
from .result import TrainingError, TrainingResult
from .sequence import train_sequence_labeller
from .split import kfold_documents, split_documents

__all__ = [
    "TrainingError",
    "TrainingResult",
    "kfold_documents",
    "split_documents",
    "train_masking_classifier",
    "train_recognizer",
    "train_sequence_labeller",
]
