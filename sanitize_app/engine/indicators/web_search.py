"""Web search: would searching for the span lead to the person?

For the person to protect P and an entity E (or a pair of entities), the indicator
asks a search backend for the top results ("URLs") of P and of E: when E's top results
include a page about P, E would lead a searcher to P, so E is risky. A frequent word
alone brings up other pages first; two of them together may bring up P's page: such
pairs are risky combinations (asked for the entities that are safe alone).

The backend is pluggable: the application's default searches a local background
corpus in its database; ``HttpSearchBackend`` queries a real search API (opt-in)."""

import json
import os
import urllib.parse
import urllib.request
from itertools import combinations
from typing import Protocol

from ..context import DocumentContext
from .base import Combination, IndicatorOutput, Judgement


class SearchBackend(Protocol):
    name: str

    @property
    def available(self) -> bool: ...

    @property
    def unavailable_reason(self) -> str: ...

    def urls(self, phrases: list[str], limit: int = 10) -> list[str]:
        """The best-ranked documents containing every phrase (at most ``limit``)."""


class HttpSearchBackend:
    """A JSON search API: ``url_template`` has a ``{query}`` placeholder (the phrases
    quoted and joined by spaces) and may have ``{limit}``; ``results_key`` is the dotted
    path to the (ranked) list of results and ``url_key`` the field holding each URL. An API key, if
    any, is read from the environment variable named by ``api_key_env`` and sent as a
    bearer token."""

    def __init__(
        self,
        url_template: str,
        results_key: str = "items",
        url_key: str = "link",
        api_key_env: str = "",
        timeout: float = 10.0,
    ):
        self.url_template, self.results_key, self.url_key = url_template, results_key, url_key
        self.api_key_env, self.timeout = api_key_env, timeout
        self.name = f"web search API ({urllib.parse.urlsplit(url_template).netloc})"
        self._cache: dict[tuple, list[str]] = {}

    available = True
    unavailable_reason = ""

    def urls(self, phrases: list[str], limit: int = 10) -> list[str]:
        key = (tuple(sorted(phrases)), limit)
        if key not in self._cache:
            query = " ".join(f'"{phrase}"' for phrase in phrases)
            url = self.url_template.format(query=urllib.parse.quote(query), limit=limit)
            request = urllib.request.Request(url)
            if self.api_key_env and os.environ.get(self.api_key_env):
                request.add_header("Authorization", f"Bearer {os.environ[self.api_key_env]}")
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = json.loads(response.read().decode("utf-8"))
            results = payload
            for part in self.results_key.split(".") if self.results_key else []:
                results = results.get(part, []) if isinstance(results, dict) else []
            found = [str(item[self.url_key]) for item in results if isinstance(item, dict) and self.url_key in item]
            self._cache[key] = found[:limit]
        return self._cache[key]


class WebSearchIndicator:
    name = "web search"
    # Finding an entity with the person makes it risky; not finding it in a (limited)
    # search index does not make it safe, so this indicator never replaces the rules.
    decides = False

    def __init__(self, backend: SearchBackend | None, top: int = 10, max_pair_entities: int = 12):
        self.backend, self.top, self.max_pair_entities = backend, top, max_pair_entities

    @property
    def available(self) -> bool:
        return self.backend is not None and self.backend.available

    @property
    def unavailable_reason(self) -> str:
        if self.backend is None:
            return "no search backend configured"
        return self.backend.unavailable_reason

    def assess(self, context: DocumentContext) -> IndicatorOutput:
        output = IndicatorOutput(self.name)
        if not context.person:
            return output
        person_urls = set(self.backend.urls([context.person], self.top))
        if not person_urls:
            return output
        safe = []
        for entity in context.entities:
            if entity.protected:
                continue
            text = entity.first_text(context.text)
            shared = person_urls & set(self.backend.urls([text], self.top))
            score = len(shared) / len(person_urls)
            output.entities[entity.index] = Judgement(
                score,
                bool(shared),
                f"web search: its top {self.top} results include {len(shared)} of the {len(person_urls)} "
                f"documents about “{context.person}”" + (f" (e.g. {sorted(shared)[0]})" if shared else ""),
            )
            if not shared:
                safe.append(entity)
        for first, second in combinations(safe[: self.max_pair_entities], 2):
            texts = [first.first_text(context.text), second.first_text(context.text)]
            shared = person_urls & set(self.backend.urls(texts, self.top))
            if shared:
                output.combinations.append(
                    Combination(
                        (first.index, second.index),
                        len(shared) / len(person_urls),
                        f"web search: “{texts[0]}” with “{texts[1]}” finds “{context.person}” "
                        f"in {len(shared)} documents",
                    )
                )
        return output
