"""Settling overlaps between candidates: the longest span wins; between spans of equal
length, the more reliable source (see ``SOURCE_PRIORITY``).

``first`` names sources whose candidates are settled among themselves first and then
kept whatever overlaps them: the others only fill the gaps. The recognizer uses it for
a NER trained on the project's own TAB layers, whose span boundaries follow the
annotators' conventions better than the rules' (longer) spans."""

from .candidates import Candidate


def _longest_first(candidates: list[Candidate], kept: list[Candidate]) -> list[Candidate]:
    for candidate in sorted(candidates, key=lambda c: (-c.length, -c.priority, c.start)):
        if not any(candidate.overlaps(other) for other in kept):
            kept.append(candidate)
    return kept


def resolve_overlaps(candidates: list[Candidate], first: tuple[str, ...] = ()) -> list[Candidate]:
    """A set of non-overlapping candidates, in text order."""
    preferred = [c for c in candidates if c.source.split(":", 1)[0] in first]
    others = [c for c in candidates if c.source.split(":", 1)[0] not in first]
    kept = _longest_first(others, _longest_first(preferred, []))
    return sorted(kept, key=lambda c: c.start)
