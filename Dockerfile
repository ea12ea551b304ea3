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
# torch from PyTorch's CPU index first: the default wheel on PyPI carries the CUDA
# libraries (gigabytes) that a CPU worker never uses. Set SANITIZE_DEVICE=cuda on a GPU
# image instead.
RUN pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
    && pip install --no-cache-dir . \
    && SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput \
    && useradd --system --uid 1000 --home /app sanitize \
    && mkdir -p /app/var/media && chown -R sanitize /app/var

USER sanitize
EXPOSE 8000
CMD ["gunicorn", "sanitize_app.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
