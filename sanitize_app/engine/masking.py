"""Rendering a document with its identifiers masked (the TAB "review" rendering).

Direct and quasi identifiers are replaced character by character (``*``), so every
offset of the original text still points at the same place; confidential attributes
stay readable and are reported for marking."""

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


@dataclass
class MaskedDocument:
    text: str
    masked: list[tuple[int, int]] = field(default_factory=list)  # merged intervals
    confidential: list[tuple[int, int, str]] = field(default_factory=list)


def merge_intervals(intervals: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


class MaskedReviewRenderer:
    """Masks DIRECT and QUASI spans with one ``mask_char`` per character (line breaks
    are kept so the layout survives)."""

    def __init__(self, mask_char: str = "*"):
        if len(mask_char) != 1:
            raise ValueError("mask_char must be a single character (offsets are preserved)")
        self.mask_char = mask_char

    def render(self, text: str, spans: Iterable[MaskSpan]) -> MaskedDocument:
        spans = list(spans)
        masked = merge_intervals((s.start, s.end) for s in spans if s.identifier_type in MASKED_TYPES)
        pieces, cursor = [], 0
        for start, end in masked:
            pieces.append(text[cursor:start])
            pieces.append("".join("\n" if char == "\n" else self.mask_char for char in text[start:end]))
            cursor = end
        pieces.append(text[cursor:])
        confidential = sorted(
            (s.start, s.end, s.confidential_status) for s in spans if s.confidential_status not in NOT_CONFIDENTIAL
        )
        return MaskedDocument(text="".join(pieces), masked=masked, confidential=confidential)
