"""The embedded default: SQLite file, tasks in-process, no service needed."""

from .base import *  # noqa: F401,F403
from .base import STORAGES, VAR_DIR, database_config
from .env import env_bool, env_str

DEBUG = env_bool("DEBUG", True)
# A development-only key; production refuses to start without SECRET_KEY.
SECRET_KEY = env_str("SECRET_KEY", "django-insecure-development-only-key-never-use-in-production")
# The embedded default keeps its SQLite file and uploads in var/ (not in git).
VAR_DIR.mkdir(parents=True, exist_ok=True)
DATABASES = {"default": database_config(f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
# Files as configured (the local filesystem unless SANITIZE_STORAGE=s3); static files
# without the manifest, so nothing needs collecting first.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
