"""Production: every secret and service from the environment, HTTPS only.

Production refuses to start half-configured. Without a broker, tasks would run inside web
requests and trainings as threads inside gunicorn; without a Redis cache, import progress,
de-duplication and the evaluation caches would live in each process's memory; without a
shared storage backend, a worker on another host would not find an upload or a model; a
missing DATABASE_URL would silently mean a database on localhost. ``missing_items`` lists
every such gap, and the settings raise one ImproperlyConfigured naming all of them.
"""

import os
from urllib.parse import parse_qs, urlsplit

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F401,F403
from .base import (
    CACHES,
    MIDDLEWARE,
    SANITIZE_REIDENTIFICATION,
    SANITIZE_RELEASE,
    SANITIZE_TRAINING,
    database_config,
)
from .env import env_bool, env_int

_REDIS_SCHEMES = ("redis://", "rediss://")
_NEW_SECRET = "python -c 'import secrets; print(secrets.token_urlsafe(64))'"


def _set(name: str) -> str:
    return os.environ.get(name, "").strip()


def redis_database(url: str) -> tuple[str, int, int]:
    """(host, port, database number) of a redis:// or rediss:// URL, with Redis's defaults
    filled in: redis://r, redis://r:6379 and redis://r:6379/0 are one database."""
    parts = urlsplit(url)
    path = parts.path.strip("/") or parse_qs(parts.query).get("db", ["0"])[0]
    try:
        return (parts.hostname or "localhost", parts.port or 6379, int(path or 0))
    except ValueError:
        raise ImproperlyConfigured(f"{url!r}: the Redis database must be a number (redis://HOST:6379/2)") from None


def _redis_clashes(broker: str, cache: str) -> list[str]:
    """A cache clear is FLUSHDB: on the broker's or the result backend's database it would
    drop queued tasks or results. The broker and the result backend may share one."""
    results = _set("CELERY_RESULT_BACKEND")
    try:
        cache_db = redis_database(cache)
        on_broker = cache_db == redis_database(broker)
        on_results = results.startswith(_REDIS_SCHEMES) and redis_database(results) == cache_db
    except ImproperlyConfigured as error:
        return [str(error)]
    problems = []
    if on_broker:
        problems.append("CACHE_URL is the broker's Redis database (a cache clear would drop queued tasks): use another")
    if on_results:
        problems.append(
            "CACHE_URL is the result backend's Redis database (a cache clear would drop task results): use another"
        )
    return problems


def missing_items() -> list[str]:
    """Every required setting that is absent or unfit, each with what to set instead."""
    problems = []
    if not _set("SECRET_KEY"):
        problems.append(f"SECRET_KEY is not set (generate one: {_NEW_SECRET})")
    database = _set("DATABASE_URL")
    if not database:
        problems.append("DATABASE_URL is not set (no localhost default): set postgres://USER:PASSWORD@HOST:5432/NAME")
    elif database.startswith("sqlite"):
        problems.append("DATABASE_URL is SQLite (a file on one host): use PostgreSQL shared by web and workers")
    broker = _set("CELERY_BROKER_URL")
    if not broker.startswith(_REDIS_SCHEMES):
        what = "is not set" if not broker else f"is not a Redis URL ({broker.split(':', 1)[0]}://)"
        problems.append(
            f"CELERY_BROKER_URL {what} (tasks would run inside web requests, and the job "
            "mechanism's visibility timeout and /healthz/ assume Redis): set redis://HOST:6379/0"
        )
    cache = _set("CACHE_URL")
    if not cache.startswith(_REDIS_SCHEMES):
        what = "is not set" if not cache else f"is not a Redis URL ({cache.split(':', 1)[0]}://)"
        problems.append(f"CACHE_URL {what} (progress and locks would stay in each process): set redis://HOST:6379/2")
    elif broker.startswith(_REDIS_SCHEMES):
        problems.extend(_redis_clashes(broker, cache))
    problems.extend(_storage_problems())
    return problems


def _storage_problems() -> list[str]:
    storage = _set("SANITIZE_STORAGE")
    if storage == "s3":
        if not _set("AWS_STORAGE_BUCKET_NAME"):
            return ["AWS_STORAGE_BUCKET_NAME is not set (the bucket for SANITIZE_STORAGE=s3)"]
        return []
    if storage == "filesystem":
        if not _set("MEDIA_ROOT"):
            return [
                "MEDIA_ROOT is not set (SANITIZE_STORAGE=filesystem needs the directory that every "
                "web and worker host mounts)"
            ]
        return []
    return [
        "SANITIZE_STORAGE is not set (s3 with AWS_STORAGE_BUCKET_NAME and AWS_S3_ENDPOINT_URL/AWS_*, "
        "or filesystem with MEDIA_ROOT only when every host mounts the same directory)"
    ]


_PROBLEMS = missing_items()
if _PROBLEMS:
    raise ImproperlyConfigured("Production settings are incomplete: " + "; ".join(_PROBLEMS) + ".")

DEBUG = False
# Static files served by the app itself (compressed, cache-busted names): no separate
# web server is needed in front of gunicorn.
_SECURITY = MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1
MIDDLEWARE = [*MIDDLEWARE[:_SECURITY], "whitenoise.middleware.WhiteNoiseMiddleware", *MIDDLEWARE[_SECURITY:]]
SECRET_KEY = _set("SECRET_KEY")
DATABASES = {"default": database_config(_set("DATABASE_URL"))}

# Every task goes to the broker: no eager tasks, no trainings or releases in web threads.
CELERY_TASK_ALWAYS_EAGER = False
SANITIZE_RELEASE = {**SANITIZE_RELEASE, "in_thread": False}
SANITIZE_REIDENTIFICATION = {**SANITIZE_REIDENTIFICATION, "in_thread": False}
SANITIZE_TRAINING = {**SANITIZE_TRAINING, "in_thread": False}
# An unreachable Redis fails a request (and /healthz/) within seconds instead of hanging it.
CACHES = {
    "default": {
        **CACHES["default"],
        "OPTIONS": {"socket_connect_timeout": 3, "socket_timeout": 5},
    }
}

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_REDIRECT_EXEMPT = [r"^healthz/$"]  # container health checks speak plain HTTP
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SECURE = True
X_FRAME_OPTIONS = "DENY"
