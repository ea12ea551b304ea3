"""An export as an HTTP download: the one answer the API and the export page both send."""

from django.http import HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils.http import content_disposition_header

from ..services.exports import CorpusExport


def download_response(export: CorpusExport) -> HttpResponseBase:
    """Streamed while the writer produces it (a TAB corpus), or whole with its length
    (a masked-output file), under the export's own file name."""
    if export.stream:
        response = StreamingHttpResponse(export.chunks, content_type=export.content_type)
    else:
        response = HttpResponse(export.text(), content_type=export.content_type)
    response["Content-Disposition"] = content_disposition_header(True, export.filename)
    return response
