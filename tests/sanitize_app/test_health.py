"""/healthz/ (sanitize_app.health): django-health-check's database, cache, storage and
broker checks, answered as JSON with 200 or 503 naming what failed."""

import socket
import time

import pytest
from django.conf import settings
from django.test import override_settings

pytestmark = pytest.mark.django_db

LOCAL_CACHE = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


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


def test_healthz_is_503_naming_the_cache_and_broker_on_a_closed_port_within_the_timeout(client):
    url = f"redis://127.0.0.1:{closed_port()}/0"
    redis_cache = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}}
    with override_settings(CELERY_TASK_ALWAYS_EAGER=False, CELERY_BROKER_URL=url, CACHES=redis_cache):
        started = time.monotonic()
        response = client.get("/healthz/")
        elapsed = time.monotonic() - started

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["failing"] == ["broker", "cache"]
    assert body["checks"]["database"] == "OK"
    assert body["checks"]["storage"] == "OK"
    assert body["checks"]["broker"].startswith("Unavailable: Unable to connect to Redis")
    assert body["checks"]["cache"] != "OK"
    assert elapsed < settings.HEALTH_CHECK["timeout_s"] + 2


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
