"""/healthz/: readiness for load balancers and container health checks, through
django-health-check. No authentication, no data: the answer names the failing checks
only (an error's text can name hosts and addresses; it goes to the server's log).

What a web or worker host needs: the database, the cache (Redis in production: progress,
locks, sessions), the default file storage (the object store in production: uploads,
model archives, exports) and, when tasks go to a broker, the broker. The broker check
pings Redis rather than the Celery workers: a web host can take requests and queue work
while workers restart, and each worker has its own health check (``celery inspect ping``).
The whole answer is bounded by HEALTH_CHECK["timeout_s"]: a check still running then
counts as failed and is abandoned (its thread is not waited for), so an unreachable or
hanging service answers 503 within the limit instead of holding the probe.
"""

import asyncio
import contextlib
import datetime
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property, partial

from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.files.storage import storages
from django.http import JsonResponse
from health_check.base import HealthCheck
from health_check.checks import Cache, Database, Storage
from health_check.contrib.redis import Redis
from health_check.exceptions import ServiceUnavailable
from health_check.views import HealthCheckView
from redis.asyncio import Redis as RedisClient

logger = logging.getLogger(__name__)
PATH = "/healthz/"
# A storage check's outcome is reused for this many seconds by the same process.
STORAGE_CACHE_S = 10


def broker_client(url: str, timeout_s: float) -> RedisClient:
    return RedisClient.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)


class ThrottledStorage(Storage):
    """The library's write/read/delete of a file in the default storage, at most once per
    STORAGE_CACHE_S per process: a load balancer polling every second
    must not turn into three object-store requests a second per web process. The S3
    client here gives up within the time limit and tries once (the app's own client
    keeps botocore's retries)."""

    _last: tuple[float, BaseException | None] | None = None

    @cached_property
    def storage(self):
        default = storages["default"]
        config = settings.STORAGES["default"]
        if config["BACKEND"] != "storages.backends.s3.S3Storage":
            return default
        from botocore.config import Config
        from storages.backends.s3 import S3Storage

        timeout_s = settings.HEALTH_CHECK["timeout_s"]
        client_config = Config(connect_timeout=timeout_s, read_timeout=timeout_s, retries={"max_attempts": 1})
        return S3Storage(**{**config.get("OPTIONS", {}), "client_config": client_config})

    def run(self):
        now = time.monotonic()
        last = type(self)._last
        if last is not None and now - last[0] < STORAGE_CACHE_S:
            if last[1] is not None:
                raise ServiceUnavailable("Storage failed (remembered)") from last[1]
            return
        try:
            super().run()
        except BaseException as error:
            type(self)._last = (now, error)
            raise
        type(self)._last = (now, None)

    @classmethod
    def forget(cls):
        cls._last = None


def configured_checks() -> dict[str, HealthCheck]:
    """The checks by the name the response gives them; the broker only when tasks leave
    the process (the embedded default runs them eagerly and needs no service)."""
    timeout_s = settings.HEALTH_CHECK["timeout_s"]
    checks: dict[str, HealthCheck] = {"database": Database(), "cache": Cache(), "storage": ThrottledStorage()}
    broker = settings.CELERY_BROKER_URL
    if not settings.CELERY_TASK_ALWAYS_EAGER and broker.startswith(("redis://", "rediss://")):
        checks["broker"] = Redis(client_factory=partial(broker_client, broker, timeout_s))
    for check in checks.values():
        check.timeout = datetime.timedelta(seconds=timeout_s)
    return checks


@contextlib.contextmanager
def abandoning_executor():
    """Threads for the synchronous checks that nobody waits for on the way out: a check
    stuck in a client call past the time limit is left to finish (or fail) on its own
    instead of holding the response (the event loop's default executor, and a pool used
    as a context manager, both join their threads)."""
    executor = ThreadPoolExecutor(max_workers=8, thread_name_prefix="healthz")
    try:
        yield executor
    finally:
        executor.shutdown(wait=False, cancel_futures=True)


async def bounded(check: HealthCheck, executor, timeout_s: float):
    """The check's error, or one saying it ran out of time: the library gives a check a
    second of grace past its timeout; here the time limit is the whole budget."""
    try:
        result = await asyncio.wait_for(check.get_result(executor), timeout_s)
    except TimeoutError:
        return ServiceUnavailable(f"Timed out after {timeout_s:g} seconds")
    return result.error


class Healthz(HealthCheckView):
    """The library's view (checks run concurrently, never cached, outside transactions),
    answering JSON always: 200 when every check passes, 503 naming the failing ones.
    Only names go out (an error's text can hold host names and addresses); the errors
    themselves go to the log."""

    def get_executor(self):
        return abandoning_executor()

    async def get(self, request, *args, **kwargs):
        checks = configured_checks()
        timeout_s = settings.HEALTH_CHECK["timeout_s"]
        with self.get_executor() as executor:
            errors = await asyncio.gather(*(bounded(check, executor, timeout_s) for check in checks.values()))
        failing = sorted(name for name, error in zip(checks, errors, strict=True) if error)
        for name, error in zip(checks, errors, strict=True):
            if error:
                logger.error("/healthz/ check %s failed: %s", name, error, exc_info=error)
        answers = {name: "failing" if name in failing else "OK" for name in checks}
        if failing:
            return JsonResponse({"status": "unavailable", "failing": failing, "checks": answers}, status=503)
        return JsonResponse({"status": "ok", "checks": answers})


healthz = Healthz.as_view()


class HealthzMiddleware:
    """Answers /healthz/ before any middleware validates the Host header: a container's
    probe asks http://127.0.0.1:8000/healthz/, a name that ALLOWED_HOSTS (the public
    names) rightly refuses for every other page. Placed first in MIDDLEWARE."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info == PATH:
            return async_to_sync(healthz)(request)
        return self.get_response(request)
