"""The masked-output format of the official TAB evaluation script:
``{"doc_id": [[start, end], ...]}`` with the spans a system (or annotator) masks."""

from django.db.models import QuerySet

from ..enums import MASKED_IDENTIFIER_TYPES
from ..models import Document, Mention


def annotator_masked_spans(documents: QuerySet[Document], annotator: str) -> dict[str, list[list[int]]]:
    """DIRECT and QUASI mentions of ``annotator``'s layers, per document, sorted and
    without duplicates. Documents where the annotator has no layer are left out; a layer
    that masks nothing gives an empty list."""
    spans: dict[str, set[tuple[int, int]]] = {
        doc_id: set()
        for doc_id in documents.filter(layers__annotator__username=annotator)
        .order_by("position")
        .values_list("doc_id", flat=True)
    }
    rows = Mention.objects.filter(
        layer__document__in=documents,
        layer__annotator__username=annotator,
        identifier_type__in=MASKED_IDENTIFIER_TYPES,
    ).values_list("layer__document__doc_id", "start_offset", "end_offset")
    for doc_id, start, end in rows:
        spans[doc_id].add((start, end))
    return {doc_id: [list(span) for span in sorted(found)] for doc_id, found in spans.items()}
