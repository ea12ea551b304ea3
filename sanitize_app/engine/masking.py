"""Rendering a document with its identifiers masked (the TAB "review" rendering).

Direct and quasi identifiers are replaced character by character (``*``), so every
offset of the original text still points at the same place, or, as a corpus option,
by their entity type (``[PERSON]``), which reads better but moves the offsets (the
rendering reports its spans in its own coordinates). Confidential attributes stay
readable and are reported for marking."""

from collections.abc import Iterable
from dataclasses import dataclass, field

MASKED_TYPES = frozenset({"DIRECT", "QUASI"})
NOT_CONFIDENTIAL = frozenset({None, "NOT_CONFIDENTIAL"})


@dataclass(frozen=True)
class MaskSpan:
    start: int
    end: int
    identifier_type: str | None
    confidential_status: str | None = None
    entity_type: str | None = None


@dataclass
class MaskedDocument:
    text: str
    masked: list[tuple[int, int]] = field(default_factory=list)  # merged intervals, in ``text``
    confidential: list[tuple[int, int, str]] = field(default_factory=list)  # in ``text``


def merge_intervals(intervals: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


class MaskedReviewRenderer:
    """Masks DIRECT and QUASI spans, with one ``mask_char`` per character (line breaks
    are kept so the layout survives) or, with ``style="labels"``, with the entity type of
    the first span of each masked stretch."""

    STYLES = ("stars", "labels")

    def __init__(self, mask_char: str = "*", style: str = "stars"):
        if len(mask_char) != 1:
            raise ValueError("mask_char must be a single character (offsets are preserved)")
        if style not in self.STYLES:
            raise ValueError(f"style must be one of {', '.join(self.STYLES)}, not {style!r}")
        self.mask_char = mask_char
        self.style = style

    def render(self, text: str, spans: Iterable[MaskSpan]) -> MaskedDocument:
        spans = list(spans)
        to_mask = sorted((s for s in spans if s.identifier_type in MASKED_TYPES), key=lambda s: (s.start, -s.end))
        masked = merge_intervals((s.start, s.end) for s in to_mask)
        pieces, out_masked, cursor, length = [], [], 0, 0
        shifts: list[tuple[int, int, int]] = []  # (source start, source end, length change) of each mask
        first = 0  # the first span to mask that starts at or after the current mask (both ascend)
        for start, end in masked:
            pieces.append(text[cursor:start])
            length += start - cursor
            while to_mask[first].start < start:
                first += 1
            replacement = self._replacement(text[start:end], self._label(to_mask[first]))
            shifts.append((start, end, len(replacement) - (end - start)))
            out_masked.append((length, length + len(replacement)))
            pieces.append(replacement)
            length += len(replacement)
            cursor = end
        pieces.append(text[cursor:])
        confidential = sorted(
            moved
            for s in spans
            if s.confidential_status not in NOT_CONFIDENTIAL and (moved := _outside_masks(s, shifts)) is not None
        )
        return MaskedDocument(text="".join(pieces), masked=out_masked, confidential=confidential)

    def _replacement(self, original: str, label: str) -> str:
        if self.style == "labels":
            return f"[{label}]"
        return "".join("\n" if char == "\n" else self.mask_char for char in original)

    @staticmethod
    def _label(first: MaskSpan) -> str:
        """The label of a merged mask: the type of the span it starts with."""
        return first.entity_type or first.identifier_type or "MASKED"


def _outside_masks(span: MaskSpan, shifts: list[tuple[int, int, int]]) -> tuple[int, int, str] | None:
    """The confidential span in output coordinates, cut to what a mask leaves readable
    (the mask wins); None when it is masked entirely."""
    start, end = span.start, span.end
    for mask_start, mask_end, _change in shifts:
        if mask_start <= start < mask_end:
            start = mask_end
        if mask_start < end <= mask_end:
            end = mask_start
    if start >= end:
        return None
    return (_moved(start, shifts), _moved(end, shifts), span.confidential_status)


def _moved(position: int, shifts: list[tuple[int, int, int]]) -> int:
    """Where a source position outside every mask lands in the output: moved by the
    length change of every mask before it."""
    return position + sum(change for _, mask_end, change in shifts if mask_end <= position)
