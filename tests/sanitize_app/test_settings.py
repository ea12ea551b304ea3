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


def production_shell(code: str, **env: str) -> subprocess.CompletedProcess:
    """Run ``code`` in ``manage.py shell`` under the production settings and ``env``."""
    return manage(
        "shell",
        "--no-imports",
        "-c",
        code,
        DJANGO_SETTINGS_MODULE="sanitize_app.settings.production",
        SECRET_KEY=secrets.token_urlsafe(64),
        **env,
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
