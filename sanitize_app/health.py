"""Liveness/readiness endpoint for load balancers and container health checks."""

from django.db import connection
from django.http import JsonResponse


def healthz(request):
    """200 when the database answers, 503 otherwise. No authentication, no data."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # any database failure means "not ready"
        return JsonResponse({"status": "unavailable", "database": type(exc).__name__}, status=503)
    return JsonResponse({"status": "ok"})
