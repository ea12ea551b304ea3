"""The release engine as this installation configures it (``settings.SANITIZE_RELEASE``).

An LLM is used only when a base url is set. Its answers are cached in Django's cache
(Redis in production) so that workers share them and a redelivered batch does not ask
again. What the engine used is recorded with the release; the API key never is."""

import hashlib
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache

from sanitize_app.engine.release.engine import ReleaseEngine, build_release_engine

from ..models import Corpus, Document

# LLM answers depend only on the prompt (and model); a week keeps a corpus's answers
# for reruns without keeping them forever.
LLM_CACHE_TIMEOUT_S = 7 * 24 * 3600


class LLMAnswerCache:
    """``get``/``set`` over Django's cache, keys under "release-llm:" (hashed: a prompt
    is longer than some backends' key limit)."""

    prefix = "release-llm:"

    def __init__(self, timeout: int = LLM_CACHE_TIMEOUT_S):
        self.timeout = timeout

    def _key(self, key: str) -> str:
        return self.prefix + hashlib.sha256(key.encode("utf-8")).hexdigest()

    def get(self, key: str):
        return cache.get(self._key(key))

    def set(self, key: str, value, timeout: int | None = None) -> None:
        cache.set(self._key(key), value, timeout=self.timeout if timeout is None else timeout)


def release_settings() -> dict:
    return settings.SANITIZE_RELEASE


def llm_config():
    """The LLM client's configuration, or None when no base url is set."""
    configured = release_settings()
    if not configured.get("llm_base_url"):
        return None
    from sanitize_app.engine.release.llm import LLMConfig

    return LLMConfig(
        base_url=configured["llm_base_url"],
        model=configured.get("llm_model", ""),
        api_key=configured.get("llm_api_key", ""),
        timeout_s=configured.get("llm_timeout_s", 60),
        concurrency=configured.get("llm_concurrency", 2),
        retries=configured.get("llm_retries", 2),
    )


def release_engine(strategy: str, corpus: Corpus | None = None) -> ReleaseEngine:
    """The engine for ``strategy`` under the current settings, built once per process,
    configuration and corpus (the rule ladders load their data once). INTACT's matcher
    ignores the corpus's most frequent lemmas ("court", "applicant"): a guess sharing
    one with the original has not re-identified anything; they are counted again when
    the corpus gains documents."""
    configured = release_settings()
    key = tuple(sorted((name, str(value)) for name, value in configured.items()))
    scope = ()
    if strategy == "intact" and corpus is not None:
        scope = (corpus.pk, Document.objects.filter(corpus=corpus).count())
    return _engine(strategy, key, scope)


@lru_cache(maxsize=16)
def _engine(strategy: str, _settings_key: tuple, scope: tuple) -> ReleaseEngine:
    frequent: frozenset[str] = frozenset()
    if scope:
        from sanitize_app.engine.release.matching import frequent_lemmas

        texts = Document.objects.filter(corpus_id=scope[0]).values_list("text", flat=True).iterator(chunk_size=100)
        frequent = frozenset(frequent_lemmas(texts))
    return build_release_engine(
        strategy,
        llm_config=llm_config(),
        min_place_set=release_settings().get("min_place_set", 5),
        cache=LLMAnswerCache(),
        frequent_lemmas=frequent,
    )


def forget_release_engines() -> None:
    _engine.cache_clear()


def engine_description(engine: ReleaseEngine) -> dict:
    """What the engine used, for ``Release.settings``: its own description and the
    limits it ran under. No key, token or secret of any kind."""
    described = dict(engine.settings())
    configured = release_settings()
    if engine.strategy == "intact":
        described["min_place_set"] = configured.get("min_place_set", 5)
        described["frequent_lemmas_ignored"] = "the corpus's 100 most frequent content lemmas"
        if configured.get("llm_base_url"):
            described["llm_limits"] = {
                "timeout_s": configured.get("llm_timeout_s"),
                "concurrency": configured.get("llm_concurrency"),
                "retries": configured.get("llm_retries"),
            }
    secret = configured.get("llm_api_key")
    if secret and secret in repr(described):
        raise ValueError("the release engine's description contains the LLM API key")
    return described
