"""The sanitize_app project package: Django settings, URLs and the Celery app.

The Celery app is imported here so that ``@shared_task`` binds to it whenever Django
starts (web process, management command or worker).
"""

from .celery import app as celery_app

__all__ = ["celery_app"]
