"""The LLM client against a real HTTP server speaking the OpenAI chat protocol."""

import threading
import time

import pytest

from sanitize_app.engine.release.llm import (
    LLMClient,
    LLMConfig,
    LLMError,
    MemoryCache,
    build_llm_client,
    cache_key,
)
from tests.support.openai_server import Reply, ScriptedOpenAIServer

HELLO = [{"role": "user", "content": "Say hello"}]
SECRET = "sk-test-secret-123456"


@pytest.fixture
def server():
    with ScriptedOpenAIServer(responder=lambda messages: "hello") as running:
        yield running


def client_for(server, **overrides) -> LLMClient:
    settings = dict(base_url=server.base_url, model="tiny", timeout_s=5, retries=2, backoff_s=0.01)
    settings.update(overrides)
    return LLMClient(LLMConfig(**settings))


def test_a_reply_is_the_first_choice_content_and_the_request_follows_the_protocol(server):
    client = client_for(server, temperature=0.0, max_tokens=50)
    assert client.complete(HELLO) == "hello"
    assert server.paths == ["/v1/chat/completions"]
    assert server.requests == [{"model": "tiny", "messages": HELLO, "temperature": 0.0, "max_tokens": 50}]
    assert "authorization" not in server.headers[0]


def test_the_same_prompt_is_answered_from_the_cache_without_a_second_request(server):
    client = client_for(server)
    assert client.complete(HELLO) == "hello"
    assert client.complete(HELLO) == "hello"
    assert len(server.requests) == 1
    assert (client.requests_sent, client.cache_hits) == (1, 1)


def test_the_cache_key_is_the_sha256_of_model_messages_and_parameters(server):
    cache = MemoryCache()
    client = LLMClient(LLMConfig(server.base_url, "tiny", max_tokens=7), cache=cache)
    client.complete(HELLO)
    key = cache_key("tiny", HELLO, {"temperature": 0.0, "max_tokens": 7})
    assert len(key) == 64 and cache.get(key) == "hello"
    # Another model or other parameters are other questions.
    assert key != cache_key("other", HELLO, {"temperature": 0.0, "max_tokens": 7})
    assert key != cache_key("tiny", HELLO, {"temperature": 0.5, "max_tokens": 7})


def test_an_injected_cache_answers_without_any_request(server):
    class DictCache(dict):
        def set(self, key, value):
            self[key] = value

    cache = DictCache()
    cache[cache_key("tiny", HELLO, {"temperature": 0.0, "max_tokens": 200})] = "from the cache"
    client = LLMClient(LLMConfig(server.base_url, "tiny"), cache=cache)
    assert client.complete(HELLO) == "from the cache"
    assert server.requests == []


def test_a_server_slower_than_the_timeout_is_retried_then_fails_naming_the_endpoint(server):
    server.script(Reply(delay_s=1.5), Reply(delay_s=1.5))
    client = client_for(server, timeout_s=0.3, retries=1)
    started = time.monotonic()
    with pytest.raises(LLMError) as raised:
        client.complete(HELLO)
    assert time.monotonic() - started < 1.4  # two tries of 0.3 s, not the server's 1.5 s
    assert client.requests_sent == 2
    assert "timeout" in raised.value.reason and "after 2 tries" in raised.value.reason
    assert raised.value.endpoint == server.base_url + "/chat/completions"
    assert server.base_url + "/chat/completions" in str(raised.value)


def test_a_timeout_then_an_answer_succeeds_on_the_retry(server):
    server.script(Reply(delay_s=1.0))
    client = client_for(server, timeout_s=0.3, retries=1)
    assert client.complete(HELLO) == "hello"
    assert client.requests_sent == 2


def test_429_is_retried_and_the_next_answer_is_used(server):
    server.script(Reply(status=429), Reply(status=503))
    client = client_for(server)
    assert client.complete(HELLO) == "hello"
    assert len(server.requests) == 3


def test_a_429_retry_waits_at_least_the_servers_retry_after(server):
    server.script(Reply(status=429, headers={"Retry-After": "0.4"}))
    client = client_for(server, backoff_s=0.01)
    started = time.monotonic()
    assert client.complete(HELLO) == "hello"
    assert time.monotonic() - started >= 0.4


def test_transient_errors_past_the_retries_fail_with_the_last_status(server):
    server.script(Reply(status=500), Reply(status=502), Reply(status=504))
    client = client_for(server, retries=2)
    with pytest.raises(LLMError, match=r"HTTP 504 \(after 3 tries\)"):
        client.complete(HELLO)
    assert len(server.requests) == 3


@pytest.mark.parametrize("status", [400, 404])
def test_a_client_error_is_not_retried(server, status):
    server.script(Reply(status=status))
    client = client_for(server, retries=3)
    with pytest.raises(LLMError, match=f"HTTP {status}"):
        client.complete(HELLO)
    assert len(server.requests) == 1


def test_a_malformed_json_body_fails_without_retry_and_quotes_the_body(server):
    server.script(Reply(raw_body=b'{"choices": [ {"message": '))
    client = client_for(server)
    with pytest.raises(LLMError) as raised:
        client.complete(HELLO)
    assert "unparsable body (not JSON)" in raised.value.reason
    assert '{"choices": [ {"message":' in raised.value.reason
    assert len(server.requests) == 1


def test_json_that_is_not_a_chat_completion_is_unparsable(server):
    server.script(Reply(raw_body=b'{"choices": []}'))
    with pytest.raises(LLMError, match=r"no choices\[0\]\.message\.content"):
        client_for(server).complete(HELLO)


def test_a_refusal_is_returned_as_text_for_the_caller_to_judge(server):
    server.responder = lambda messages: "I'm sorry, but I can't help with that."
    assert client_for(server).complete(HELLO) == "I'm sorry, but I can't help with that."


def test_the_api_key_is_sent_as_bearer_and_never_appears_in_errors():
    with ScriptedOpenAIServer(responder=lambda m: "hi", api_key=SECRET) as server:
        client = LLMClient(LLMConfig(server.base_url, "tiny", api_key=SECRET, retries=0))
        assert client.complete(HELLO) == "hi"
        assert server.headers[0]["authorization"] == f"Bearer {SECRET}"
        # The server echoes the key in its error body: it is scrubbed from the message.
        server.script(Reply(status=400, raw_body=f'{{"error": "bad key {SECRET}"}}'.encode()))
        with pytest.raises(LLMError) as raised:
            client.complete([{"role": "user", "content": "another"}])
        assert "HTTP 400" in str(raised.value)
        assert SECRET not in str(raised.value) and "***" in str(raised.value)
        assert SECRET not in repr(client.config)


def test_a_wrong_api_key_is_refused_with_401_and_not_retried():
    with ScriptedOpenAIServer(responder=lambda m: "hi", api_key=SECRET) as server:
        client = LLMClient(LLMConfig(server.base_url, "tiny", api_key="sk-wrong", retries=2))
        with pytest.raises(LLMError, match="HTTP 401"):
            client.complete(HELLO)
        assert len(server.headers) == 1


def test_a_connection_refused_is_retried_then_fails():
    with ScriptedOpenAIServer() as server:
        base_url = server.base_url
    client = LLMClient(LLMConfig(base_url, "tiny", retries=1, backoff_s=0.01))
    with pytest.raises(LLMError, match=r"connection failed .*after 2 tries"):
        client.complete(HELLO)
    assert client.requests_sent == 2


def test_map_keeps_at_most_concurrency_requests_in_flight_and_the_order_of_prompts(server):
    server.responder = lambda messages: Reply(content=messages[-1]["content"].upper(), delay_s=0.2)
    client = client_for(server, concurrency=2)
    prompts = [[{"role": "user", "content": f"prompt {i}"}] for i in range(6)]
    replies = client.map(prompts)
    assert replies == [f"PROMPT {i}" for i in range(6)]
    assert server.max_in_flight == 2


def test_the_concurrency_bound_holds_across_threads_sharing_the_client(server):
    server.responder = lambda messages: Reply(content="ok", delay_s=0.15)
    client = client_for(server, concurrency=1)
    threads = [
        threading.Thread(target=client.complete, args=([{"role": "user", "content": str(i)}],)) for i in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(server.requests) == 4
    assert server.max_in_flight == 1


def test_map_gives_a_failed_prompt_its_error_in_place(server):
    server.responder = lambda messages: Reply(status=400) if messages[-1]["content"] == "bad" else Reply(content="fine")
    client = client_for(server)
    replies = client.map([[{"role": "user", "content": c}] for c in ("good", "bad", "also good")])
    assert replies[0] == "fine" and replies[2] == "fine"
    assert isinstance(replies[1], LLMError) and "HTTP 400" in replies[1].reason


@pytest.mark.parametrize("suffix", ["/v1", "/v1/", "/v1/chat/completions"])
def test_the_endpoint_is_the_base_url_with_chat_completions_once(suffix):
    assert LLMConfig("http://127.0.0.1:8080" + suffix, "m").endpoint == "http://127.0.0.1:8080/v1/chat/completions"


def test_describe_names_model_and_base_url(server):
    assert client_for(server).describe() == f"tiny at {server.base_url}"


def test_the_builder_says_why_there_is_no_client():
    assert build_llm_client(None).reason.startswith("no LLM endpoint configured")
    assert "SANITIZE_LLM_BASE_URL" in build_llm_client(LLMConfig("", "tiny")).reason
    assert "SANITIZE_LLM_MODEL" in build_llm_client(LLMConfig("http://127.0.0.1:1/v1", "")).reason
    assert "not an http(s) URL" in build_llm_client(LLMConfig("127.0.0.1:8080", "tiny")).reason
    built = build_llm_client(LLMConfig("http://127.0.0.1:1/v1", "tiny"))
    assert built.client is not None and built.reason == ""


@pytest.mark.parametrize("field, value", [("timeout_s", 0), ("concurrency", 0), ("retries", -1)])
def test_a_config_out_of_range_is_refused_naming_the_field(field, value):
    with pytest.raises(ValueError, match=f"LLMConfig.{field}"):
        LLMConfig("http://127.0.0.1:1/v1", "tiny", **{field: value})
