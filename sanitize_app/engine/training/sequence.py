"""Fine-tuning the sequence-labelling indicator's model: a transformer token classifier
(NO_MASK = 0, MASK = 1) on annotators' layers, as in the TAB paper's Longformer
baseline.

A subword is labelled MASK when it shares a word character with a mention its
annotator marked DIRECT or QUASI; each layer is one example. Long documents are cut
into overlapping windows of ``window`` tokens (special tokens included, at most the
backbone's maximum) where consecutive windows share ``stride`` tokens (Hugging Face's
meaning of stride). The loss is weighted by ``class_weight`` = (MASK, NO_MASK), (10, 1)
in the paper: missing a token to mask costs ten times more than masking one too many.

The backbone is a local directory or a name in the local Hugging Face cache (nothing is
downloaded). When it is the pretrained encoder (the configured ``EngineConfig.encoder``
or a recorded encoder package, by name or by its directory) its weights are checked
first (``encoder.check_encoder``): a file whose SHA-256 differs from the recorded one
refuses training with the error, and the result records which encoder was fine-tuned.
The saved directory is what ``EngineConfig(sequence_model=path)`` (or
``SANITIZE_SEQUENCE_MODEL``) loads."""

import os
import random
from dataclasses import replace
from pathlib import Path

from ..encoder import EncoderError, check_encoder, locate_encoder, recorded_encoders
from ..evaluation import GoldCorpus, evaluate, official_token_filter
from ..indicators.sequence_labelling import token_mask_probabilities
from ..preannotation import EngineConfig, PreannotationEngine
from .heldout import corpus_statistics, evaluate_engine
from .layers import Layer, layers_of
from .result import Clock, Progress, TrainingError, TrainingResult, doc_ids

LABELS = {0: "NO_MASK", 1: "MASK"}


def _load_backbone(backbone: str, device: str):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never download
    try:
        from transformers import AutoModelForTokenClassification, AutoTokenizer
        from transformers.utils import logging

        logging.disable_progress_bar()
        tokenizer = AutoTokenizer.from_pretrained(backbone, local_files_only=True)
        model = AutoModelForTokenClassification.from_pretrained(
            backbone,
            num_labels=2,
            id2label=LABELS,
            label2id={v: k for k, v in LABELS.items()},
            ignore_mismatched_sizes=True,
            local_files_only=True,
        )
    except (OSError, ValueError, ImportError, KeyError) as exc:
        raise TrainingError(f"backbone {backbone!r} cannot be loaded (no local weights?): {exc}") from exc
    if not getattr(tokenizer, "is_fast", False):
        raise TrainingError(f"backbone {backbone!r} has no fast tokenizer (character offsets are needed)")
    try:
        model.to(device)
    except (RuntimeError, AssertionError, ValueError) as exc:
        raise TrainingError(f"device {device!r} cannot be used: {exc}") from exc
    return tokenizer, model


def _encoder_setting_of(backbone: str, config: EngineConfig) -> str | None:
    """The encoder setting ``backbone`` names (the setting itself, or the directory it
    locates to); None for any other backbone."""
    candidates = [config.encoder] if config.encoder else []
    candidates += [name for name in recorded_encoders() if name not in candidates]
    if backbone in candidates:
        return backbone
    path = Path(backbone).expanduser()
    if not path.is_dir():
        return None
    for name in candidates:
        try:
            directory = locate_encoder(name)
        except EncoderError:
            continue  # not installed: it cannot be the directory given
        if directory is not None and directory.resolve() == path.resolve():
            return name
    return None


def _checked_backbone(backbone: str, config: EngineConfig) -> tuple[str, dict]:
    """(what to load, what the result records about it). The encoder is checked before
    it is loaded: a corrupted or replaced weights file must not be fine-tuned."""
    setting = _encoder_setting_of(backbone, config)
    if setting is None:
        return backbone, {"backbone": backbone, "backbone_encoder": None}
    expected = config.encoder_sha256 if setting == config.encoder else ""
    try:
        files = check_encoder(setting, expected)
    except EncoderError as exc:
        raise TrainingError(f"backbone {backbone!r} refused: {exc}") from exc
    return str(files.directory), {
        "backbone": backbone,
        "backbone_encoder": files.description,
        "backbone_sha256": files.sha256,
    }


def _windows(tokenizer, layer: Layer, size: int, overlap: int) -> list[tuple[list[int], list[int]]]:
    """(input ids with special tokens, labels with -100 on them) of every window."""
    encoding = tokenizer(layer.text, add_special_tokens=False, return_offsets_mapping=True)
    masked = layer.masked_offsets()
    ids = encoding["input_ids"]
    labels = [int(any(i in masked for i in range(s, e))) for s, e in encoding["offset_mapping"]]
    content = size - 2
    step = max(1, content - overlap)
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    windows = []
    for left in range(0, max(1, len(ids)), step):
        chunk = ids[left : left + content]
        windows.append(([cls, *chunk, sep], [-100, *labels[left : left + content], -100]))
        if left + content >= len(ids):
            break
    return windows


def _batches(windows, batch_size: int, pad_id: int, device: str):
    import torch

    for i in range(0, len(windows), batch_size):
        batch = windows[i : i + batch_size]
        width = max(len(ids) for ids, _ in batch)
        ids = [w + [pad_id] * (width - len(w)) for w, _ in batch]
        labels = [y + [-100] * (width - len(y)) for _, y in batch]
        attention = [[1] * len(w) + [0] * (width - len(w)) for w, _ in batch]
        yield (
            torch.tensor(ids, device=device),
            torch.tensor(attention, device=device),
            torch.tensor(labels, device=device),
        )


def _tagger_metrics(tokenizer, model, heldout: list[dict], annotators, window: int, stride: int) -> dict:
    """The fine-tuned model alone: every subword with P(MASK) >= 0.5 masked. ``window``
    and ``stride`` as ``token_mask_probabilities`` takes them: content tokens, step."""
    masked = {}
    with_layers = {layer.doc_id for layer in layers_of(heldout, annotators)}
    documents = [d for d in heldout if str(d["doc_id"]) in with_layers]
    for document in documents:
        tokens = token_mask_probabilities(tokenizer, model, document["text"], window=window, stride=stride)
        masked[str(document["doc_id"])] = [(s, e) for s, e, p in tokens if p >= 0.5 and e > s]
    if not masked:
        return {}
    report = evaluate(GoldCorpus.from_tab(documents, annotators), masked, token_filter=official_token_filter())
    return {
        k: v for k, v in report.as_dict().items() if k in ("ER_di", "ER_qi", "WP", "token_recall", "token_precision")
    }


def train_sequence_labeller(
    train: list[dict],
    heldout: list[dict],
    out_dir: Path,
    *,
    backbone: str,
    device: str = "cpu",
    window: int = 512,
    stride: int = 128,
    class_weight: tuple[float, float] = (10.0, 1.0),
    epochs: int = 1,
    progress: Progress | None = None,
    time_limit_s: float | None = None,
    annotators: list[str] | None = None,
    learning_rate: float = 5e-5,
    batch_size: int = 4,
    seed: int = 13,
    engine_config: EngineConfig | None = None,
) -> TrainingResult:
    """Fine-tune, save to ``out_dir``, evaluate on ``heldout`` (the tagger alone under
    ``metrics["tagger"]``, and the engine with it as its sequence-labelling indicator).
    The time limit is checked before every batch; stopped by it, the model keeps the
    steps it took."""
    import torch

    clock = Clock(time_limit_s, progress)
    if epochs < 1 or batch_size < 1 or learning_rate <= 0:
        raise TrainingError(
            f"bad sequence-labelling settings: epochs={epochs}, batch_size={batch_size}, lr={learning_rate}"
        )
    if len(class_weight) != 2 or min(class_weight) <= 0:
        raise TrainingError(f"class_weight must be two positive weights (MASK, NO_MASK), not {class_weight}")
    layers = [layer for layer in layers_of(train, annotators) if layer.text.strip()]
    if not layers:
        raise TrainingError("no training data: the training documents have no annotated layer")
    directory, backbone_record = _checked_backbone(backbone, engine_config or EngineConfig())
    torch.manual_seed(seed)
    tokenizer, model = _load_backbone(directory, device)
    limit = (getattr(model.config, "max_position_embeddings", 512) or 512) - 2
    size = min(window, limit)
    if stride >= size - 2:
        raise TrainingError(f"stride ({stride}) must be smaller than the window's content ({size - 2} tokens)")
    windows = [w for layer in layers for w in _windows(tokenizer, layer, size, stride)]
    if not any(label == 1 for _, labels in windows for label in labels):
        raise TrainingError("no training data: no annotator masked anything in the training layers")
    weights = torch.tensor([class_weight[1], class_weight[0]], dtype=torch.float, device=device)
    loss_function = torch.nn.CrossEntropyLoss(weight=weights, ignore_index=-100)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    shuffle = random.Random(seed)
    steps, done, losses, stopped_early = 0, 0, [], False
    total = epochs * ((len(windows) + batch_size - 1) // batch_size)
    model.train()
    for epoch in range(epochs):
        shuffle.shuffle(windows)
        epoch_loss = 0.0
        for ids, attention, labels in _batches(windows, batch_size, pad_id, device):
            if clock.expired:
                stopped_early = True
                break
            logits = model(input_ids=ids, attention_mask=attention).logits
            loss = loss_function(logits.reshape(-1, 2), labels.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            steps += 1
            epoch_loss += loss.item()
            clock.report(
                0.8 * steps / total, f"epoch {epoch + 1}/{epochs}, step {steps}/{total}: loss {loss.item():.3f}"
            )
        if epoch_loss:
            done += 1
            losses.append(round(epoch_loss, 4))
        if stopped_early:
            break
    if steps == 0:
        raise TrainingError(f"time limit of {time_limit_s} s reached before the sequence labeller took a step")
    model.eval()
    out_dir = Path(out_dir)
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    clock.report(0.8, "evaluating on the held-out documents")
    metrics = {}
    if heldout:
        metrics["tagger"] = _tagger_metrics(tokenizer, model, heldout, annotators, size - 2, size - 2 - stride)
        config = replace(engine_config or EngineConfig(), sequence_model=str(out_dir), device=device)
        engine = PreannotationEngine(config, statistics=corpus_statistics(train, heldout))
        metrics.update(evaluate_engine(engine, heldout, annotators))
    metrics.update(examples=len(windows), layers=len(layers), backbone=backbone_record["backbone_encoder"] or backbone)
    clock.report(1.0, "done")
    return TrainingResult(
        kind="sequence",
        path=out_dir,
        metrics=metrics,
        config={
            **backbone_record,
            "device": device,
            "window": size,
            "stride": stride,
            "class_weight": {"MASK": class_weight[0], "NO_MASK": class_weight[1]},
            "epochs": done,
            "max_epochs": epochs,
            "steps": steps,
            "learning_rate": learning_rate,
            "batch_size": batch_size,
            "seed": seed,
            "losses": losses,
            "stopped_early": stopped_early,
            "time_limit_s": time_limit_s,
            "annotators": annotators,
            "engine_config": {"sequence_model": str(out_dir), "device": device},
        },
        duration_s=round(clock.elapsed, 3),
        train_documents=doc_ids(train),
        heldout_documents=doc_ids(heldout),
    )
