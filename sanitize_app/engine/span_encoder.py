"""The pretrained encoder's representation of spans in their context.

The document is read once, in overlapping windows of subwords; each subword keeps the
last hidden state of the window in which it sits farthest from an edge (most context
on both sides), and a span's representation is the mean over its subwords. One pass
per document whatever the number of spans: what the span classifier needs for every
entity of a document at once.

The encoder is loaded (and its checksum verified, ``encoder.check_encoder``) on first
use, so an engine that never asks for a representation never pays for it."""

from threading import Lock

from .encoder import EncoderError, check_encoder, load_encoder

Span = tuple[int, int]


class ContextualSpanEncoder:
    def __init__(self, setting: str | None, device: str = "cpu", *, sha256: str = "", window: int = 256, overlap=64):
        self.setting, self.device, self.sha256 = setting or "", device, sha256
        self.window, self.overlap = window, overlap
        self._model = self._tokenizer = None
        self.weights_sha256 = ""  # of the weights loaded: what a trained classifier records
        self._reason = "" if setting else "no encoder configured (SANITIZE_ENCODER is empty)"
        self._lock = Lock()

    @property
    def name(self) -> str:
        return f"encoder:{self.setting}"

    @property
    def available(self) -> bool:
        return self._load()

    @property
    def unavailable_reason(self) -> str:
        self._load()
        return self._reason

    @property
    def dimensions(self) -> int:
        return self._model.config.hidden_size if self._load() else 0

    def _load(self) -> bool:
        with self._lock:
            if self._model is None and not self._reason:
                try:
                    files = check_encoder(self.setting, self.sha256)
                    self._tokenizer, self._model = load_encoder(files, self.device)
                    self.weights_sha256 = files.sha256
                except EncoderError as exc:
                    self._reason = str(exc)
        return self._model is not None

    def span_embeddings(self, text: str, spans: list[Span]) -> list[list[float]]:
        """One vector per span (zeros for a span with no subword, an empty span
        included); [] for no span."""
        if not spans:
            return []
        if not self._load():
            raise EncoderError(self._reason)
        states = self._token_states(text)
        offsets = states["offsets"]
        vectors = []
        for start, end in spans:
            rows = [i for i, (s, e) in enumerate(offsets) if s < end and start < e and e > s] if end > start else []
            if rows:
                vectors.append([float(v) for v in states["hidden"][rows].mean(dim=0)])
            else:
                vectors.append([0.0] * self.dimensions)
        return vectors

    def _token_states(self, text: str, batch: int = 16) -> dict:
        """{"offsets": subword offsets, "hidden": (subwords x hidden) tensor}. The
        windows go through the model ``batch`` at a time (padded, masked)."""
        import torch

        encoding = self._tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        ids, offsets = encoding["input_ids"], encoding["offset_mapping"]
        limit = (getattr(self._model.config, "max_position_embeddings", 512) or 512) - 2
        size = min(self.window, limit)
        step = max(1, size - self.overlap)
        hidden = torch.zeros((len(ids), self._model.config.hidden_size))
        best = [-1] * len(ids)  # distance to the nearer window edge of the state kept
        lefts = list(range(0, max(1, len(ids) - self.overlap), step)) or [0]
        for first in range(0, len(lefts), batch):
            chunks = [ids[left : left + size] for left in lefts[first : first + batch]]
            for left, chunk, states in zip(lefts[first : first + batch], chunks, self._states(chunks), strict=True):
                for i in range(len(chunk)):
                    margin = min(i, len(chunk) - 1 - i)
                    if margin > best[left + i]:
                        best[left + i] = margin
                        hidden[left + i] = states[i]
        return {"offsets": offsets, "hidden": hidden}

    def _states(self, chunks: list[list[int]]) -> list:
        """The last hidden states of each chunk's subwords, the chunks read in one call."""
        import torch

        cls, sep = self._tokenizer.cls_token_id, self._tokenizer.sep_token_id
        pad = self._tokenizer.pad_token_id if self._tokenizer.pad_token_id is not None else 0
        width = max(len(chunk) for chunk in chunks) + 2
        inputs = [[cls, *chunk, sep] + [pad] * (width - len(chunk) - 2) for chunk in chunks]
        attention = [[1] * (len(chunk) + 2) + [0] * (width - len(chunk) - 2) for chunk in chunks]
        with torch.no_grad():
            output = self._model(
                input_ids=torch.tensor(inputs, device=self._model.device),
                attention_mask=torch.tensor(attention, device=self._model.device),
            )
        states = output.last_hidden_state.to("cpu")
        return [states[row, 1 : 1 + len(chunk)] for row, chunk in enumerate(chunks)]
