"""A masked language model (any local Hugging Face ``*ForMaskedLM``), for the
LM-probability, span-classification and perturbation indicators and for information
content.

Nothing is ever downloaded: the model is loaded from a local directory (or a name
already in the local cache) with ``local_files_only``. When none is configured or it
cannot be loaded, ``load_masked_lm`` says why and the callers report themselves
unavailable."""

import math
import os
from dataclasses import dataclass

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

Span = tuple[int, int]


@dataclass
class LoadResult:
    model: "MaskedLanguageModel | None"
    reason: str  # why it is unavailable ("" when loaded)


def load_masked_lm(name_or_path: str | None, device: str = "cpu") -> LoadResult:
    if not name_or_path:
        return LoadResult(None, "no masked language model configured (set SANITIZE_MASKED_LM to a local model)")
    try:
        return LoadResult(MaskedLanguageModel(name_or_path, device), "")
    except (OSError, ValueError, ImportError) as exc:
        return LoadResult(None, f"masked language model {name_or_path!r} could not be loaded: {exc}".strip())


class MaskedLanguageModel:
    def __init__(self, name_or_path: str, device: str = "cpu", window: int = 256):
        import torch
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        self.torch = torch
        self.name = name_or_path
        self.tokenizer = AutoTokenizer.from_pretrained(name_or_path, local_files_only=True)
        self.model = AutoModelForMaskedLM.from_pretrained(name_or_path, local_files_only=True).to(device).eval()
        self.device = device
        limit = getattr(self.model.config, "max_position_embeddings", 512) or 512
        self.window = min(window, limit - 2)

    # -- tokenisation -------------------------------------------------------------
    def _encode(self, text: str) -> tuple[list[int], list[Span]]:
        encoding = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        return encoding["input_ids"], [tuple(o) for o in encoding["offset_mapping"]]

    def _tokens_in(self, offsets: list[Span], start: int, end: int) -> list[int]:
        return [i for i, (s, e) in enumerate(offsets) if s < end and start < e and e > s]

    def _window(self, positions: list[int], length: int) -> tuple[int, int]:
        """A window of at most ``self.window`` tokens centred on ``positions``."""
        centre = (positions[0] + positions[-1]) // 2 if positions else 0
        left = max(0, min(centre - self.window // 2, length - self.window))
        return left, min(length, left + self.window)

    # -- scoring ------------------------------------------------------------------
    def span_log_probs(self, text: str, target: Span, also_masked: list[Span] = ()) -> list[float]:
        """Log-probability of each subword of ``target`` when it (and ``also_masked``)
        is replaced by mask tokens, the rest of the text as context."""
        ids, offsets = self._encode(text)
        positions = self._tokens_in(offsets, *target)
        if not positions:
            return []
        left, right = self._window(positions, len(ids))
        window = list(ids[left:right])
        hidden = set(positions)
        for start, end in also_masked:
            hidden.update(self._tokens_in(offsets, start, end))
        for position in hidden:
            if left <= position < right:
                window[position - left] = self.tokenizer.mask_token_id
        logits = self._logits(window)
        log_probs = self.torch.log_softmax(logits, dim=-1)
        return [float(log_probs[p - left, ids[p]]) for p in positions if left <= p < right]

    def span_embedding(self, text: str, target: Span) -> list[float]:
        """Mean of the last hidden states over the span's subwords (unmasked)."""
        ids, offsets = self._encode(text)
        positions = self._tokens_in(offsets, *target)
        if not positions:
            return [0.0] * self.model.config.hidden_size
        left, right = self._window(positions, len(ids))
        hidden = self._hidden(list(ids[left:right]))
        rows = [hidden[p - left] for p in positions if left <= p < right]
        return [float(v) for v in self.torch.stack(rows).mean(dim=0)]

    def information_content(self, text: str, target: Span) -> float:
        """-log P(span | context): the sum of its subwords' negative log-probabilities."""
        return -sum(self.span_log_probs(text, target)) or 0.0

    def _with_special(self, ids: list[int]):
        full = [
            self.tokenizer.cls_token_id or self.tokenizer.bos_token_id,
            *ids,
            self.tokenizer.sep_token_id or self.tokenizer.eos_token_id,
        ]
        return self.torch.tensor([full], device=self.device)

    def _logits(self, ids: list[int]):
        with self.torch.no_grad():
            return self.model(input_ids=self._with_special(ids)).logits[0, 1:-1]

    def _hidden(self, ids: list[int]):
        with self.torch.no_grad():
            output = self.model(input_ids=self._with_special(ids), output_hidden_states=True)
        return output.hidden_states[-1][0, 1:-1]


def aggregate(log_probs: list[float]) -> list[float]:
    """min, max, mean, median and sum of a span's subword log-probabilities."""
    if not log_probs:
        return [0.0] * 5
    ordered = sorted(log_probs)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    values = [min(log_probs), max(log_probs), sum(log_probs) / len(log_probs), median, sum(log_probs)]
    return [v if math.isfinite(v) else -50.0 for v in values]
