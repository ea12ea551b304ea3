"""The masking classifier: P(an entity must be masked | its features), scikit-learn.

Trained on confirmed layers (the project's retraining loop); the class weight favours
recall (privacy first). Saved with its metadata: which features and which text
representation it was trained with, so an indicator can refuse a mismatching one."""

from dataclasses import dataclass, field
from pathlib import Path

import joblib
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline


@dataclass
class MaskingClassifier:
    pipeline: object
    meta: dict = field(default_factory=dict)

    @classmethod
    def train(
        cls, rows: list[dict[str, float]], labels: list[int], *, meta: dict | None = None, mask_weight: float = 3.0
    ) -> "MaskingClassifier":
        if len(set(labels)) < 2:
            raise ValueError("training a masking classifier needs examples of both masked and unmasked entities")
        pipeline = make_pipeline(
            DictVectorizer(sparse=True),
            LogisticRegression(max_iter=2000, class_weight={0: 1.0, 1: mask_weight}),
        )
        pipeline.fit(rows, labels)
        return cls(pipeline, dict(meta or {}, examples=len(labels), positives=int(sum(labels))))

    def probabilities(self, rows: list[dict[str, float]]) -> list[float]:
        if not rows:
            return []
        return [float(p) for p in self.pipeline.predict_proba(rows)[:, 1]]

    def save(self, path: Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        joblib.dump({"pipeline": self.pipeline, "meta": self.meta}, path)

    @classmethod
    def load(cls, path: Path) -> "MaskingClassifier":
        data = joblib.load(path)
        return cls(data["pipeline"], data["meta"])
