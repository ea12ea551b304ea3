"""Producing the masked review rendering of a layer (after confirmation)."""

from sanitize_app.engine.masking import MaskedReviewRenderer, MaskSpan

from ..models import AnnotationLayer, MaskedReview


def is_current(layer: AnnotationLayer) -> bool:
    return MaskedReview.objects.filter(layer=layer, layer_version=layer.version).exists()


def render_masked_review(layer: AnnotationLayer) -> MaskedReview:
    """Render and store the masked review of ``layer``; a rendering of the same layer
    version is reused: running it again on an unchanged layer only reads two rows."""
    layer.refresh_from_db(fields=["version"])
    existing = MaskedReview.objects.filter(layer=layer).first()
    if existing is not None and existing.layer_version == layer.version:
        return existing
    spans = [
        MaskSpan(*row)
        for row in layer.mentions.values_list("start_offset", "end_offset", "identifier_type", "confidential_status")
    ]
    document = MaskedReviewRenderer().render(layer.document.text, spans)
    review, _ = MaskedReview.objects.update_or_create(
        layer=layer,
        defaults={
            "layer_version": layer.version,
            "masked_text": document.text,
            "masked_spans": [list(span) for span in document.masked],
            "confidential_spans": [list(span) for span in document.confidential],
            "masked_mentions": sum(1 for span in spans if span.identifier_type in ("DIRECT", "QUASI")),
        },
    )
    return review
