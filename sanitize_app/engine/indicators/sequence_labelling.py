"""Sequence labelling: a token classifier (MASK / NO_MASK) fine-tuned on TAB layers.

An entity is risky if any of its tokens is labelled MASK (``mode="any"``, partial
match) or all of them (``"all"``, full match). Long documents are read in overlapping
windows."""

import os

from ..context import DocumentContext
from .base import IndicatorOutput, Judgement

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def load_token_classifier(path: str | None, device: str = "cpu"):
    """(tokenizer, model, reason)."""
    if not path:
        return None, None, "no sequence-labelling model configured (fine-tune one from confirmed layers)"
    try:
        from transformers import AutoModelForTokenClassification, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        model = AutoModelForTokenClassification.from_pretrained(path, local_files_only=True).to(device).eval()
        return tokenizer, model, ""
    except (OSError, ValueError, ImportError) as exc:
        return None, None, f"sequence-labelling model {path!r} could not be loaded: {exc}"


def mask_label_id(model) -> int:
    labels = {label.upper(): int(i) for i, label in model.config.id2label.items()}
    return labels.get("MASK", 1)


def _window_lefts(length: int, window: int, stride: int) -> list[int]:
    """Where each window starts: every ``stride`` subwords until one reaches the end."""
    lefts = []
    for left in range(0, max(1, length), stride):
        lefts.append(left)
        if left + window >= length:
            break
    return lefts


def token_mask_probabilities(tokenizer, model, text: str, window: int = 256, stride: int = 192, batch: int = 16):
    """[(start, end, P(MASK))] for every subword of ``text``, windows overlapping (a
    subword in several windows gets the mean of its probabilities). The windows go
    through the model ``batch`` at a time, padded and masked: one forward call for a
    typical document instead of one per window, with the same probabilities."""
    import torch

    encoding = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids, offsets = encoding["input_ids"], encoding["offset_mapping"]
    window = min(window, (getattr(model.config, "max_position_embeddings", 512) or 512) - 2)
    probabilities = [[] for _ in ids]
    mask_id = mask_label_id(model)
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    lefts = _window_lefts(len(ids), window, stride)
    for first in range(0, len(lefts), batch):
        chunks = [[cls, *ids[left : left + window], sep] for left in lefts[first : first + batch]]
        width = max(len(chunk) for chunk in chunks)
        inputs = torch.tensor([chunk + [pad] * (width - len(chunk)) for chunk in chunks], device=model.device)
        attention = torch.tensor([[1] * len(c) + [0] * (width - len(c)) for c in chunks], device=model.device)
        with torch.no_grad():
            logits = model(input_ids=inputs, attention_mask=attention).logits
        chunk_probs = torch.softmax(logits, dim=-1)[:, :, mask_id].tolist()
        for left, chunk, row in zip(lefts[first : first + batch], chunks, chunk_probs, strict=True):
            for i, p in enumerate(row[1 : len(chunk) - 1]):
                probabilities[left + i].append(p)
    return [(s, e, sum(p) / len(p)) for (s, e), p in zip(offsets, probabilities, strict=True) if p]


class SequenceLabellingIndicator:
    name = "sequence labelling"
    probabilistic = True  # the score is a token's P(MASK), the one the decision rests on

    def __init__(self, tokenizer, model, reason: str = "", mode: str = "any"):
        self.tokenizer, self.model, self._reason, self.mode = tokenizer, model, reason, mode

    @property
    def available(self) -> bool:
        return self.model is not None

    @property
    def unavailable_reason(self) -> str:
        return "" if self.model is not None else self._reason

    def assess(self, context: DocumentContext) -> IndicatorOutput:
        output = IndicatorOutput(self.name)
        tokens = token_mask_probabilities(self.tokenizer, self.model, context.text)
        for entity in context.entities:
            scores = [p for start, end in entity.mentions for s, e, p in tokens if s < end and start < e]
            if not scores:
                continue
            decide = any if self.mode == "any" else all
            risky = decide(p >= 0.5 for p in scores)
            score = max(scores) if self.mode == "any" else min(scores)
            output.entities[entity.index] = Judgement(
                score, risky, f"{self.name}: {sum(p >= 0.5 for p in scores)}/{len(scores)} tokens labelled MASK"
            )
        return output
