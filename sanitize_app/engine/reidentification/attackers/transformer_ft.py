"""An attacker that fine-tunes a transformer on the background's windows (the paper's
DistilBERT set-up; here any local Hugging Face encoder, the pretrained encoder by
default), with a sequence-classification head of one class per person. A document's score
for a person is the sum of its windows' logits; what each word adds is measured by
occlusion. Runs on CUDA when available, else on the CPU (slow: minutes per epoch on
small backgrounds)."""

from collections.abc import Sequence

import numpy as np

from ...encoder import DEFAULT_ENCODER, EncoderError, check_encoder
from ..types import BackgroundText
from ..windows import STRIDE, WINDOW
from .base import document_windows, people_of, training_windows
from .occlusion import OCCLUDED_LEMMAS, occlusion_contributions, people_per_lemma


class TransformerFtAttacker:
    name = "transformer-ft"

    def __init__(
        self,
        *,
        model: str = "",
        model_sha256: str = "",
        epochs: int = 3,
        batch_size: int = 16,
        learning_rate: float = 5e-5,
        seed: int = 0,
        window: int = WINDOW,
        stride: int = STRIDE,
        max_tokens: int = 256,
        augment: bool = True,
        device: str = "",
        occluded_lemmas: int = OCCLUDED_LEMMAS,
    ):
        if epochs < 1 or batch_size < 1:
            raise ValueError(f"transformer-ft: epochs and batch_size must be >= 1 (got {epochs}, {batch_size})")
        self.model_setting, self.model_sha256 = model or DEFAULT_ENCODER, model_sha256
        self.epochs, self.batch_size, self.learning_rate, self.seed = epochs, batch_size, learning_rate, seed
        self.window, self.stride, self.max_tokens, self.augment = window, stride, max_tokens, augment
        self.device, self.occluded_lemmas = device, occluded_lemmas
        self.people: list[str] = []
        self.fit_seconds = 0.0  # set by attack.fit_attacker
        self.files = None
        self.tokenizer = None
        self.model = None
        self._people_per: dict[str, int] = {}

    def _device(self) -> str:
        if self.device:
            return self.device
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"

    def describe(self) -> dict:
        files = self.files or check_encoder(self.model_setting, self.model_sha256)
        return {
            "model": files.description if files else self.model_setting,
            "head": "sequence classification, one class per person",
            "optimizer": "AdamW",
            "learning_rate": self.learning_rate,
            "epochs": self.epochs,
            "batch_size": self.batch_size,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "window": self.window,
            "stride": self.stride,
            "augment": self.augment,
            "device": self._device(),
            "contributions": f"occlusion of the {self.occluded_lemmas} rarest distinct lemmas",
        }

    def _load(self, people: list[str]):
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        files = check_encoder(self.model_setting, self.model_sha256)
        if files is None:
            raise EncoderError("transformer-ft needs a model (none configured)")
        try:
            tokenizer = AutoTokenizer.from_pretrained(files.directory, local_files_only=True)
            model = AutoModelForSequenceClassification.from_pretrained(
                files.directory,
                local_files_only=True,
                num_labels=len(people),
                id2label=dict(enumerate(people)),
                label2id={person: i for i, person in enumerate(people)},
                ignore_mismatched_sizes=True,  # a new head: one class per person
            )
        except (OSError, ValueError) as exc:
            raise EncoderError(f"transformer-ft: {files.directory} could not be loaded: {exc}") from exc
        return files, tokenizer, model.to(self._device())

    def _encode(self, windows: list[list[str]]):
        encoded = self.tokenizer(
            [" ".join(words) for words in windows],
            padding=True,
            truncation=True,
            max_length=self.max_tokens,
            return_tensors="pt",
        )
        return {key: value.to(self.model.device) for key, value in encoded.items()}

    def fit(self, background: Sequence[BackgroundText]) -> None:
        import torch

        # torch's generator seeds the new head and dropout; the batch order has its own
        # generator below (Python's and numpy's global ones belong to the worker).
        torch.manual_seed(self.seed)
        self.people = people_of(background)
        texts, labels = training_windows(
            background, self.people, size=self.window, stride=self.stride, augment=self.augment
        )
        self.files, self.tokenizer, self.model = self._load(self.people)
        optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.learning_rate)
        order = np.random.default_rng(self.seed)
        self.model.train()
        for _ in range(self.epochs):
            for batch in np.array_split(order.permutation(len(texts)), max(1, -(-len(texts) // self.batch_size))):
                encoded = self._encode([texts[i] for i in batch])
                target = torch.tensor([labels[i] for i in batch], device=self.model.device)
                loss = self.model(**encoded, labels=target).loss
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        self.model.eval()
        self._people_per = people_per_lemma(background)

    def scores(self, documents: Sequence[Sequence[str]]) -> np.ndarray:
        import torch

        if self.model is None:
            raise ValueError("transformer-ft: the attacker has not been fitted on a background")
        texts, owners = document_windows(documents, self.window, self.stride)
        logits = []
        with torch.no_grad():
            for start in range(0, len(texts), self.batch_size):
                batch = self._encode(texts[start : start + self.batch_size])
                logits.append(self.model(**batch).logits.float().cpu().numpy())
        totals = np.zeros((len(documents), len(self.people)))
        np.add.at(totals, owners, np.concatenate(logits))
        return totals

    def contributions(self, words: Sequence[str], person: int) -> np.ndarray:
        return occlusion_contributions(self.scores, words, person, self._people_per, self.occluded_lemmas)
