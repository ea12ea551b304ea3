"""Several hosts on this machine: Celery workers, the web server (gunicorn) and beat, each
a process of its own with its own working directory, media root, model scratch folder and
model cache (no shared disk), against one PostgreSQL (the test database), one Redis and
one S3-compatible server (moto, tests.support.s3_server) that every host reaches over HTTP.
The hosts run the production settings (which refuse to start without a broker, a Redis
cache apart from it, a storage backend and a secret): the web host is ready when its
/healthz/ passes its database, cache, broker and storage checks.

The test process is one more host: it creates rows and sends tasks as the web would.
Rows it writes are committed (``django_db(transaction=True)``) so the other hosts see them."""

import os
import shutil
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests

from tests.support.processes import PYTHON, REPO, Process, Processes, free_port
from tests.support.s3_server import S3Server, moto_server

# Short job timings: a lost worker is noticed within STALL + SWEEP seconds.
JOB_TIMINGS = {
    "SANITIZE_JOB_HEARTBEAT_SECONDS": "2",
    "SANITIZE_JOB_STALL_SECONDS": "10",
    "SANITIZE_JOB_SWEEP_SECONDS": "3",
}
STARTUP_S = 90  # a worker imports Django, Celery and the engine on two busy cores


def database_url(settings_dict: dict) -> str:
    """The URL of the database this test process uses (pytest-django's test database)."""
    user = settings_dict.get("USER") or ""
    password = f":{settings_dict['PASSWORD']}" if settings_dict.get("PASSWORD") else ""
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{settings_dict['NAME']}"


def cache_url(broker: str) -> str:
    """The hosts' cache: the Redis database next to the broker's (6 <-> 7, 14 <-> 15), as
    production wants it apart from the broker's (a cache clear would drop queued tasks)."""
    url = urlsplit(broker)
    number = int(url.path.strip("/") or 0)
    return urlunsplit(url._replace(path=f"/{number ^ 1}"))


def refuse_a_cache_on_the_broker(cache: dict, broker: str) -> None:
    """The tests empty this process's cache around each test: on the broker's Redis database
    that would drop the workers' queued tasks, and the tests would fail for no reason of
    the code's. Without CACHE_URL the cache lives on the broker's database."""
    from redis.connection import parse_url

    if not cache["BACKEND"].endswith("RedisCache"):
        return
    where = [
        (url.get("host"), url.get("port", 6379), url.get("db", 0))
        for url in map(parse_url, (cache["LOCATION"], broker))
    ]
    if where[0] == where[1]:
        pytest.fail(
            f"The test process's cache ({cache['LOCATION']}) is the broker's Redis database ({broker}): "
            "set CACHE_URL to another database, e.g. CACHE_URL=redis://127.0.0.1:6379/13 as ./scripts/test does.",
            pytrace=False,
        )


class Cluster:
    """The hosts of the multi-host tests. ``worker``, ``web`` and ``beat`` start a host and wait
    until it is ready; every process is killed at teardown."""

    def __init__(self, root: Path, database: str, broker: str, s3: S3Server):
        self.root, self.database, self.broker, self.s3 = root, database, broker, s3
        self.cache = cache_url(broker)
        self.processes = Processes()
        self.web_url = ""

    def host_dir(self, host: str) -> Path:
        return self.root / host

    def folders(self, host: str) -> dict[str, Path]:
        base = self.host_dir(host)
        return {
            "media": base / "media",
            "models": base / "models",  # SANITIZE_MODEL_ROOT: the training's scratch folder
            "cache": base / "model-cache",  # SANITIZE_MODEL_CACHE: unpacked promoted models
        }

    def environment(self, host: str, extra: dict[str, str] | None = None) -> dict[str, str]:
        folders = self.folders(host)
        inherited = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith(("DJANGO_", "SANITIZE_", "CELERY_", "AWS_", "DATABASE_", "CACHE_", "PYTEST"))
        }
        return {
            **inherited,
            "PYTHONPATH": str(REPO),
            # The production settings, which refuse to start without every service.
            "DJANGO_SETTINGS_MODULE": "sanitize_app.settings.production",
            "SECRET_KEY": "multihost-test-secret-key-" + "x" * 40,
            "DATABASE_URL": self.database,
            "CELERY_BROKER_URL": self.broker,
            "CELERY_RESULT_BACKEND": self.broker,
            "CACHE_URL": self.cache,
            **self.s3.environment(),
            **JOB_TIMINGS,
            "SANITIZE_RETRAIN_CHECK_SECONDS": "3600",
            "SANITIZE_VAR_DIR": str(self.host_dir(host) / "var"),
            "MEDIA_ROOT": str(folders["media"]),
            "SANITIZE_MODEL_ROOT": str(folders["models"]),
            "SANITIZE_MODEL_CACHE": str(folders["cache"]),
            # The rules (no spaCy pipeline) unless a test asks for one: fast to load.
            "SANITIZE_SPACY_PIPELINE": "",
            "SANITIZE_TRAINING_BASE_MODEL": "blank",
            "SANITIZE_TRAINING_EPOCHS": "25",
            "SANITIZE_TRAINING_SEED": "13",
            **(extra or {}),
        }

    def start(self, host: str, argv: list[str], extra: dict[str, str] | None = None) -> Process:
        return self.processes.add(Process(host, argv, env=self.environment(host, extra), cwd=self.host_dir(host)))

    def worker(
        self, name: str, queues: list[str], extra: dict[str, str] | None = None, pool: list[str] = ()
    ) -> Process:
        """A Celery worker ``name@multihost``: one task at a time, only ``queues``; ``pool``
        replaces the solo pool's options."""
        return self.workers({name: queues}, extra, pool)[name]

    def workers(
        self, queues: dict[str, list[str]], extra: dict[str, str] | None = None, pool: list[str] = ()
    ) -> dict[str, Process]:
        """Start several workers at once (name -> queues), then wait until each is ready."""
        started = {}
        for name, names in queues.items():
            argv = [PYTHON, "-m", "celery", "-A", "sanitize_app", "worker"]
            argv += list(pool) or ["--pool=solo", "--concurrency=1"]
            argv += ["-Q", ",".join(names), "-n", f"{name}@multihost", "--loglevel=INFO"]
            argv += ["--without-gossip", "--without-mingle"]
            started[name] = self.start(f"worker-{name}", argv, extra)
        for name, process in started.items():
            self.wait_for(
                lambda name=name, process=process: f"{name}@multihost ready." in process.log(),
                f"worker {name} to be ready",
                STARTUP_S,
                [process],
            )
        return started

    def web(self) -> Process:
        """The web host (gunicorn, one process); ``web_url`` is where it answers."""
        port = free_port()
        argv = [PYTHON, "-m", "gunicorn", "sanitize_app.wsgi:application", "--bind", f"127.0.0.1:{port}"]
        argv += ["--workers", "1", "--timeout", "60", "--access-logfile", "-"]
        self.web_url = f"http://127.0.0.1:{port}"
        return self.start("web", argv)

    def beat(self) -> Process:
        """Celery beat with its own schedule file: sends the sweeper every few seconds."""
        folder = self.host_dir("beat")
        folder.mkdir(parents=True, exist_ok=True)
        argv = [PYTHON, "-m", "celery", "-A", "sanitize_app", "beat", "--loglevel=INFO"]
        argv += ["-s", str(folder / "celerybeat-schedule")]
        return self.start("beat", argv)

    def wait_ready(self, web: Process, beat: Process) -> None:
        self.wait_for(
            lambda: requests.get(f"{self.web_url}/healthz/", timeout=5).status_code == 200,
            "the web server's /healthz/",
            STARTUP_S,
            [web],
        )
        self.wait_for(lambda: "beat: Starting..." in beat.log(), "beat to start", STARTUP_S, [beat])

    def wait_for(self, check, what: str, timeout: float, needs=()):
        return self.processes.wait_for(check, what, timeout, needs=tuple(needs))

    def report(self) -> str:
        return self.processes.report()

    def stop(self) -> None:
        self.processes.stop_all()


@pytest.fixture(scope="package")
def cluster(django_db_setup, tmp_path_factory):
    """The S3 server with a fresh bucket, the web host and beat, once for the package; workers are
    started by the test modules (``cluster.worker``). Redis's database is emptied first: no message
    of an earlier run reaches these workers."""
    import redis
    from django.conf import settings
    from django.db import connection

    broker = settings.CELERY_BROKER_URL
    assert broker.startswith("redis://"), "the multi-host tests need CELERY_BROKER_URL set to a Redis server"
    assert connection.vendor == "postgresql", "the multi-host tests need DATABASE_URL set to PostgreSQL"
    refuse_a_cache_on_the_broker(settings.CACHES["default"], broker)
    redis.Redis.from_url(broker).flushdb()
    cache = redis.Redis.from_url(cache_url(broker))
    for key in cache.scan_iter("sanitize:*"):  # the hosts' cache keys of an earlier run (a sweep lock...)
        cache.delete(key)
    endpoint_url, log = moto_server()
    s3 = S3Server(endpoint_url=endpoint_url, bucket=f"multihost-{uuid.uuid4().hex[:12]}", _log=log)
    s3.client().create_bucket(Bucket=s3.bucket)
    root = tmp_path_factory.mktemp("hosts")
    hosts = Cluster(root, database_url(connection.settings_dict), broker, s3)
    try:
        hosts.wait_ready(hosts.web(), hosts.beat())
        yield hosts
    finally:
        hosts.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def here(settings, cluster, tmp_path):
    """This test process as one more host on the same bucket, with its own folders."""
    settings.SANITIZE_STORAGE = "s3"
    settings.STORAGES = {**settings.STORAGES, "default": cluster.s3.storage_options()}
    settings.SANITIZE_MODEL_ROOT = tmp_path / "models"
    settings.SANITIZE_MODEL_CACHE = tmp_path / "model-cache"
    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "spacy_pipeline": ""}
    from annotation.services.engine import forget_engines

    forget_engines()
    yield cluster
    forget_engines()


def bucket_keys(s3: S3Server) -> list[str]:
    listing = s3.client().list_objects_v2(Bucket=s3.bucket)
    return [item["Key"] for item in listing.get("Contents", [])]


def files_under(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()] if folder.exists() else []
