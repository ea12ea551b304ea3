"""Producing the masked review rendering of a layer (after confirmation), and its
plain-text and HTML downloads."""

from django.template.loader import render_to_string

from sanitize_app.engine.masking import MaskedReviewRenderer, MaskSpan

from ..enums import FINISHED_LAYER_STATUSES
from ..models import AnnotationLayer, MaskedReview

# Statuses after confirmation: a change then must show in the masked document.
FINISHED = FINISHED_LAYER_STATUSES


def is_current(layer: AnnotationLayer, review: MaskedReview | None = None) -> bool:
    """The stored rendering shows this version of the layer in the corpus's style."""
    if review is None:
        review = MaskedReview.objects.filter(layer=layer).first()
    return review is not None and review.layer_version == layer.version and review.style == _style(layer)


def _style(layer: AnnotationLayer) -> str:
    return layer.document.corpus.mask_style


def render_masked_review(layer: AnnotationLayer) -> MaskedReview:
    """Render and store the masked review of ``layer``; a rendering of the same layer
    version and style is reused: running it again on an unchanged layer only reads."""
    layer.refresh_from_db(fields=["version"])
    # Only what tells whether it is current: decoding the stored text and spans of a
    # large layer costs more than rendering it again.
    existing = MaskedReview.objects.filter(layer=layer).only("id", "layer_id", "layer_version", "style").first()
    if is_current(layer, existing):
        return existing
    spans = [
        MaskSpan(*row)
        for row in layer.mentions.values_list(
            "start_offset", "end_offset", "identifier_type", "confidential_status", "entity_type"
        )
    ]
    style = _style(layer)
    document = MaskedReviewRenderer(style=style).render(layer.document.text, spans)
    values = {
        "layer_version": layer.version,
        "style": style,
        "masked_text": document.text,
        "masked_spans": [list(span) for span in document.masked],
        "confidential_spans": [list(span) for span in document.confidential],
        "masked_mentions": sum(1 for span in spans if span.identifier_type in ("DIRECT", "QUASI")),
    }
    if existing is None:
        return MaskedReview.objects.create(layer=layer, **values)
    # Written without reading the old rendering back (update_or_create would decode it).
    review = MaskedReview(pk=existing.pk, layer=layer, **values)
    review.save(force_update=True)
    return review


def review_segments(review: MaskedReview) -> list[tuple[str, str, str]]:
    """The masked text cut into (text, kind, category) pieces: kind is "masked",
    "confidential" or "" (plain)."""
    text = review.masked_text
    marks = [(start, end, "masked", "") for start, end in review.masked_spans] + [
        (start, end, "confidential", category) for start, end, category in review.confidential_spans
    ]
    segments, cursor = [], 0
    for start, end, kind, category in sorted(marks):
        if start < cursor:  # a confidential attribute inside a masked span: the mask wins
            continue
        if start > cursor:
            segments.append((text[cursor:start], "", ""))
        segments.append((text[start:end], kind, category))
        cursor = end
    if cursor < len(text):
        segments.append((text[cursor:], "", ""))
    return segments


def masked_review_html(review: MaskedReview) -> str:
    """A standalone HTML page of the masked document (inline style, no scripts), to
    save or print: masked stretches greyed, confidential attributes marked."""
    layer = review.layer
    return render_to_string(
        "annotation/masked_review_download.html",
        {"review": review, "layer": layer, "document": layer.document, "segments": review_segments(review)},
    )


def download_name(review: MaskedReview, extension: str) -> str:
    layer = review.layer
    return f"{layer.document.doc_id}.{layer.annotator.username}.masked.{extension}"
