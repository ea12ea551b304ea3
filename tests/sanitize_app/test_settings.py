"""Production settings refuse to start half-configured, naming every missing service, and
pass Django's deployment checklist when complete; secrets come from the environment.

The production processes run in a subprocess with a controlled environment: only PATH,
HOME and what each test sets, so that nothing from the developer's shell fills a gap."""

import importlib
import os
import secrets
import subprocess
import sys

import pytest

from tests.conftest import REPO

PRODUCTION = "sanitize_app.settings.production"


def complete_environment(**overrides: str) -> dict[str, str]:
    """Every item production requires, pointing at services that need not be running:
    the settings and the deployment checks connect to none of them."""
    return {
        "SECRET_KEY": secrets.token_urlsafe(64),
        "DATABASE_URL": "postgres://sanitize:secret@db.internal:5432/sanitize_app",
        "CELERY_BROKER_URL": "redis://redis.internal:6379/0",
        "CACHE_URL": "redis://redis.internal:6379/2",
        "SANITIZE_STORAGE": "s3",
        "AWS_STORAGE_BUCKET_NAME": "sanitize-files",
        "ALLOWED_HOSTS": "annotate.example.org",
        **overrides,
    }


def run_production(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    environment = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"), **env}
    environment["DJANGO_SETTINGS_MODULE"] = PRODUCTION
    return subprocess.run(
        [sys.executable, *args], cwd=REPO, env=environment, capture_output=True, text=True, timeout=120
    )


def setup_django(env: dict[str, str]) -> subprocess.CompletedProcess:
    return run_production(["-c", "import django; django.setup()"], env)


def production_shell(code: str, **env: str) -> subprocess.CompletedProcess:
    """Run ``code`` under complete production settings and ``env``. It reads the settings
    only (no django.setup(): loading every app would take seconds and prove nothing here)."""
    return run_production(["-c", code], complete_environment(**env))


def refusal(result: subprocess.CompletedProcess) -> str:
    """The one ImproperlyConfigured message the settings raised."""
    assert result.returncode != 0, result.stdout
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("django.core.exceptions.ImproperlyConfigured: Production settings are incomplete: ")
    return last


def test_check_deploy_is_clean_with_a_complete_production_environment():
    result = run_production(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], complete_environment())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_production_with_nothing_configured_names_every_missing_item_in_one_message():
    message = refusal(setup_django({}))

    for item in ("SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "SANITIZE_STORAGE"):
        assert f"{item} is not set" in message, item
    assert "tasks would run inside web requests" in message
    assert "only when every host mounts the same directory" in message


def test_production_names_each_unfit_value_and_only_those():
    env = complete_environment(
        DATABASE_URL="sqlite:////srv/db.sqlite3",
        CELERY_BROKER_URL="amqp://rabbit.internal//",
        CACHE_URL="memcached://cache.internal:11211",
        AWS_STORAGE_BUCKET_NAME="",
    )
    message = refusal(setup_django(env))

    assert "DATABASE_URL is SQLite" in message
    assert "CELERY_BROKER_URL is not a Redis URL (amqp://)" in message
    assert "CACHE_URL is not a Redis URL (memcached://)" in message
    assert "AWS_STORAGE_BUCKET_NAME is not set" in message
    assert "SECRET_KEY" not in message


def test_production_refuses_the_cache_on_the_brokers_redis_database_and_a_filesystem_without_media_root():
    env = complete_environment(CACHE_URL="redis://redis.internal:6379/0", SANITIZE_STORAGE="filesystem")
    message = refusal(setup_django(env))

    assert "CACHE_URL is the broker's Redis database" in message
    assert "MEDIA_ROOT is not set (SANITIZE_STORAGE=filesystem" in message
    assert "AWS_STORAGE_BUCKET_NAME" not in message


def test_complete_production_sends_every_task_to_the_broker_and_bounds_the_redis_cache():
    code = (
        "from django.conf import settings as s; "
        "print(s.CELERY_TASK_ALWAYS_EAGER, s.SANITIZE_TRAINING['in_thread'], s.SANITIZE_RELEASE['in_thread'], "
        "s.SANITIZE_REIDENTIFICATION['in_thread'], s.CACHES['default']['BACKEND'], "
        "s.CACHES['default']['OPTIONS']['socket_connect_timeout'], s.DATABASES['default']['HOST'], "
        "s.STORAGES['default']['BACKEND'], s.MEDIA_ROOT, s.DATABASES['default']['OPTIONS']['connect_timeout'])"
    )
    result = production_shell(code, SANITIZE_STORAGE="filesystem", MEDIA_ROOT="/mnt/shared/media")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "False",
        "False",
        "False",
        "False",
        "django.core.cache.backends.redis.RedisCache",
        "3",
        "db.internal",
        "django.core.files.storage.FileSystemStorage",
        "/mnt/shared/media",
        "5",
    ]


@pytest.fixture
def production(monkeypatch):
    """The production settings module imported in this process under a complete
    environment; its missing_items() reads the environment anew at each call."""
    for name, value in complete_environment().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CELERY_RESULT_BACKEND", raising=False)
    sys.modules.pop(PRODUCTION, None)
    yield importlib.import_module(PRODUCTION)
    sys.modules.pop(PRODUCTION, None)


def test_redis_urls_are_compared_by_host_port_and_database_number(production):
    one = ("r", 6379, 0)
    for url in ("redis://r", "redis://r:6379", "redis://r:6379/0", "rediss://:secret@r:6379/0", "redis://r?db=0"):
        assert production.redis_database(url) == one, url
    assert production.redis_database("redis://r:6380/2") == ("r", 6380, 2)
    assert production.redis_database("redis://r/?db=3") == ("r", 6379, 3)


def test_the_cache_may_share_no_database_with_the_broker_or_the_result_backend(production, monkeypatch):
    monkeypatch.setenv("CELERY_BROKER_URL", "rediss://redis.internal:6379")
    monkeypatch.setenv("CACHE_URL", "rediss://redis.internal:6379/0")
    assert production.missing_items() == [
        "CACHE_URL is the broker's Redis database (a cache clear would drop queued tasks): use another"
    ]

    monkeypatch.setenv("CACHE_URL", "redis://redis.internal/2")
    monkeypatch.setenv("CELERY_RESULT_BACKEND", "redis://redis.internal:6379/2")
    assert production.missing_items() == [
        "CACHE_URL is the result backend's Redis database (a cache clear would drop task results): use another"
    ]

    monkeypatch.setenv("CELERY_RESULT_BACKEND", "redis://redis.internal:6379/0")  # the broker's: allowed
    assert production.missing_items() == []
    monkeypatch.setenv("CACHE_URL", "redis://redis.internal:6379/two")
    assert production.missing_items() == [
        "'redis://redis.internal:6379/two': the Redis database must be a number (redis://HOST:6379/2)"
    ]


def test_production_answers_healthz_first_and_serves_static_files_right_after_the_security_middleware(production):
    assert production.MIDDLEWARE[:3] == [
        "sanitize_app.health.HealthzMiddleware",
        "django.middleware.security.SecurityMiddleware",
        "whitenoise.middleware.WhiteNoiseMiddleware",
    ]


def directives(header: str) -> dict[str, set[str]]:
    return {name: set(values) for name, *values in (part.split() for part in header.split(";") if part.strip())}


def test_pages_carry_a_strict_content_security_policy(client):
    response = client.get("/login/")
    assert response.status_code == 200
    assert directives(response["Content-Security-Policy"]) == {
        "default-src": {"'self'"},
        "script-src": {"'self'"},
        "style-src": {"'self'"},
        "img-src": {"'self'", "data:"},
        "font-src": {"'self'"},
        "connect-src": {"'self'"},
        "object-src": {"'none'"},
        "base-uri": {"'self'"},
        "form-action": {"'self'"},
        "frame-ancestors": {"'none'"},
    }
    assert "Content-Security-Policy-Report-Only" not in response


def test_the_policy_can_be_rolled_out_report_only_from_the_environment():
    code = (
        "from django.conf import settings; "
        "print(settings.CONTENT_SECURITY_POLICY, "
        "settings.CONTENT_SECURITY_POLICY_REPORT_ONLY['DIRECTIVES']['script-src'], "
        "settings.CONTENT_SECURITY_POLICY_REPORT_ONLY['DIRECTIVES']['report-uri'])"
    )
    result = production_shell(
        code,
        SANITIZE_CSP_REPORT_ONLY="1",
        SANITIZE_CSP_REPORT_URI="/csp-reports/",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "None [\"'self'\"] ['/csp-reports/']"


def test_throttling_is_read_from_the_environment():
    code = (
        "from django.conf import settings; "
        "print(settings.AXES_FAILURE_LIMIT, settings.AXES_COOLOFF_TIME, settings.AXES_LOCKOUT_PARAMETERS, "
        "settings.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'], settings.REST_FRAMEWORK['NUM_PROXIES'])"
    )
    result = production_shell(
        code,
        SANITIZE_LOGIN_FAILURE_LIMIT="7",
        SANITIZE_LOGIN_COOLOFF_MINUTES="30",
        SANITIZE_API_USER_RATE="600/min",
        SANITIZE_API_ANON_RATE="10/min",
        SANITIZE_NUM_PROXIES="1",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ("7 0:30:00 [['username', 'ip_address']] {'anon': '10/min', 'user': '600/min'} 1")
