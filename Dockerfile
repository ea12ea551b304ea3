# The production image: the web app (gunicorn) and the Celery worker run from it.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=sanitize_app.settings.production
WORKDIR /app

COPY pyproject.toml README.md ./
COPY sanitize_app ./sanitize_app
COPY annotation ./annotation
COPY frontend ./frontend
COPY data ./data
COPY manage.py ./
RUN pip install --no-cache-dir . \
    && SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput \
    && useradd --system --uid 1000 --home /app sanitize \
    && mkdir -p /app/var/media && chown -R sanitize /app/var

USER sanitize
EXPOSE 8000
CMD ["gunicorn", "sanitize_app.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
