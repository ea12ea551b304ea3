"""/healthz/: readiness for load balancers and container health checks, through
django-health-check. No authentication, no data: each check answers "OK" or its error.

What a web or worker host needs: the database, the cache (Redis in production: progress,
locks, sessions), the default file storage (the object store in production: uploads,
model archives, exports) and, when tasks go to a broker, the broker. The broker check
pings Redis rather than the Celery workers: a web host can take requests and queue work
while workers restart, and each worker has its own health check (``celery inspect ping``).
Every check is bounded by HEALTH_CHECK["timeout_s"], so an unreachable service answers
503 within seconds instead of holding the probe.
"""

import asyncio
import datetime
from functools import partial

from django.conf import settings
from django.http import JsonResponse
from health_check.base import HealthCheck
from health_check.checks import Cache, Database, Storage
from health_check.contrib.redis import Redis
from health_check.views import HealthCheckView
from redis.asyncio import Redis as RedisClient


def broker_client(url: str, timeout_s: float) -> RedisClient:
    return RedisClient.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)


def configured_checks() -> dict[str, HealthCheck]:
    """The checks by the name the response gives them; the broker only when tasks leave
    the process (the embedded default runs them eagerly and needs no service)."""
    timeout_s = settings.HEALTH_CHECK["timeout_s"]
    checks: dict[str, HealthCheck] = {"database": Database(), "cache": Cache(), "storage": Storage()}
    broker = settings.CELERY_BROKER_URL
    if not settings.CELERY_TASK_ALWAYS_EAGER and broker.startswith(("redis://", "rediss://")):
        checks["broker"] = Redis(client_factory=partial(broker_client, broker, timeout_s))
    for check in checks.values():
        check.timeout = datetime.timedelta(seconds=timeout_s)
    return checks


class Healthz(HealthCheckView):
    """The library's view (checks run concurrently, never cached, outside transactions),
    answering JSON always: 200 when every check passes, 503 naming the failing ones."""

    async def get(self, request, *args, **kwargs):
        checks = configured_checks()
        with self.get_executor() as executor:
            results = await asyncio.gather(*(check.get_result(executor) for check in checks.values()))
        errors = {name: result.error for name, result in zip(checks, results, strict=True)}
        answers = {name: str(error) if error else "OK" for name, error in errors.items()}
        failing = sorted(name for name, answer in answers.items() if answer != "OK")
        if failing:
            return JsonResponse({"status": "unavailable", "failing": failing, "checks": answers}, status=503)
        return JsonResponse({"status": "ok", "checks": answers})


healthz = Healthz.as_view()
