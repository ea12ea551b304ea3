"""Settings for the test suite: the development defaults plus a fast password hasher.

DATABASE_URL and CELERY_BROKER_URL select the backend exactly as in production, so the
same suite runs on the embedded default and on the real PostgreSQL and Redis."""

from .development import *  # noqa: F401,F403

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# MEDIA_ROOT is pointed at a temporary folder by an autouse fixture (tests/conftest.py).

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # A file, not shared-cache memory: the browser tests' live server thread and the test
    # thread then wait for each other's locks (WAL, busy timeout) instead of failing.
    import os
    import tempfile

    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": os.path.join(tempfile.gettempdir(), f"sanitize-test-{os.getpid()}.sqlite3")
    }

# Throttling stays on in the suite (the middleware and classes run as in production), at
# rates no test reaches; the throttling tests lower them for themselves.
REST_FRAMEWORK = {  # noqa: F405
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": {"anon": "100000/min", "user": "100000/min"},
}

# Releases started from a page run inside the request here (eager tasks), so that a test
# reads the finished release; tests of the embedded background thread turn it on.
SANITIZE_RELEASE = {**SANITIZE_RELEASE, "in_thread": False}  # noqa: F405
SANITIZE_REIDENTIFICATION = {**SANITIZE_REIDENTIFICATION, "in_thread": False}  # noqa: F405
SANITIZE_REPORTS = {**SANITIZE_REPORTS, "in_thread": False}  # noqa: F405
