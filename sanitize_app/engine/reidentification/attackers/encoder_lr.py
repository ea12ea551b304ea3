"""An attacker on frozen encoder embeddings: each window of pretreated words is embedded
by the pretrained encoder (mean of its last hidden states over at most ``max_tokens``
word pieces), and a logistic regression learns the person from the embedding. A
document's score for a person is the sum of its windows' log-probabilities; what each
word adds is measured by occlusion (``occlusion``)."""

from collections.abc import Sequence

import numpy as np

from ...encoder import DEFAULT_ENCODER, EncoderError, check_encoder, load_encoder
from ..types import BackgroundText
from ..windows import STRIDE, WINDOW
from .base import document_windows, people_of, training_windows
from .occlusion import OCCLUDED_LEMMAS, occlusion_contributions, people_per_lemma


class EncoderLrAttacker:
    name = "encoder-lr"

    def __init__(
        self,
        *,
        encoder: str = DEFAULT_ENCODER,
        encoder_sha256: str = "",
        window: int = WINDOW,
        stride: int = STRIDE,
        C: float = 10.0,
        max_tokens: int = 256,
        batch_size: int = 32,
        augment: bool = True,
        occluded_lemmas: int = OCCLUDED_LEMMAS,
    ):
        self.encoder, self.encoder_sha256 = encoder or DEFAULT_ENCODER, encoder_sha256
        self.window, self.stride, self.C = window, stride, C
        self.max_tokens, self.batch_size, self.augment = max_tokens, batch_size, augment
        self.occluded_lemmas = occluded_lemmas
        self.people: list[str] = []
        self.fit_seconds = 0.0  # set by attack.fit_attacker
        self.classifier = None
        self._people_per: dict[str, int] = {}
        self._loaded = None  # (files, tokenizer, model)

    def describe(self) -> dict:
        files = self._files()
        return {
            "features": "mean-pooled frozen encoder embeddings",
            "encoder": files.description,
            "max_tokens": self.max_tokens,
            "classifier": "LogisticRegression",
            "C": self.C,
            "window": self.window,
            "stride": self.stride,
            "augment": self.augment,
            "contributions": f"occlusion of the {self.occluded_lemmas} rarest distinct lemmas",
        }

    def _files(self):
        if self._loaded is None:
            files = check_encoder(self.encoder, self.encoder_sha256)
            if files is None:
                raise EncoderError("encoder-lr needs an encoder (none configured)")
            tokenizer, model = load_encoder(files)
            self._loaded = (files, tokenizer, model)
        return self._loaded[0]

    def embed(self, windows: list[list[str]]) -> np.ndarray:
        import torch

        self._files()
        _, tokenizer, model = self._loaded
        vectors = []
        with torch.no_grad():
            for start in range(0, len(windows), self.batch_size):
                batch = [" ".join(words) for words in windows[start : start + self.batch_size]]
                encoded = tokenizer(
                    batch, padding=True, truncation=True, max_length=self.max_tokens, return_tensors="pt"
                )
                hidden = model(**encoded).last_hidden_state
                mask = encoded["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                vectors.append((hidden * mask).sum(1) / mask.sum(1).clamp(min=1))
        return torch.cat(vectors).numpy() if vectors else np.zeros((0, model.config.hidden_size))

    def fit(self, background: Sequence[BackgroundText]) -> None:
        from sklearn.linear_model import LogisticRegression

        self.people = people_of(background)
        texts, labels = training_windows(
            background, self.people, size=self.window, stride=self.stride, augment=self.augment
        )
        self.classifier = LogisticRegression(C=self.C, max_iter=2000).fit(self.embed(texts), labels)
        self._people_per = people_per_lemma(background)

    def scores(self, documents: Sequence[Sequence[str]]) -> np.ndarray:
        if self.classifier is None:
            raise ValueError("encoder-lr: the attacker has not been fitted on a background")
        texts, owners = document_windows(documents, self.window, self.stride)
        totals = np.zeros((len(documents), len(self.people)))
        np.add.at(totals, owners, self.classifier.predict_log_proba(self.embed(texts)))
        return totals

    def contributions(self, words: Sequence[str], person: int) -> np.ndarray:
        return occlusion_contributions(self.scores, words, person, self._people_per, self.occluded_lemmas)
