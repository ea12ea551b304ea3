"""WSGI entry point (gunicorn sanitize_app.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sanitize_app.settings.production")
application = get_wsgi_application()
