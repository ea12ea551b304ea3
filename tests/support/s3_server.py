"""A real S3-compatible server for tests: moto's standalone server (``ThreadedMotoServer``)
on a free port of 127.0.0.1, spoken to over HTTP by the real boto3 / django-storages
client code. No AWS, no Docker. The fixtures are registered for every test by tests/conftest.py.

    def test_something(s3_storage):       # default_storage is now S3Storage on the server
        s3_storage.endpoint_url, s3_storage.bucket, ...
        s3_storage.requests                # [(method, path), ...] the server received
        s3_storage.client()                # a boto3 client on the server (to inspect or corrupt)

``s3_server`` yields a fresh, empty bucket on the session's server (an ``S3Server``
with ``endpoint_url``, ``bucket``, ``access_key``, ``secret_key``, ``region``), e.g. to
pass to worker processes as ``SANITIZE_STORAGE=s3`` and the ``AWS_*`` variables
(``S3Server.environment()``). ``s3_storage`` also switches this process's
``STORAGES["default"]`` to ``storages.backends.s3.S3Storage`` on that bucket."""

import logging
import threading
import uuid
from dataclasses import dataclass, field

import pytest

ACCESS_KEY = "testing-access-key"
SECRET_KEY = "testing-secret-key"
REGION = "us-east-1"


class _RequestLog:
    """WSGI middleware: remembers each request's method and path, then lets moto answer."""

    def __init__(self, app):
        self.app = app
        self.requests: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        with self._lock:
            self.requests.append((environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")))
        return self.app(environ, start_response)


@dataclass
class S3Server:
    endpoint_url: str
    bucket: str
    access_key: str = ACCESS_KEY
    secret_key: str = SECRET_KEY
    region: str = REGION
    _log: _RequestLog | None = field(default=None, repr=False)

    @property
    def requests(self) -> list[tuple[str, str]]:
        """The (method, path) of every request the server received (all buckets)."""
        return list(self._log.requests) if self._log else []

    def gets(self, key: str) -> int:
        """How many GET requests read ``key`` of this bucket (path-style or virtual-host)."""
        wanted = {f"/{self.bucket}/{key}", f"/{key}"}
        return sum(1 for method, path in self.requests if method == "GET" and path in wanted)

    def client(self):
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key,
            region_name=self.region,
        )

    def storage_options(self) -> dict:
        """``STORAGES["default"]`` for django-storages' S3Storage on this bucket."""
        return {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": self.bucket,
                "endpoint_url": self.endpoint_url,
                "region_name": self.region,
                "access_key": self.access_key,
                "secret_key": self.secret_key,
                "default_acl": None,
                "file_overwrite": False,
                "querystring_auth": True,
            },
        }

    def environment(self) -> dict[str, str]:
        """The environment that makes the settings (``sanitize_app.settings.base``) use this
        bucket: for processes started by a test (workers, web)."""
        return {
            "SANITIZE_STORAGE": "s3",
            "AWS_STORAGE_BUCKET_NAME": self.bucket,
            "AWS_S3_ENDPOINT_URL": self.endpoint_url,
            "AWS_S3_REGION_NAME": self.region,
            "AWS_ACCESS_KEY_ID": self.access_key,
            "AWS_SECRET_ACCESS_KEY": self.secret_key,
        }


_SERVER: tuple[str, _RequestLog] | None = None
_SERVER_LOCK = threading.Lock()


def moto_server() -> tuple[str, _RequestLog]:
    """The process's one moto server (started on first use, a daemon thread that ends
    with the process): its endpoint URL and request log. Not a fixture, so that a test
    module needs to import only ``s3_server`` / ``s3_storage``."""
    global _SERVER
    with _SERVER_LOCK:
        if _SERVER is None:
            from moto.server import ThreadedMotoServer

            server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)  # port 0: a free one
            server.start()
            logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per request
            # The request log wraps moto's WSGI application (werkzeug serves ``.app``).
            log = _RequestLog(server._server.app)
            server._server.app = log
            host, port = server.get_host_and_port()
            _SERVER = (f"http://{host}:{port}", log)
        return _SERVER


@pytest.fixture
def s3_server() -> S3Server:
    """A fresh, empty bucket on the process's S3 server."""
    endpoint_url, log = moto_server()
    server = S3Server(endpoint_url=endpoint_url, bucket=f"sanitize-{uuid.uuid4().hex[:12]}", _log=log)
    server.client().create_bucket(Bucket=server.bucket)
    return server


@pytest.fixture
def s3_storage(settings, s3_server) -> S3Server:
    """This process's default storage is django-storages' S3Storage on ``s3_server``'s
    bucket (Django resets ``default_storage`` when STORAGES changes)."""
    settings.SANITIZE_STORAGE = "s3"
    settings.STORAGES = {**settings.STORAGES, "default": s3_server.storage_options()}
    return s3_server
