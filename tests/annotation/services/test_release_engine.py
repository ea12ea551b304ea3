"""The release engine as configured: an LLM only with a base url, its answers shared
through Django's cache, and the API key in no record of the release. The LLM is the
test's scripted OpenAI-compatible server on 127.0.0.1 (the real client talks to it)."""

import hashlib
import json

import pytest
from django.core.cache import cache

from annotation.models import ReleaseDecision
from annotation.services.release_engine import LLMAnswerCache, forget_release_engines, llm_config, release_engine
from annotation.services.releases import run_batch, start_release
from tests.support.openai_server import ScriptedOpenAIServer

pytestmark = pytest.mark.django_db

POLAT = "001-83927"
SECRET = "sk-test-secret-7f3a"


@pytest.fixture
def polat(corpus, pick, import_documents):
    import_documents(corpus, pick(POLAT))
    return corpus.documents.get()


@pytest.fixture
def llm(settings):
    with ScriptedOpenAIServer(api_key=SECRET) as server:
        settings.SANITIZE_RELEASE = {
            **settings.SANITIZE_RELEASE,
            "llm_base_url": server.base_url,
            "llm_model": "scripted",
            "llm_api_key": SECRET,
            "llm_timeout_s": 10,
            "llm_retries": 0,
        }
        forget_release_engines()
        yield server
        forget_release_engines()


@pytest.fixture
def no_llm(settings):
    settings.SANITIZE_RELEASE = {**settings.SANITIZE_RELEASE, "llm_base_url": "", "llm_api_key": SECRET}
    forget_release_engines()
    yield
    forget_release_engines()


def release_with(corpus, people, polat, strategy="intact"):
    release = start_release(corpus, source="reviewed", strategy=strategy, actor=people["manager"])
    run_batch(release.pk, [polat.pk])
    release.refresh_from_db()
    return release


def test_intact_with_the_llm_records_the_model_and_never_the_key(corpus, people, polat, llm):
    release = release_with(corpus, people, polat)

    assert release.status == "succeeded", release.documents.first().error
    assert release.settings["llm"] == f"scripted at {llm.base_url}"
    assert release.settings["attacker"] == "llm:scripted" and release.settings["llm_candidates"] == "llm"
    assert release.settings["llm_limits"] == {"timeout_s": 10, "concurrency": 2, "retries": 0}
    # The key went to the server (it refuses requests without it) and nowhere else.
    assert llm.requests and all(h.get("authorization") == f"Bearer {SECRET}" for h in llm.headers)
    decisions = list(ReleaseDecision.objects.filter(release_document__release=release))
    stored = json.dumps([release.settings, release.metrics, release.error], default=str)
    stored += json.dumps([[d.reason, d.trials, d.candidates, d.candidate_source] for d in decisions])
    assert SECRET not in stored
    # The scripted LLM's hypernyms reached the decisions of the organisations.
    prison = next(d for d in decisions if d.original == "Edirne F-type Prison")
    assert prison.candidate_source == "llm" and prison.trials
    assert prison.candidates[0] == "an organisation such as Edirne F-type Prison"
    assert {d.path for d in decisions} <= {"first", "later", "fallback"}


def test_llm_answers_are_shared_through_the_django_cache(corpus, people, polat, llm):
    release_with(corpus, people, polat)
    asked = len(llm.requests)
    assert asked > 0

    forget_release_engines()  # another worker: a new client, the same Django cache
    second = release_with(corpus, people, polat)

    assert second.status == "succeeded" and len(llm.requests) == asked
    cache.clear()
    forget_release_engines()
    release_with(corpus, people, polat)
    assert len(llm.requests) == 2 * asked


def test_without_a_base_url_intact_uses_the_offline_attacker(corpus, people, polat, no_llm):
    assert llm_config() is None
    release = release_with(corpus, people, polat)
    assert release.status == "succeeded"
    assert release.settings["llm"] == "" and release.settings["attacker"] == "offline"
    assert "llm_limits" not in release.settings and SECRET not in json.dumps(release.settings)


def test_the_answer_cache_keeps_values_under_its_prefix_with_a_timeout(settings):
    answers = LLMAnswerCache(timeout=60)
    answers.set("prompt digest", "1. a city in Turkey")
    assert answers.get("prompt digest") == "1. a city in Turkey"
    stored_key = "release-llm:" + hashlib.sha256(b"prompt digest").hexdigest()
    assert cache.get(stored_key) == "1. a city in Turkey"
    assert answers.get("another prompt") is None
    answers.set("gone", "x", timeout=-1)  # a timeout in the past: expired at once
    assert answers.get("gone") is None


def test_engines_are_built_once_per_configuration(corpus, polat, no_llm, settings):
    assert release_engine("rules") is release_engine("rules")
    first = release_engine("intact", corpus)
    assert release_engine("intact", corpus) is first
    settings.SANITIZE_RELEASE = {**settings.SANITIZE_RELEASE, "min_place_set": 7}
    assert release_engine("intact", corpus) is not first
