"""Writing the sanitized text: each mention replaced by its entity's replacement.

Mentions of different entities can overlap (one annotator's ORG inside another's LOC,
nested spans of a pre-annotation): the earliest, then the longest, is replaced and any
mention starting inside it is covered by it, so no character of the original is written
twice and none is left half-replaced."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .types import MARK_CLOSE, MARK_OPEN, Mention, ReleaseEntity


@dataclass(frozen=True)
class Replacement:
    start: int
    end: int
    replacement: str
    entity_key: str


def replacements_for(
    entities: Iterable[ReleaseEntity], chosen: dict[str, str | Callable[[Mention], str]]
) -> list[Replacement]:
    """The non-overlapping replacements, in text order (``chosen``: entity key -> its
    replacement, or a function of the mention when each mention gets its own, as stars
    of its length do)."""
    spans = sorted(
        (Replacement(m.start, m.end, _replacement(chosen[e.key], m), e.key) for e in entities for m in e.mentions),
        key=lambda r: (r.start, -r.end),
    )
    kept: list[Replacement] = []
    for span in spans:
        if kept and span.start < kept[-1].end:
            continue  # inside (or across the end of) a span already replaced
        kept.append(span)
    return kept


def _replacement(choice, mention: Mention) -> str:
    return choice(mention) if callable(choice) else choice


def render(text: str, replacements: list[Replacement], *, marked_key: str | None = None) -> str:
    """The text with ``replacements`` applied; the mentions of ``marked_key`` (the entity
    under attack) are marked for the attacker."""
    pieces, cursor = [], 0
    for span in replacements:
        pieces.append(text[cursor : span.start])
        if span.entity_key == marked_key:
            pieces.append(f"{MARK_OPEN}{span.replacement}{MARK_CLOSE}")
        else:
            pieces.append(span.replacement)
        cursor = span.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def sanitized_positions(replacements: Iterable[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """Where each replacement ``(start, end, replacement)`` (in text order, offsets into
    the original) lands in the sanitized text."""
    positions, shift = [], 0
    for start, end, replacement in replacements:
        positions.append((start + shift, start + shift + len(replacement)))
        shift += len(replacement) - (end - start)
    return positions


def original_offsets(replacements: Iterable[tuple[int, int, str]], start: int, end: int) -> tuple[int, int] | None:
    """Where characters ``start:end`` of the sanitized text are in the original
    (``replacements``: ``(start, end, replacement)`` into the original, in text order), or
    None when they touch a replacement (words of a label, not of the original)."""
    shift = 0  # sanitized position - original position, before the current replacement
    for original_start, original_end, replacement in replacements:
        begins = original_start + shift
        if end <= begins:
            break
        if start < begins + len(replacement):
            return None
        shift += len(replacement) - (original_end - original_start)
    return start - shift, end - shift
