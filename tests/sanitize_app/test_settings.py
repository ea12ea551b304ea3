"""Production settings pass Django's deployment checklist; secrets come from the
environment."""

import os
import secrets
import subprocess
import sys

from tests.conftest import REPO


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=environment, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_is_clean_with_production_settings():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SETTINGS_MODULE="sanitize_app.settings.production",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="annotate.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    result = manage("check", DJANGO_SETTINGS_MODULE="sanitize_app.settings.production")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr
