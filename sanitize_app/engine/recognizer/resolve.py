"""Settling overlaps between candidates: the longest span wins; between spans of equal
length, the more reliable source (see ``SOURCE_PRIORITY``).

``protected`` candidates (the rules' finds of direct identifiers, ``direct``) are
settled first, among themselves, and kept whatever overlaps them: no other source,
however it is configured, can remove one. A PERSON span of another source that holds
one whole ("Ercan Dikici" around the protected surname "Dikici") is settled with them:
it widens the find rather than removes it.

``first`` names sources whose candidates are settled among themselves first and then
kept whatever overlaps them: the others only fill the gaps. The recognizer uses it for
a NER trained on the project's own TAB layers, whose span boundaries follow the
annotators' conventions better than the rules' (longer) spans."""

from collections.abc import Callable

from .candidates import Candidate


def _longest_first(candidates: list[Candidate], kept: list[Candidate]) -> list[Candidate]:
    for candidate in sorted(candidates, key=lambda c: (-c.length, -c.priority, c.start)):
        if not any(candidate.overlaps(other) for other in kept):
            kept.append(candidate)
    return kept


def _widens(candidate: Candidate, guarded: list[Candidate]) -> bool:
    """A PERSON span that holds a guarded PERSON whole and cuts no guarded span."""
    if candidate.label != "PERSON":
        return False
    overlapping = [g for g in guarded if candidate.overlaps(g)]
    holds = [g for g in overlapping if candidate.start <= g.start and g.end <= candidate.end]
    return bool(holds) and len(holds) == len(overlapping) and all(g.label == "PERSON" for g in holds)


def resolve_overlaps(
    candidates: list[Candidate], first: tuple[str, ...] = (), protected: Callable[[Candidate], bool] | None = None
) -> list[Candidate]:
    """A set of non-overlapping candidates, in text order."""
    is_protected = protected or (lambda candidate: False)
    guarded = [c for c in candidates if is_protected(c)]
    guarded += [c for c in candidates if not is_protected(c) and _widens(c, guarded)]
    rest = [c for c in candidates if c not in guarded]
    preferred = [c for c in rest if c.source.split(":", 1)[0] in first]
    others = [c for c in rest if c.source.split(":", 1)[0] not in first]
    kept = _longest_first(others, _longest_first(preferred, _longest_first(guarded, [])))
    return sorted(kept, key=lambda c: c.start)
