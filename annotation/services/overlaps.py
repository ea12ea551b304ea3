"""The overlap policy of a layer, as in the TAB files: spans may nest, never cross.

In the official files no two mentions of one annotator cross ("Istanbul Security
Directorate" and "Directorate on suspicion"), while a few nest ("doctor-patient" around
"patient", "neither a member of the Church of Sweden" around "Church of Sweden"). A
crossing pair has no reading as entities (which one does the shared text belong to?)
and makes masked output depend on the order spans are applied, so it is refused."""

from collections.abc import Iterable

from django.db.models import Q

from ..models import AnnotationLayer, Mention
from .errors import InvalidAnnotation


def crosses(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """The spans overlap and neither contains the other."""
    (a_start, a_end), (b_start, b_end) = a, b
    return a_start < b_start < a_end < b_end or b_start < a_start < b_end < a_end


def crossing_mention(layer: AnnotationLayer, start: int, end: int, exclude: int | None = None) -> Mention | None:
    """The first mention of ``layer`` that the span ``start:end`` would cross."""
    found = Mention.objects.filter(layer=layer).filter(
        Q(start_offset__lt=start, end_offset__gt=start, end_offset__lt=end)
        | Q(start_offset__gt=start, start_offset__lt=end, end_offset__gt=end)
    )
    if exclude is not None:
        found = found.exclude(pk=exclude)
    return found.order_by("start_offset", "id").first()


def refuse_crossing(layer: AnnotationLayer, start: int, end: int, exclude: int | None = None) -> None:
    """Raise ``InvalidAnnotation`` naming the mention that ``start:end`` crosses."""
    other = crossing_mention(layer, start, end, exclude)
    if other is None:
        return
    text = layer.document.text
    raise InvalidAnnotation(
        f"“{text[start:end]}” ({start}–{end}) crosses the {other.entity_type} “{other.span_text}” "
        f"({other.start_offset}–{other.end_offset}, mention {other.tab_mention_id}): a span may lie inside "
        "another or contain it, but not cross it. Select the whole of it, or only a part outside it.",
        field="start_offset",
    )


def crossing_pairs(spans: Iterable[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """Pairs of ids of crossing spans among ``(start, end, id)``, in text order. A sweep
    over the spans sorted by start: each span is compared only with those still open."""
    pairs, open_spans = [], []
    for start, end, ident in sorted(spans):
        open_spans = [(s, e, i) for s, e, i in open_spans if e > start]
        pairs.extend((i, ident) for s, e, i in open_spans if s < start < e < end)
        open_spans.append((start, end, ident))
    return pairs
