"""Settling overlaps between candidates: the longest span wins; between spans of equal
length, the more reliable source (see ``SOURCE_PRIORITY``)."""

from .candidates import Candidate


def resolve_overlaps(candidates: list[Candidate]) -> list[Candidate]:
    """A set of non-overlapping candidates, in text order."""
    ranked = sorted(candidates, key=lambda c: (-c.length, -c.priority, c.start))
    kept: list[Candidate] = []
    for candidate in ranked:
        if not any(candidate.overlaps(other) for other in kept):
            kept.append(candidate)
    return sorted(kept, key=lambda c: c.start)
