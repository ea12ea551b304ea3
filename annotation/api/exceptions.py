"""Domain errors become API responses that name the offending field."""

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from ..corpus_io.errors import TabImportError
from ..services.errors import DomainError, LayerLocked, StaleLayerVersion


def domain_exception_handler(exc, context):
    if isinstance(exc, StaleLayerVersion):
        body = {"detail": exc.message, "field": exc.field, "layer": exc.layer_id, "current_version": exc.current}
        if exc.entities is not None:
            body["entities"] = exc.entities
        return Response(body, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, LayerLocked):
        return Response(
            {"detail": exc.message, "field": exc.field, "layer_status": exc.status}, status=status.HTTP_409_CONFLICT
        )
    if isinstance(exc, DomainError):
        body = {"detail": exc.message}
        if exc.field:
            body["field"] = exc.field
        return Response(body, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, TabImportError):
        return Response(
            {"detail": "Import rejected, nothing was stored.", "problems": [str(p) for p in exc.problems]},
            status=status.HTTP_400_BAD_REQUEST,
        )
    return exception_handler(exc, context)
