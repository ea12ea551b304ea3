"""/healthz/ (sanitize_app.health): django-health-check's database, cache, storage and
broker checks, answered as JSON with 200 or 503 naming what failed (names only), within
the time limit, to any Host header."""

import logging
import socket
import time

import pytest
from django.conf import settings
from django.test import override_settings
from health_check.base import HealthCheck

from sanitize_app import health

pytestmark = pytest.mark.django_db

LOCAL_CACHE = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture(autouse=True)
def fresh_storage_check():
    """Each test sees the storage checked anew, not a result remembered from another."""
    health.ThrottledStorage.forget()
    yield
    health.ThrottledStorage.forget()


def closed_port() -> int:
    """A local port nothing listens on: a connection to it is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@override_settings(CELERY_TASK_ALWAYS_EAGER=True, CACHES=LOCAL_CACHE)
def test_embedded_healthz_checks_database_cache_and_storage_and_no_broker(client):
    response = client.get("/healthz/")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"status": "ok", "checks": {"database": "OK", "cache": "OK", "storage": "OK"}}
    assert "no-cache" in response["Cache-Control"]


def test_healthz_is_503_naming_the_cache_and_broker_on_a_closed_port_within_the_timeout_without_details(client, caplog):
    port = closed_port()
    url = f"redis://127.0.0.1:{port}/0"
    redis_cache = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}}
    with override_settings(CELERY_TASK_ALWAYS_EAGER=False, CELERY_BROKER_URL=url, CACHES=redis_cache):
        started = time.monotonic()
        with caplog.at_level(logging.ERROR, logger="sanitize_app.health"):
            response = client.get("/healthz/")
        elapsed = time.monotonic() - started

    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "failing": ["broker", "cache"],
        "checks": {"database": "OK", "cache": "failing", "storage": "OK", "broker": "failing"},
    }
    assert str(port) not in response.content.decode() and "connect" not in response.content.decode().lower()
    # The details stay on the server.
    assert "broker failed: Unavailable: Unable to connect to Redis" in caplog.text
    assert elapsed < settings.HEALTH_CHECK["timeout_s"] + 1


class Hanging(HealthCheck):
    """A service that never answers within the limit: a synchronous client call stuck for 5 s."""

    def run(self):
        time.sleep(5)

    def __repr__(self):
        return "Hanging()"


@override_settings(CELERY_TASK_ALWAYS_EAGER=True, CACHES=LOCAL_CACHE, HEALTH_CHECK={"timeout_s": 1})
def test_a_hanging_check_is_abandoned_and_the_503_comes_within_the_time_limit(client, monkeypatch):
    checks = health.configured_checks
    monkeypatch.setattr(health, "configured_checks", lambda: {**checks(), "hanging": Hanging()})

    started = time.monotonic()
    response = client.get("/healthz/")
    elapsed = time.monotonic() - started

    assert response.status_code == 503
    assert response.json()["failing"] == ["hanging"]
    assert elapsed < 1 + 1


@override_settings(CELERY_TASK_ALWAYS_EAGER=True, CACHES=LOCAL_CACHE)
def test_the_storage_check_runs_at_most_once_per_period_per_process(client, monkeypatch):
    writes = []
    save = health.ThrottledStorage.check_save
    monkeypatch.setattr(health.ThrottledStorage, "check_save", lambda self, *a: writes.append(1) or save(self, *a))

    assert client.get("/healthz/").status_code == 200
    assert client.get("/healthz/").status_code == 200
    assert len(writes) == 1

    def broken(self, *args):
        raise OSError("disk at 10.0.0.7 gone")

    monkeypatch.setattr(health.ThrottledStorage, "check_save", broken)
    assert client.get("/healthz/").status_code == 200  # the remembered success, still fresh
    monkeypatch.setattr(health, "STORAGE_CACHE_S", 0)
    response = client.get("/healthz/")
    assert response.status_code == 503
    assert response.json()["failing"] == ["storage"]
    assert "10.0.0.7" not in response.content.decode()


S3_STORAGE = {
    **settings.STORAGES,
    "default": {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": {"bucket_name": "files"}},
}


@override_settings(STORAGES=S3_STORAGE, HEALTH_CHECK={"timeout_s": 2})
def test_the_storage_check_s_s3_client_gives_up_within_the_limit_and_tries_once():
    from django.core.files.storage import storages

    config = health.ThrottledStorage().storage.client_config

    assert (config.connect_timeout, config.read_timeout, config.retries) == (2, 2, {"max_attempts": 1})
    assert storages["default"].client_config.retries != {"max_attempts": 1}  # the app's client keeps retrying


@override_settings(ALLOWED_HOSTS=["annotate.example.org"], CELERY_TASK_ALWAYS_EAGER=True, CACHES=LOCAL_CACHE)
def test_a_container_probe_on_127_0_0_1_is_answered_while_other_pages_refuse_that_host(client):
    assert client.get("/healthz/", HTTP_HOST="127.0.0.1:8000").status_code == 200
    assert client.get("/login/", HTTP_HOST="127.0.0.1:8000").status_code == 400
    assert client.get("/login/", HTTP_HOST="annotate.example.org").status_code == 200


@pytest.mark.services
def test_healthz_on_the_services_checks_redis_as_broker_and_cache(client):
    assert settings.CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert settings.CELERY_BROKER_URL.startswith("redis://")

    response = client.get("/healthz/")

    assert response.status_code == 200, response.content
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "OK", "cache": "OK", "storage": "OK", "broker": "OK"},
    }
