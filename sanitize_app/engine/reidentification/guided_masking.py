"""Attack-guided masking (beyond the seeds): mask what lets a re-identification attacker
name the protected person, until the person falls outside the attacker's first k guesses.

Starting from a sanitized document (any strategy), each step:

1. reads the document as the attacker does: the ORIGINAL text is pretreated once, and
   the pretreated words of each replacement are spliced in where it stands (spaCy is not
   re-run on the whole document at every step; a replacement's words are cached);
2. ranks the true person among the attacker's scores (1 + the people scored strictly
   higher: a tie counts against privacy); it stops when the rank is above ``top_k``,
   when no word pushes towards the person any more, or after ``STEP_LIMIT`` steps;
3. takes the word that adds most to the true person's score. Outside every replaced
   span, it is grown to a unit (the spaCy named entity containing it, else the word
   itself as MISC) and every occurrence of the unit's text (case-insensitive, whole
   words) becomes one new QUASI entity, replaced by the most specific candidate (the
   candidate source's ladder, then the numbered type) whose own words add nothing
   positive to the person's score. Inside a replacement the strategy made (a
   generalization that still leaks, "in the 1970s"), that entity moves one rung up its
   ladder instead.

Existing masks are never removed nor weakened: spans only get added, and a replacement
only moves up its own ladder (privacy first). Each step says why: "added because it
re-identified Ada Quist (rank 1 → 3)".

``guided_masking`` returns a new ``SanitizedDocument`` (for a release); ``suggest``
returns the proposed masks only, for a document as currently masked (the workspace)."""

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..release.placeholders import PlaceholderNumbering
from ..release.rendering import Replacement, render
from ..release.types import (
    PATH_ATTACK,
    CandidateSource,
    Decision,
    Mention,
    ReleasedSpan,
    ReleaseEntity,
    ReleaseInput,
    SanitizedDocument,
    Trial,
)
from .guided_steps import (
    ADDED,
    MASKED,
    RAISED,
    SPACY_TO_TAB,
    STEP_LIMIT,
    EntityFinder,
    GuidedStep,
    Ladder,
    MaskedDocument,
    Pretreater,
    Setup,
    Span,
    run,
)
from .types import ReidentificationAttacker

__all__ = ["SPACY_TO_TAB", "STEP_LIMIT", "GuidedResult", "GuidedStep", "guided_masking", "spacy_entities", "suggest"]


def spacy_entities(nlp) -> EntityFinder:
    """The entity finder of a spaCy pipeline (e.g. ``Pretreatment.nlp``)."""

    def find(text: str) -> list[tuple[int, int, str]]:
        return [(entity.start_char, entity.end_char, entity.label_) for entity in nlp(text).ents]

    return find


@dataclass
class GuidedResult:
    person: str
    top_k: int
    initial_rank: int
    final_rank: int
    steps: list[GuidedStep]
    stopped: str  # STOP_*
    document: SanitizedDocument | None = None  # None for ``suggest``

    def summary(self) -> dict:
        return {
            "person": self.person,
            "top_k": self.top_k,
            "rank_before": self.initial_rank,
            "rank_after": self.final_rank,
            "steps": len(self.steps),
            "stopped": self.stopped,
        }


def reason_for(step: GuidedStep, person: str) -> str:
    because = f"because it re-identified {person} (rank {step.rank_before} → {step.rank_after})"
    if step.kind == RAISED:
        return f"raised to {step.replacement!r} {because}"
    return f"added {because}"


def guided_masking(
    document: ReleaseInput,
    sanitized: SanitizedDocument,
    person: str,
    attacker: ReidentificationAttacker,
    pretreatment: Pretreater,
    *,
    top_k: int,
    candidates: CandidateSource | None = None,
    entities: EntityFinder | None = None,
    step_limit: int = STEP_LIMIT,
) -> GuidedResult:
    """``sanitized`` (the release of ``document`` by any strategy) with what keeps
    ``person`` in the attacker's first ``top_k`` guesses masked too. ``attacker`` is
    fitted; ``pretreatment`` is the one it was fitted with; ``entities`` finds the named
    entities that words grow into (e.g. ``spacy_entities(pretreatment.nlp)``; None: words
    only). ValueError when the attacker's background does not know ``person``."""
    numbering = PlaceholderNumbering(document.entities)
    spans = [
        Span(s.start, s.end, s.replacement, s.entity_key or f"span-{n}", s.entity_type, s.identifier_type, s.reason)
        for n, s in enumerate(sanitized.spans)
    ]
    ladders = {d.entity.key: _strategy_ladder(d, numbering.placeholder(d.entity)) for d in sanitized.decisions}
    setup = Setup(person, attacker, pretreatment, candidates, entities)
    masking = MaskedDocument(document.text, spans, ladders, setup)
    initial, final, steps, stopped = run(masking, top_k, step_limit)
    released = _released(document, sanitized, masking, steps)
    return GuidedResult(person, top_k, initial, final, steps, stopped, released)


def _strategy_ladder(decision: Decision, placeholder: str) -> Ladder:
    """The rungs a strategy's replacement can move up: its candidates, the numbered type,
    then MASKED. A replacement on no ladder (a type label, stars) can only become MASKED."""
    rungs = [c for c in decision.candidates if c not in (placeholder, MASKED)] + [placeholder, MASKED]
    if decision.replacement not in rungs:
        return Ladder([decision.replacement, MASKED], 0)
    return Ladder(rungs, rungs.index(decision.replacement))


def _released(
    document: ReleaseInput, sanitized: SanitizedDocument, masking: MaskedDocument, steps: list[GuidedStep]
) -> SanitizedDocument:
    person = masking.setup.person
    reasons: dict[str, list[str]] = {}
    for step in steps:
        reasons.setdefault(step.entity_key, []).append(reason_for(step, person))
    decisions = []
    for decision in sanitized.decisions:
        key = decision.entity.key
        if key in reasons:
            ladder = masking.ladders[key]
            reason = "; then ".join([decision.reason, *reasons[key]])
            decision = replace(decision, replacement=ladder.rungs[ladder.at], path=PATH_ATTACK, reason=reason)
        decisions.append(decision)
    source = masking.setup.candidates.name if masking.setup.candidates is not None else "placeholder"
    for step in steps:
        if step.kind == ADDED:
            decisions.append(_added_decision(masking, step, "; then ".join(reasons[step.entity_key]), source))
    decisions.sort(key=lambda d: (d.entity.first.start, d.entity.first.end))
    by_key = {d.entity.key: d.reason for d in decisions}
    spans = sorted(masking.spans, key=lambda s: s.start)
    released = [
        ReleasedSpan(
            s.start, s.end, s.replacement, s.entity_type, s.identifier_type, by_key.get(s.key, s.reason), s.key
        )
        for s in spans
    ]
    text = render(document.text, [Replacement(s.start, s.end, s.replacement, s.key) for s in spans])
    return SanitizedDocument(sanitized.doc_id, text, released, decisions)


def _added_decision(masking: MaskedDocument, step: GuidedStep, reason: str, source: str) -> Decision:
    person = masking.setup.person
    ladder = masking.ladders[step.entity_key]
    mentions = [Mention(s, e, masking.text[s:e]) for s, e in step.mentions]
    entity = ReleaseEntity(step.entity_key, step.entity_type, "QUASI", mentions)
    # A refused candidate reads as a guess of the person (the popover shows it guessed).
    trials = [
        Trial(candidate, [person], person, f"its words still point at {person} ({leak:+.3f} to the score)")
        for candidate, leak in step.refused
    ]
    trials.append(Trial(step.replacement, [], "", f"its words add nothing to {person}'s score"))
    return Decision(entity, ladder.rungs[ladder.at], PATH_ATTACK, reason, ladder.rungs, source, trials)


def suggest(
    text: str,
    masked: Sequence[tuple[int, int, str]],
    person: str,
    attacker: ReidentificationAttacker,
    pretreatment: Pretreater,
    *,
    top_k: int,
    candidates: CandidateSource | None = None,
    entities: EntityFinder | None = None,
    step_limit: int = STEP_LIMIT,
) -> GuidedResult:
    """The masks guided masking would add to ``text`` as currently masked (``masked``:
    disjoint (start, end, replacement) into ``text``), in order, each with its unit,
    offsets, type, chosen replacement and the ranks before and after it; ``document`` is
    None. ValueError when the background does not know ``person``."""
    spans = [Span(s, e, r, f"mask-{n}", "MISC", "QUASI", "") for n, (s, e, r) in enumerate(sorted(masked))]
    setup = Setup(person, attacker, pretreatment, candidates, entities)
    masking = MaskedDocument(text, spans, {}, setup)
    initial, final, steps, stopped = run(masking, top_k, step_limit)
    return GuidedResult(person, top_k, initial, final, steps, stopped)
