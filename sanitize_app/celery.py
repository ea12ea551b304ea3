"""The Celery application.

Configuration comes from Django settings (keys prefixed ``CELERY_``). On the embedded
default no broker is configured and tasks run in-process (``task_always_eager``).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sanitize_app.settings.development")

app = Celery("sanitize_app")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
