"""A client for an OpenAI-compatible chat completions endpoint (a llama.cpp, vLLM or
Ollama server the user runs, or a hosted one): ``POST {base_url}/chat/completions``.

A release may send hundreds of prompts, so every call is
- bounded in time: an httpx timeout per request;
- bounded in concurrency: a semaphore shared by every thread using the client (``map``
  runs several prompts with at most ``concurrency`` in flight);
- retried on transient errors only (connection errors, timeouts, HTTP 429/500/502/503/
  504) with a short exponential backoff; a 400/401/404 or a body that is not a chat
  completion will not get better by asking again;
- cached: the reply to the same model, messages and parameters is read from an injected
  cache (``get(key)`` / ``set(key, value)``; an in-memory dict by default, the Django
  side passes an adapter around its cache), so re-running a release costs no call.

An error is an ``LLMError`` naming the endpoint and the reason; the API key is never in
a message or a ``repr``."""

import hashlib
import json
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol

import httpx

Messages = list[dict[str, str]]

# Worth asking again: the server is busy, overloaded or restarting.
TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 504})
# The longest pause between two tries, whatever the server's Retry-After says: a release
# would rather fail this prompt (and generalize further) than hang.
MAX_BACKOFF_S = 10.0


class LLMError(Exception):
    """A call that failed after its retries; ``reason`` says why (status, timeout,
    unparsable body), ``endpoint`` where."""

    def __init__(self, endpoint: str, reason: str):
        super().__init__(f"LLM endpoint {endpoint}: {reason}")
        self.endpoint = endpoint
        self.reason = reason


@dataclass(frozen=True)
class LLMConfig:
    base_url: str  # e.g. "http://127.0.0.1:8080/v1"
    model: str
    api_key: str = field(default="", repr=False)
    timeout_s: float = 60
    concurrency: int = 2
    retries: int = 2  # tries after the first one
    temperature: float = 0.0  # the same prompt gets the same answer (and the cache is right to reuse it)
    max_tokens: int = 200  # five short lines
    backoff_s: float = 0.5  # first pause; doubled at each retry

    def __post_init__(self):
        if self.timeout_s <= 0:
            raise ValueError(f"LLMConfig.timeout_s must be positive, got {self.timeout_s!r}")
        if self.concurrency < 1:
            raise ValueError(f"LLMConfig.concurrency must be at least 1, got {self.concurrency!r}")
        if self.retries < 0:
            raise ValueError(f"LLMConfig.retries must be 0 or more, got {self.retries!r}")

    @property
    def endpoint(self) -> str:
        base = self.base_url.rstrip("/")
        # Some users paste the whole endpoint rather than the API's base.
        return base if base.endswith("/chat/completions") else base + "/chat/completions"


class Cache(Protocol):
    def get(self, key: str) -> str | None: ...

    def set(self, key: str, value: str) -> None: ...


class MemoryCache:
    """The default cache: a dict shared by the client's threads."""

    def __init__(self):
        self._values: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._values.get(key)

    def set(self, key: str, value: str) -> None:
        with self._lock:
            self._values[key] = value


def cache_key(model: str, messages: Messages, params: dict) -> str:
    """SHA-256 of what determines the reply (never the key or the URL: the same model
    behind another address answers the same)."""
    payload = json.dumps({"model": model, "messages": messages, "params": params}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class _Transient(Exception):
    """A failed try worth retrying; ``retry_after`` is the server's hint, if any."""

    def __init__(self, reason: str, retry_after: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class LLMClient:
    def __init__(self, config: LLMConfig, cache: Cache | None = None, transport: httpx.BaseTransport | None = None):
        self.config = config
        self.cache = cache if cache is not None else MemoryCache()
        self._slots = threading.BoundedSemaphore(config.concurrency)
        headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        self._http = httpx.Client(timeout=config.timeout_s, headers=headers, transport=transport)
        self._counts_lock = threading.Lock()
        self.requests_sent = 0  # HTTP requests, retries included
        self.cache_hits = 0

    def describe(self) -> str:
        return f"{self.config.model} at {self.config.base_url}"

    def close(self) -> None:
        self._http.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- one prompt ---------------------------------------------------------------
    def complete(self, messages: Messages, *, temperature: float | None = None, max_tokens: int | None = None) -> str:
        """The assistant's reply to ``messages`` (from the cache when it was asked
        before); raises ``LLMError`` once the retries are spent."""
        params = {
            "temperature": self.config.temperature if temperature is None else temperature,
            "max_tokens": self.config.max_tokens if max_tokens is None else max_tokens,
        }
        key = cache_key(self.config.model, messages, params)
        cached = self.cache.get(key)
        if cached is not None:
            self._count(cache_hit=True)
            return cached
        reply = self._with_retries({"model": self.config.model, "messages": messages, **params})
        self.cache.set(key, reply)
        return reply

    def _with_retries(self, payload: dict) -> str:
        tries = self.config.retries + 1
        for attempt in range(tries):
            try:
                with self._slots:
                    return self._post(payload)
            except _Transient as failure:
                if attempt == tries - 1:
                    raise self._error(f"{failure.reason} (after {tries} tries)") from None
                pause = self.config.backoff_s * 2**attempt
                if failure.retry_after is not None:
                    pause = max(pause, failure.retry_after)
                # Outside the semaphore: a waiting retry must not hold another prompt's slot.
                time.sleep(min(pause, MAX_BACKOFF_S))
        raise AssertionError("unreachable")

    def _post(self, payload: dict) -> str:
        self._count()
        try:
            response = self._http.post(self.config.endpoint, json=payload)
        except httpx.TimeoutException:
            raise _Transient(f"no answer within {self.config.timeout_s:g} s (timeout)") from None
        except httpx.TransportError as exc:
            raise _Transient(f"connection failed ({type(exc).__name__}: {self._scrub(str(exc))})") from None
        if response.status_code in TRANSIENT_STATUSES:
            raise _Transient(f"HTTP {response.status_code}", _retry_after(response))
        if response.status_code != 200:
            raise self._error(f"HTTP {response.status_code}: {self._scrub(_snippet(response.text))}")
        return self._content(response)

    def _content(self, response: httpx.Response) -> str:
        try:
            body = response.json()
        except ValueError:
            raise self._error(f"unparsable body (not JSON): {self._scrub(_snippet(response.text))!r}") from None
        try:
            content = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise self._error(
                f"unparsable body (no choices[0].message.content): {self._scrub(_snippet(response.text))!r}"
            ) from None
        if not isinstance(content, str):
            # Some servers send null content with a tool call or a filtered answer.
            raise self._error(f"unparsable body (message content is {type(content).__name__}, not text)")
        return content

    # -- several prompts ----------------------------------------------------------
    def map(self, conversations: Sequence[Messages], **params) -> list["str | LLMError"]:
        """The replies to several prompts, in order, with at most ``concurrency`` in
        flight; a prompt that failed gives its ``LLMError`` in its place instead of
        losing the others' replies."""
        if not conversations:
            return []

        def one(messages: Messages) -> "str | LLMError":
            try:
                return self.complete(messages, **params)
            except LLMError as error:
                return error

        with ThreadPoolExecutor(max_workers=self.config.concurrency, thread_name_prefix="llm") as pool:
            return list(pool.map(one, conversations))

    # -- helpers ------------------------------------------------------------------
    def _error(self, reason: str) -> LLMError:
        return LLMError(self.config.endpoint, self._scrub(reason))

    def _scrub(self, text: str) -> str:
        """A server may echo the request headers in an error: the key never goes further."""
        key = self.config.api_key
        return text.replace(key, "***") if key else text

    def _count(self, cache_hit: bool = False) -> None:
        with self._counts_lock:
            if cache_hit:
                self.cache_hits += 1
            else:
                self.requests_sent += 1


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return float(response.headers.get("retry-after", ""))
    except ValueError:
        return None


def _snippet(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


@dataclass
class LLMLoadResult:
    client: LLMClient | None
    reason: str  # why no client ("" when there is one)


def build_llm_client(config: LLMConfig | None, cache: Cache | None = None) -> LLMLoadResult:
    """A client, or the reason there is none (like ``lm.load_masked_lm``): the callers
    then use the offline attacker and the rule candidates and say so in the release."""
    if config is None or not config.base_url:
        return LLMLoadResult(
            None, "no LLM endpoint configured (set SANITIZE_LLM_BASE_URL to an OpenAI-compatible server)"
        )
    if not config.base_url.startswith(("http://", "https://")):
        return LLMLoadResult(None, f"LLM base URL {config.base_url!r} is not an http(s) URL")
    if not config.model:
        return LLMLoadResult(None, f"no LLM model configured for {config.base_url} (set SANITIZE_LLM_MODEL)")
    return LLMLoadResult(LLMClient(config, cache), "")
