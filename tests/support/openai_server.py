"""A small real HTTP server speaking the OpenAI chat completions protocol, for tests
(and the release bench) where a remote LLM cannot run: the real client code, httpx and
all, talks to it over a socket on 127.0.0.1.

    with ScriptedOpenAIServer() as server:            # the default responder: see below
        config = LLMConfig(base_url=server.base_url, model="scripted")
        ...
        server.requests        # every JSON body received, in order
        server.headers         # their headers (lower-cased names)
        server.max_in_flight   # the most requests handled at the same time

What it answers, in this order:
1. ``server.script(Reply(...), ...)``: scripted replies consumed one per request (a
   status code such as 429/500/400, a ``delay_s`` to outlast the client's timeout, a
   ``raw_body`` such as malformed JSON, or a ``content`` text);
2. otherwise ``responder(messages)``, a callable returning the reply text or a ``Reply``.
Only ``POST /v1/chat/completions`` exists (404 elsewhere); a body that is not JSON with
``model`` and a ``messages`` list of ``{role, content}`` gets 400 in OpenAI's error shape;
with ``api_key`` set, a request without ``Authorization: Bearer <api_key>`` gets 401.

``intact_responder`` (the default) is "the test's scripted LLM" for a whole INTACT run,
deterministic, reading only the last user message:
- a hypernym prompt (the message contains "generaliz") for a span ``S`` marked ``[[S]]``
  and a type line ``Type: T``: "Here are five generalizations:" then five numbered lines
    1. "a <noun> such as S"   (repeats S: an attack inverts it)
    2. "a <noun> like <first word of S>"
    3. "a particular <noun>"
    4. "a <noun>"              ("an" before a vowel)
    5. "something"
  with <noun> by type (PERSON person, CODE reference number, LOC place, ORG organisation,
  DEM group of people, DATETIME date, QUANTITY amount, MISC thing);
- an attack prompt (the message contains "guess"; checked first) for a marked candidate ``[[C]]``: five
  lines guessing from C's own words: C, C without its article, then C's words of four or
  more letters one by one, padded with "unknown" (so a candidate that repeats the
  original's words is inverted, and a general one, whose words are not the original's,
  survives);
- anything else: "1. something".
"""

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MARKED = re.compile(r"\[\[(.+?)\]\]", re.DOTALL)
TYPE_LINE = re.compile(r"^Type:\s*([A-Z]+)\b", re.MULTILINE)
TYPE_NOUNS = {
    "PERSON": "person",
    "CODE": "reference number",
    "LOC": "place",
    "ORG": "organisation",
    "DEM": "group of people",
    "DATETIME": "date",
    "QUANTITY": "amount",
    "MISC": "thing",
}


@dataclass
class Reply:
    content: str | None = None  # the assistant's text (None: ask the responder)
    status: int = 200
    delay_s: float = 0.0  # sleep before answering (a slow or hung server)
    raw_body: bytes | None = None  # sent as is (malformed JSON, a wrong shape)
    headers: dict | None = None


Responder = Callable[[list[dict]], "str | Reply"]


def last_user_message(messages: list[dict]) -> str:
    return next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")


def hypernym_reply(span: str, entity_type: str) -> str:
    noun = TYPE_NOUNS.get(entity_type, "thing")
    a = "an" if noun[0] in "aeiou" else "a"
    first_word = span.split()[0] if span.split() else span
    lines = [
        f"{a} {noun} such as {span}",
        f"{a} {noun} like {first_word}",
        f"a particular {noun}",
        f"{a} {noun}",
        "something",
    ]
    return "Here are five generalizations:\n" + "\n".join(f"{i}. {line}" for i, line in enumerate(lines, 1))


def attack_reply(candidate: str) -> str:
    guesses = [candidate, re.sub(r"^(?:a|an|the)\s+", "", candidate, flags=re.IGNORECASE)]
    guesses += [word for word in re.findall(r"\w+", candidate) if len(word) >= 4]
    unique = list(dict.fromkeys(g for g in guesses if g))
    unique += ["unknown"] * (5 - len(unique))
    return "\n".join(unique[:5])


def intact_responder(messages: list[dict]) -> str:
    text = last_user_message(messages)
    marked = MARKED.findall(text)
    lowered = text.lower()
    if marked and "guess" in lowered:
        return attack_reply(marked[0])
    if marked and "generaliz" in lowered:
        entity_type = TYPE_LINE.search(text)
        return hypernym_reply(marked[0], entity_type.group(1) if entity_type else "MISC")
    return "1. something"


class ScriptedOpenAIServer:
    def __init__(self, responder: Responder = intact_responder, api_key: str = ""):
        self.responder = responder
        self.api_key = api_key
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.paths: list[str] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._script: list[Reply] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        # A handler still sleeping out a scripted delay must not hold up the test's end.
        self._httpd.block_on_close = False
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="openai-server", daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._script.extend(replies)

    def start(self) -> "ScriptedOpenAIServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- called by the handler ----------------------------------------------------
    def _enter(self, path: str, headers: dict, body: dict | None) -> Reply | None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            self.paths.append(path)
            self.headers.append(headers)
            if body is not None:
                self.requests.append(body)
            return self._script.pop(0) if self._script else None

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1


def _handler_for(server: ScriptedOpenAIServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet tests
            pass

        def do_GET(self):
            self._send_json(404, _error("not found", "invalid_request_error"))

        def do_POST(self):
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            headers = {k.lower(): v for k, v in self.headers.items()}
            scripted = server._enter(self.path, headers, body if isinstance(body, dict) else None)
            try:
                self._answer(scripted, headers, body)
            finally:
                server._leave()

        def _answer(self, scripted: Reply | None, headers: dict, body):
            if scripted is not None and scripted.delay_s:
                time.sleep(scripted.delay_s)
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self._send_json(404, _error(f"no route {self.path}", "invalid_request_error"))
            if server.api_key and headers.get("authorization") != f"Bearer {server.api_key}":
                return self._send_json(401, _error("invalid API key", "authentication_error"))
            problem = _request_problem(body)
            if problem:
                return self._send_json(400, _error(problem, "invalid_request_error"))
            reply = scripted
            if reply is None or (reply.content is None and reply.raw_body is None and reply.status == 200):
                produced = server.responder(body["messages"])
                reply = produced if isinstance(produced, Reply) else Reply(content=produced)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
            if reply.raw_body is not None:
                return self._send(reply.status, reply.raw_body, reply.headers)
            if reply.status != 200:
                return self._send_json(
                    reply.status, _error(f"scripted status {reply.status}", "server_error"), reply.headers
                )
            return self._send_json(200, _completion(body, reply.content or ""), reply.headers)

        def _send_json(self, status: int, payload: dict, headers: dict | None = None):
            self._send(status, json.dumps(payload).encode("utf-8"), headers)

        def _send(self, status: int, data: bytes, headers: dict | None = None):
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout): nothing to answer to

    return Handler


def _request_problem(body) -> str:
    if not isinstance(body, dict):
        return "the request body is not a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "'model' is required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty list"
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in {"system", "user", "assistant"}:
            return f"messages[{i}] needs a role of system, user or assistant"
        if not isinstance(message.get("content"), str):
            return f"messages[{i}].content must be a string"
    return ""


def _error(message: str, kind: str) -> dict:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


_ids = iter(range(1, 10**9))


def _completion(request: dict, content: str) -> dict:
    prompt_tokens = sum(len(m["content"].split()) for m in request["messages"])
    completion_tokens = len(content.split())
    return {
        "id": f"chatcmpl-scripted-{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
