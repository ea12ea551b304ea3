"""Simulated annotators against gunicorn + PostgreSQL on this machine (loopback only).

    python bench/load.py [--annotators 50] [--duration 60] [--closed-clients 20] [--closed-duration 20]
                         [--app-dir DIR] [--database-url postgres://postgres@127.0.0.1:5432/sanitize_load]

It builds a fresh database (``bench/load_corpus.py``: one real TAB layer in progress per
annotator), starts gunicorn with the production settings (plain HTTP, Redis cache and
broker, no Celery worker: nothing a decision needs runs there), then:

1. **Open loop**: ``--annotators`` clients, each opening its document (the workspace
   page) and then, every 2 to 5 s, opening an entity's panel and deciding it, as the
   browser does (the page's own endpoints, session cookie and CSRF header). One in four
   clients is a script using the REST API instead (``PATCH /api/entities/{id}/`` with a
   token). Budget: p95 <= 150 ms per request kind and no error.
2. **Closed loop**: ``--closed-clients`` clients deciding back to back, first through the
   REST API, then through the page's endpoint: decisions per second. Budget: >= 100/s.

Prints p50/p95/p99 (ms) and counts per request kind and the error count. ``--app-dir``
runs another checkout of the application (e.g. a ``git worktree`` of an older commit)
with the same data and the same client, so that two versions are compared in one run.
"""

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import psycopg
import requests

REPO = Path(__file__).resolve().parent.parent
CSRF = "loadbenchcsrfsecret0123456789abc"  # 32 characters: Django's unmasked secret format
VALUES = ("DIRECT", "QUASI", "NO_MASK")


class Recorder:
    """Latencies (ms) and errors per request kind, from many threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, list[str]] = defaultdict(list)

    def timed(self, kind: str, send, ok=lambda r: r.status_code < 400):
        start = time.perf_counter()
        try:
            response = send()
        except requests.RequestException as exc:
            response, failure = None, f"{type(exc).__name__}: {exc}"
        else:
            failure = None if ok(response) else f"HTTP {response.status_code}: {response.text[:120]!r}"
        elapsed = (time.perf_counter() - start) * 1000
        with self.lock:
            self.latency[kind].append(elapsed)
            if failure:
                self.errors[kind].append(failure)
        return response if failure is None else None


class Annotator:
    """One user's client: a session (page) or a token (REST) and its layer's version."""

    def __init__(self, base: str, user: dict, recorder: Recorder, rest: bool):
        self.base, self.user, self.recorder, self.rest = base, user, recorder, rest
        self.version = user["version"]
        self.http = requests.Session()
        self.http.headers["Cookie"] = f"sessionid={user['session']}; csrftoken={CSRF}"
        self.http.headers["X-CSRFToken"] = CSRF
        self.http.headers["HX-Request"] = "true"
        self.api = requests.Session()
        self.api.headers["Authorization"] = f"Token {user['token']}"
        self.turn = 0

    def open_document(self) -> None:
        self.recorder.timed("open document (page)", lambda: self.http.get(f"{self.base}/layers/{self.user['layer']}/"))

    def decide(self, kind_suffix: str = "") -> None:
        entities = self.user["entities"]
        entity = entities[self.turn % len(entities)]
        value = VALUES[self.turn % len(VALUES)]
        self.turn += 1
        layer = self.user["layer"]
        if self.rest:
            response = self.recorder.timed(
                f"decision (REST PATCH){kind_suffix}",
                lambda: self.api.patch(
                    f"{self.base}/api/entities/{entity}/",
                    json={"identifier_type": value, "layer_version": self.version},
                ),
            )
            if response is not None:
                self.version = response.json()["layer_version"]
            return
        if not kind_suffix:
            panel = f"{self.base}/layers/{layer}/entities/{entity}/"
            self.recorder.timed("entity panel (page)", lambda: self.http.get(panel))
        response = self.recorder.timed(
            f"decision (page){kind_suffix}",
            lambda: self.http.post(
                f"{self.base}/layers/{layer}/entities/{entity}/decision/",
                data={"identifier_type": value, "layer_version": self.version},
            ),
        )
        if response is not None:
            marker = 'data-version="'
            at = response.text.index(marker) + len(marker)
            self.version = int(response.text[at : response.text.index('"', at)])


def open_loop(base: str, users: list[dict], duration: float, recorder: Recorder) -> None:
    stop = time.monotonic() + duration
    rng = random.Random(7)

    def run(user: dict, rest: bool, delay: float) -> None:
        client = Annotator(base, user, recorder, rest)
        time.sleep(delay)
        client.open_document()
        while time.monotonic() + 2 < stop:
            time.sleep(rng.uniform(2, 5))
            client.decide()

    threads = [
        threading.Thread(target=run, args=(user, index % 4 == 3, rng.uniform(0, 5)), daemon=True)
        for index, user in enumerate(users)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def warm_up(base: str, user: dict) -> None:
    """Unrecorded requests of every kind, so that each gunicorn worker has imported
    its modules and opened its connections before the measurement."""
    for rest in (False, True):
        client = Annotator(base, user, Recorder(), rest)
        client.version = current_version(base, user)
        for _ in range(10):
            client.open_document()
            client.decide()


def closed_loop(base: str, users: list[dict], duration: float, recorder: Recorder, rest: bool) -> float:
    """Decisions per second by clients that send the next as soon as one is answered."""
    stop = time.monotonic() + duration
    done = [0] * len(users)

    def run(index: int, user: dict) -> None:
        client = Annotator(base, user, recorder, rest)
        client.version = current_version(base, user)
        while time.monotonic() < stop:
            client.decide(" closed loop")
            done[index] += 1

    threads = [threading.Thread(target=run, args=(i, u), daemon=True) for i, u in enumerate(users)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(done) / (time.monotonic() - start)


def current_version(base: str, user: dict) -> int:
    response = requests.get(
        f"{base}/api/layers/{user['layer']}/", headers={"Authorization": f"Token {user['token']}"}, timeout=10
    )
    response.raise_for_status()
    return response.json()["version"]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def report(title: str, recorder: Recorder) -> None:
    print(f"\n{title}")
    print(f"  {'request kind':34} {'count':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for kind in sorted(recorder.latency):
        values = recorder.latency[kind]
        print(
            f"  {kind:34} {len(values):6d} {statistics.median(values):8.1f} {percentile(values, 0.95):8.1f}"
            f" {percentile(values, 0.99):8.1f} {len(recorder.errors[kind]):7d}"
        )
    for kind, failures in recorder.errors.items():
        for failure in failures[:3]:
            print(f"  error in {kind}: {failure}")


def fresh_database(url: str) -> None:
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_environment(args) -> dict:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="sanitize_app.settings.production",
        SECRET_KEY="load-bench-only-" + "x" * 40,
        SECURE_SSL_REDIRECT="0",
        DATABASE_URL=args.database_url,
        ALLOWED_HOSTS="127.0.0.1",
        CELERY_BROKER_URL=args.redis_url,
        CELERY_RESULT_BACKEND=args.redis_url,
        # Production refuses a cache on the broker's database and an undeclared storage.
        CACHE_URL=args.redis_url.rsplit("/", 1)[0] + "/14",
        SANITIZE_STORAGE="filesystem",
        MEDIA_ROOT=str(Path(tempfile.gettempdir()) / "sanitize-load-media"),
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(args.app_dir),
    )
    return env


def start_server(args, env: dict) -> tuple[subprocess.Popen, str]:
    port = free_port()
    collect = [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"]
    subprocess.run(collect, cwd=args.app_dir, env=env, check=True)
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "sanitize_app.wsgi", "--bind", f"127.0.0.1:{port}",
         "--workers", str(args.workers), "--worker-class", "gthread", "--threads", str(args.threads),
         "--log-level", "warning"],
        cwd=args.app_dir, env=env, start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            requests.get(f"{base}/healthz/", timeout=1)
            return server, base
        except requests.RequestException:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not answer on /healthz/ within 20 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--duration", type=float, default=60, help="seconds of the open loop")
    parser.add_argument("--closed-clients", type=int, default=20)
    parser.add_argument("--closed-duration", type=float, default=20, help="seconds of each closed loop")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers (the Dockerfile runs 3)")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker")
    parser.add_argument("--app-dir", type=Path, default=REPO, help="the checkout of the application to run")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/sanitize_load")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/9")
    args = parser.parse_args()
    args.app_dir = args.app_dir.resolve()
    if not 1 <= args.annotators <= 200 or not 1 <= args.closed_clients <= 100:
        raise SystemExit("--annotators must be 1..200 and --closed-clients 1..100 (a bench, not a stress test)")
    if not 1 <= args.duration <= 600 or not 1 <= args.closed_duration <= 300:
        raise SystemExit("--duration must be 1..600 s and --closed-duration 1..300 s")

    fresh_database(args.database_url)
    env = server_environment(args)
    users_file = Path(tempfile.mkdtemp()) / "users.json"
    count = max(args.annotators, args.closed_clients) + 1  # the last one warms the server up
    subprocess.run(
        [sys.executable, str(REPO / "bench" / "load_corpus.py"), "--app-dir", str(args.app_dir),
         "--annotators", str(count), "--out", str(users_file)],
        env=env, check=True,
    )  # fmt: skip
    users = json.loads(users_file.read_text())["users"]
    server, base = start_server(args, env)
    try:
        print(f"app: {args.app_dir}; gunicorn {args.workers} workers x {args.threads} threads; PostgreSQL")
        warm_up(base, users.pop())
        recorder = Recorder()
        open_loop(base, users[: args.annotators], args.duration, recorder)
        report(f"Open loop: {args.annotators} annotators, one action every 2-5 s, {args.duration:.0f} s", recorder)
        for rest in (True, False):
            closed = Recorder()
            rate = closed_loop(base, users[: args.closed_clients], args.closed_duration, closed, rest)
            report(f"Closed loop, {'REST API' if rest else 'page endpoint'}: {args.closed_clients} clients", closed)
            print(f"  throughput: {rate:.1f} decisions/s")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
