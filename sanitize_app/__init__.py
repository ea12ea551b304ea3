"""The sanitize_app project package: Django settings, URLs, the Celery app
(``sanitize_app.celery``, loaded when Django starts: see ``annotation.apps``) and the
framework-free sanitization engine (``sanitize_app.engine``).

Nothing is imported here, so that ``sanitize_app.engine`` can be used without Django."""
