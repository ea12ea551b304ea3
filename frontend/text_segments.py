"""Cutting a document into runs of text for highlighting.

Mentions may overlap (the official files nest a few: "doctor-patient" holds "patient"),
so the text is cut at every mention boundary; each run lists the mentions covering it,
outermost first, innermost last. ``nest_segments`` then groups the runs into properly
nested pieces, one per mention, so that an outer mention stays an element of its own
around the inner one (both visible, both clickable)."""

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
    def end(self) -> int:
        return self.start + len(self.text)

    @property
    def mention(self):
        """The innermost mention covering this run (None for plain text)."""
        return self.mentions[-1] if self.mentions else None

    @property
    def starts_mention(self) -> bool:
        return bool(self.mentions) and self.mentions[-1].start_offset == self.start


@dataclass
class Piece:
    """One mention's element: the runs it covers and the pieces nested inside it.

    A mention is one piece, unless it crosses another mention (which TAB files never
    do within a layer, but the database may hold): then it is cut where the other one
    closes, and each part is a piece of the same mention."""

    mention: Span
    start: int
    end: int
    children: list = field(default_factory=list)  # Segment | Piece, in text order

    @property
    def ends_mention(self) -> bool:
        """The piece where the mention ends (the one that carries its tag)."""
        return self.end == self.mention.end_offset

    @property
    def leaf(self) -> Segment | None:
        """The only run of a piece with nothing nested inside, else None."""
        if len(self.children) == 1 and isinstance(self.children[0], Segment):
            return self.children[0]
        return None


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


def nest_segments(segments: list[Segment]) -> list[Segment | Piece]:
    """The runs grouped into a tree of pieces: plain runs and outermost pieces at the top.

    A run's mention list is the path of pieces it lies in. Going from one run to the
    next, the pieces on the common prefix of the two paths stay open, the others close
    and the new ones open (a mention still running after a crossing one closed is
    reopened as a new piece)."""
    top: list[Segment | Piece] = []
    open_pieces: list[Piece] = []
    for segment in segments:
        depth, path = 0, segment.mentions
        while depth < len(open_pieces) and depth < len(path) and open_pieces[depth].mention is path[depth]:
            depth += 1
        del open_pieces[depth:]
        for mention in path[depth:]:
            piece = Piece(mention, segment.start, segment.start)
            (open_pieces[-1].children if open_pieces else top).append(piece)
            open_pieces.append(piece)
        (open_pieces[-1].children if open_pieces else top).append(segment)
        end = segment.end
        for piece in open_pieces:
            piece.end = end
    return top
