"""Cutting a document into runs of text for highlighting.

Mentions may overlap (the official files have a few), so the text is cut at every
mention boundary; each run lists the mentions covering it, innermost last."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol


class Span(Protocol):
    start_offset: int
    end_offset: int


@dataclass
class Segment:
    text: str
    start: int
    mentions: list = field(default_factory=list)

    @property
    def mention(self):
        """The innermost mention covering this run (None for plain text)."""
        return self.mentions[-1] if self.mentions else None

    @property
    def starts_mention(self) -> bool:
        return bool(self.mentions) and self.mentions[-1].start_offset == self.start


def segment_text(text: str, mentions: Sequence[Span], start: int = 0, end: int | None = None) -> list[Segment]:
    """Runs of ``text[start:end]`` in order (offsets stay those of ``text``); plain runs
    have no mentions. Mentions reaching outside the range are clipped to it."""
    end = len(text) if end is None else end
    cuts = {start, end}
    for mention in mentions:
        cuts.add(mention.start_offset)
        cuts.add(mention.end_offset)
    bounds = sorted(cut for cut in cuts if start <= cut <= end)
    ordered = sorted(mentions, key=lambda m: (m.start_offset, -m.end_offset))
    segments, active, next_index = [], [], 0
    for left, right in zip(bounds, bounds[1:], strict=False):
        active = [m for m in active if m.end_offset > left]
        while next_index < len(ordered) and ordered[next_index].start_offset <= left:
            if ordered[next_index].end_offset > left:
                active.append(ordered[next_index])
            next_index += 1
        segments.append(Segment(text=text[left:right], start=left, mentions=list(active)))
    return segments
