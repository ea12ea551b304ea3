# The production image: the web app (gunicorn), the Celery workers, beat and the one-shot
# migrate service run from it. Files live in the object store (SANITIZE_STORAGE=s3); var/
# holds only each container's own scratch (trainings) and model cache.
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
# torch from PyTorch's CPU index first: the default wheel on PyPI carries the CUDA
# libraries (gigabytes) that a CPU worker never uses. Set SANITIZE_DEVICE=cuda on a GPU
# image instead. collectstatic reads the production settings, which refuse to load without
# every service named: placeholders that it never connects to (the real ones come from the
# environment at run time).
RUN pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
    && pip install --no-cache-dir . \
    && SECRET_KEY=collectstatic-only DATABASE_URL=postgres://build/none CELERY_BROKER_URL=redis://build/0 \
       CACHE_URL=redis://build/1 SANITIZE_STORAGE=filesystem MEDIA_ROOT=/tmp/build-media \
       python manage.py collectstatic --noinput \
    && useradd --system --uid 1000 --home /app sanitize \
    && mkdir -p /app/var/models /app/var/model-cache && chown -R sanitize /app/var

USER sanitize
EXPOSE 8000
CMD ["gunicorn", "sanitize_app.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
