"""Selection guided by an inference attack (INTACT).

Every entity starts at its most specific candidate. Then, entity by entity in document
order, each candidate in turn is shown to the attacker inside the whole current
sanitized document (the candidate marked); the first candidate none of whose guesses
matches the original is kept. When every candidate is guessed, or there is none, the
numbered type label is the fallback. Each decision keeps the candidates, the guesses
and the reason."""

from .placeholders import PlaceholderNumbering
from .rendering import render, replacements_for
from .types import (
    PATH_FALLBACK,
    PATH_FIRST,
    PATH_LATER,
    Attacker,
    AttackQuery,
    Decision,
    ReleaseEntity,
    ReleaseInput,
    Trial,
)


def select_by_attack(
    document: ReleaseInput,
    candidates: dict[str, tuple[str, list[str]]],
    attacker: Attacker,
    numbering: PlaceholderNumbering,
) -> list[Decision]:
    """``candidates``: entity key -> (source name, candidates most specific first)."""
    current = {
        entity.key: (candidates[entity.key][1] or [numbering.placeholder(entity)])[0] for entity in document.entities
    }
    decisions = []
    for entity in sorted(document.entities, key=lambda e: (e.first.start, e.first.end)):
        source, options = candidates[entity.key]
        decision = _decide(document, entity, source, options, attacker, numbering, current)
        current[entity.key] = decision.replacement
        decisions.append(decision)
    return decisions


def _decide(
    document: ReleaseInput,
    entity: ReleaseEntity,
    source: str,
    options: list[str],
    attacker: Attacker,
    numbering: PlaceholderNumbering,
    current: dict[str, str],
) -> Decision:
    fallback = numbering.placeholder(entity)
    if not options:
        reason = f"no candidate generalizes this {entity.entity_type}: the numbered type"
        return Decision(entity, fallback, PATH_FALLBACK, reason, [], source)
    if options == [fallback]:
        # A numbered placeholder says nothing of the original: nothing to attack.
        return Decision(entity, fallback, PATH_FIRST, "a numbered placeholder", options, source)
    trials = []
    for position, candidate in enumerate(options):
        current[entity.key] = candidate
        marked = render(document.text, replacements_for(document.entities, current), marked_key=entity.key)
        outcome = attacker.attack(AttackQuery(marked, candidate, entity.entity_type, entity.original))
        trials.append(Trial(candidate, list(outcome.guesses), outcome.matched, outcome.reason))
        if not outcome.inverted:
            path = PATH_FIRST if position == 0 else PATH_LATER
            reason = f"{attacker.name}: {outcome.reason or 'no guess matched the original'}"
            return Decision(entity, candidate, path, reason, options, source, trials)
    reason = f"{attacker.name} inverted all {len(options)} candidates: the numbered type"
    return Decision(entity, fallback, PATH_FALLBACK, reason, options, source, trials)
