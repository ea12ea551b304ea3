"""The steps of attack-guided masking (``guided_masking``): how a document being masked
is read by the attacker, and how one step masks, or raises, what points at the person.

The document is read from the ORIGINAL text's pretreated tokens with the pretreated words
of each replacement spliced in where it stands (spaCy runs once on the document, and once
per distinct replacement)."""

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ..release.types import PLACEHOLDER_TYPES, CandidateSource, Mention, ReleaseEntity
from .attack import normalize_name
from .types import ReidentificationAttacker, Token

# Each step masks one more unit (or raises one replacement): 40 covers the handful of
# distinctive terms that usually give a person away (the WikiActors abstracts needed at
# most ~25 at k=5) and bounds the time on a long judgment (one scoring and a few
# contribution readings per step).
STEP_LIMIT = 40

# spaCy's OntoNotes labels as the TAB entity types.
SPACY_TO_TAB = {
    "PERSON": "PERSON",
    "NORP": "DEM",
    "LANGUAGE": "DEM",
    "FAC": "LOC",
    "GPE": "LOC",
    "LOC": "LOC",
    "ORG": "ORG",
    "DATE": "DATETIME",
    "TIME": "DATETIME",
    "PERCENT": "QUANTITY",
    "MONEY": "QUANTITY",
    "QUANTITY": "QUANTITY",
    "ORDINAL": "QUANTITY",
    "CARDINAL": "QUANTITY",
}  # the others (PRODUCT, EVENT, WORK_OF_ART, LAW) are MISC

STOP_OUTSIDE_TOP_K = "outside the top k"
STOP_NO_TERM = "no term left"
STOP_STEP_LIMIT = "step limit"

ADDED, RAISED = "added", "raised"

# The last rung of every ladder: nothing of the original and no type either. A type can
# point at the person too: the background's augmented copies are written with labels, so
# "ORG" reads as a word of whoever's background names organisations.
MASKED = "***"

# (start, end, spaCy label) of the named entities of a text.
EntityFinder = Callable[[str], Sequence[tuple[int, int, str]]]


class Pretreater(Protocol):
    def tokens(self, text: str) -> list[Token]: ...


@dataclass
class GuidedStep:
    """One mask added (``kind`` "added") or one replacement moved up its ladder ("raised")."""

    kind: str
    entity_key: str
    unit: str  # the original text masked (its first mention)
    entity_type: str
    mentions: list[tuple[int, int]]  # into the original text
    replacement: str
    word: str  # the pretreated word that pointed at the person
    weight: float  # what it added to the person's score (or to their lead over the next person down)
    rank_before: int
    rank_after: int = 0
    refused: list[tuple[str, float]] = field(default_factory=list)  # (candidate, what its words add)

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "entity_key": self.entity_key,
            "unit": self.unit,
            "entity_type": self.entity_type,
            "mentions": [list(m) for m in self.mentions],
            "replacement": self.replacement,
            "word": self.word,
            "weight": self.weight,
            "rank_before": self.rank_before,
            "rank_after": self.rank_after,
            "refused": [[candidate, weight] for candidate, weight in self.refused],
        }


def person_index(people: Sequence[str], person: str) -> int:
    """Where ``person`` is among the attacker's people (names compared as the attack
    compares them); ValueError names the person when the background does not know them."""
    wanted = normalize_name(person)
    for index, name in enumerate(people):
        if normalize_name(name) == wanted:
            return index
    raise ValueError(f"{person!r} is not among the {len(people)} people of the attacker's background")


def true_rank(scores: np.ndarray, index: int) -> int:
    """1 + the people scored strictly higher than ``index`` (as ``attack`` ranks: a tie
    counts against privacy)."""
    return 1 + int(np.sum(scores > scores[index]))


@dataclass
class Span:
    start: int
    end: int
    replacement: str
    key: str
    entity_type: str
    identifier_type: str
    reason: str


@dataclass
class Ladder:
    rungs: list[str]  # most specific first, MASKED last
    at: int  # the rung in use

    @property
    def can_raise(self) -> bool:
        return self.at + 1 < len(self.rungs)


class MaskedDocument:
    """The document being masked: its original tokens, the current spans, the ladders
    they can move up, and how the attacker reads it."""

    def __init__(self, text: str, spans: list[Span], ladders: dict[str, Ladder], setup: "Setup"):
        self.text = text
        self.spans = spans
        self.ladders = ladders
        self.setup = setup
        self.index = person_index(setup.attacker.people, setup.person)
        self.tokens = setup.pretreatment.tokens(text)
        # Numbers taken by placeholders shown or waiting on a ladder's rung: a new unit's
        # LOC_2 must never be the LOC_2 an existing entity may be raised to.
        reserved = [rung for ladder in ladders.values() for rung in ladder.rungs]
        self.numbers = placeholder_numbers([*(span.replacement for span in spans), *reserved])
        self.exhausted: set[str] = set()  # keys of spans that cannot move up any more
        self.added = 0
        self._entities: list[tuple[int, int, str]] | None = None
        self._words_of: dict[str, list[str]] = {}

    @property
    def entities(self) -> list[tuple[int, int, str]]:
        if self._entities is None:
            self._entities = list(self.setup.entities(self.text)) if self.setup.entities else []
        return self._entities

    def replacement_words(self, replacement: str) -> list[str]:
        if replacement not in self._words_of:
            found = self.setup.pretreatment.tokens(replacement) if replacement.strip() else []
            self._words_of[replacement] = [token.lemma for token in found]
        return self._words_of[replacement]

    def read(self, spans: list[Span] | None = None) -> tuple[list[str], list[object]]:
        """(words, origin of each word): the original's ``Token`` outside every span, or
        the key of the span whose replacement the word comes from, in text order."""
        spans = sorted(self.spans if spans is None else spans, key=lambda s: s.start)
        words: list[str] = []
        origins: list[object] = []
        emitted = 0
        for token in self.tokens:
            while emitted < len(spans) and spans[emitted].start < token.end:
                self._splice(spans[emitted], words, origins)
                emitted += 1
            # Spans are disjoint and sorted: only the last two begun can cover the token.
            if any(spans[j].end > token.start for j in (emitted - 1, emitted - 2) if j >= 0):
                continue
            words.append(token.lemma)
            origins.append(token)
        for span in spans[emitted:]:
            self._splice(span, words, origins)
        return words, origins

    def read_whole(self) -> tuple[list[str], list[object]]:
        """As the attacker reads the released text: rendered, then pretreated whole (a
        replacement's lemma can depend on its sentence: "the 2010s" alone reads "2010",
        in context "2010s", and one word can move a close rank), each word traced to the
        original's ``Token`` (offsets into the original) or to the key of its span. The
        spliced ``read`` stays for weighing candidates, where one word more or less does
        not decide."""
        pieces, segments, cursor, out = [], [], 0, 0  # segments: (end in the rendered text, shift or key)
        for span in sorted(self.spans, key=lambda s: s.start):
            kept = self.text[cursor : span.start]
            pieces += [kept, span.replacement]
            segments.append((out + len(kept), out - cursor))
            out += len(kept) + len(span.replacement)
            segments.append((out, span.key))
            cursor = span.end
        pieces.append(self.text[cursor:])
        segments.append((out + len(self.text) - cursor, out - cursor))
        words: list[str] = []
        origins: list[object] = []
        ends = [end for end, _ in segments]
        last = len(segments) - 1
        for token in self.setup.pretreatment.tokens("".join(pieces)):
            first = min(bisect_right(ends, token.start), last)
            final = min(bisect_right(ends, token.end - 1), last)
            keys = [where for _, where in segments[first : final + 1] if isinstance(where, str)]
            words.append(token.lemma)
            if keys:
                # In a replacement, or across one ("www.ORG_1.org/ada"): the span's word.
                origins.append(keys[0])
            else:
                shift = segments[first][1]
                origins.append(Token(token.lemma, token.start - shift, token.end - shift))
        return words, origins

    def _splice(self, span: Span, words: list[str], origins: list[object]) -> None:
        found = self.replacement_words(span.replacement)
        words.extend(found)
        origins.extend([span.key] * len(found))

    def scores(self, words: list[str]) -> np.ndarray:
        return self.setup.attacker.scores([words])[0]

    def overlaps_span(self, start: int, end: int) -> bool:
        return any(span.start < end and start < span.end for span in self.spans)


@dataclass
class Setup:
    person: str
    attacker: ReidentificationAttacker
    pretreatment: Pretreater
    candidates: CandidateSource | None
    entities: EntityFinder | None


def placeholder_numbers(replacements) -> dict[str, int]:
    """Entity type -> the highest number of its placeholders in use (``LOC_3`` -> 3)."""
    numbers: dict[str, int] = {}
    for replacement in replacements:
        found = re.fullmatch(r"([A-Z]+)_(\d+)", replacement)
        if found:
            numbers[found.group(1)] = max(numbers.get(found.group(1), 0), int(found.group(2)))
    return numbers


def run(masking: MaskedDocument, top_k: int, step_limit: int) -> tuple[int, int, list[GuidedStep], str]:
    """(initial rank, final rank, steps, why it stopped)."""
    people = len(masking.setup.attacker.people)
    if top_k < 1:
        raise ValueError(f"top_k must be at least 1 (got {top_k})")
    if top_k >= people:
        raise ValueError(f"top_k {top_k} must be below the {people} people of the background: no rank is above it")
    steps: list[GuidedStep] = []
    words, origins = masking.read_whole()
    scores = masking.scores(words)
    initial = rank = true_rank(scores, masking.index)
    while True:
        if rank > top_k:
            return initial, rank, steps, STOP_OUTSIDE_TOP_K
        if len(steps) >= step_limit:
            return initial, rank, steps, STOP_STEP_LIMIT
        step = _step(masking, words, origins, scores, rank)
        if step is None:
            return initial, rank, steps, STOP_NO_TERM
        words, origins = masking.read_whole()
        scores = masking.scores(words)
        rank = step.rank_after = true_rank(scores, masking.index)
        steps.append(step)


def _step(masking: MaskedDocument, words, origins, scores: np.ndarray, rank: int) -> GuidedStep | None:
    """Mask (or raise) what adds most to the person's score. When nothing does and the
    person still leads the others (who score lower still), what most widens the lead
    over the next person down: masking a word that holds that person back closes the
    gap as surely as one that pushes the true person forward. None when neither exists."""
    attacker = masking.setup.attacker
    own = attacker.contributions(words, masking.index)
    step = _best(masking, words, origins, own, rank)
    rival = _next_down(scores, masking.index)
    if step is None and rival is not None:
        step = _best(masking, words, origins, own - attacker.contributions(words, rival), rank)
    return step


def _next_down(scores: np.ndarray, index: int) -> int | None:
    """The best-scored other person not above ``index`` (None when everyone is above)."""
    below = [i for i in range(len(scores)) if i != index and scores[i] <= scores[index]]
    return max(below, key=lambda i: scores[i]) if below else None


def _best(masking: MaskedDocument, words, origins, shares: np.ndarray, rank: int) -> GuidedStep | None:
    for position in np.argsort(-shares, kind="stable"):
        weight = float(shares[position])
        if weight <= 0:
            return None
        origin = origins[position]
        if isinstance(origin, Token):
            step = _add(masking, origin, words[position], weight, rank)
            if step is not None:
                return step
            continue
        ladder = masking.ladders.get(origin)
        if origin in masking.exhausted or ladder is None or not ladder.can_raise:
            masking.exhausted.add(origin)
            continue
        return _raise(masking, origin, ladder, words[position], weight, rank)
    return None


def _unit(masking: MaskedDocument, token: Token) -> tuple[int, int, str]:
    """(start, end, TAB type) of what to mask for ``token``: the named entity around it
    when it overlaps no mask, else the word itself as MISC."""
    for start, end, label in masking.entities:
        if start <= token.start and token.end <= end and not masking.overlaps_span(start, end):
            return start, end, SPACY_TO_TAB.get(label, "MISC")
    return token.start, token.end, "MISC"


def occurrences(text: str, unit: str) -> list[tuple[int, int]]:
    """Every occurrence of ``unit`` in ``text``: whole words, any case, any spacing."""
    pattern = r"\s+".join(re.escape(part) for part in unit.split())
    return [(found.start(), found.end()) for found in re.finditer(rf"(?<!\w){pattern}(?!\w)", text, re.IGNORECASE)]


def _add(masking: MaskedDocument, token: Token, word: str, weight: float, rank: int) -> GuidedStep | None:
    """A new entity for ``token``'s unit (None when the unit would overlap a mask)."""
    start, end, entity_type = _unit(masking, token)
    if masking.overlaps_span(start, end):
        return None
    unit = masking.text[start:end]
    places = [(s, e) for s, e in occurrences(masking.text, unit) if not masking.overlaps_span(s, e)]
    if (start, end) not in places:  # the unit itself always (a pattern edge case must not skip it)
        places = sorted([*places, (start, end)])
    masking.added += 1
    key = f"attack-{masking.added}"
    entity = ReleaseEntity(key, entity_type, "QUASI", [Mention(s, e, masking.text[s:e]) for s, e in places])
    masking.numbers[entity_type] = number = masking.numbers.get(entity_type, 0) + 1
    placeholder = f"{entity_type}_{number}"
    ladder = []
    if masking.setup.candidates is not None and entity_type not in PLACEHOLDER_TYPES:
        ladder = [
            c for c in masking.setup.candidates.candidates(entity, masking.text) if c not in (placeholder, MASKED)
        ]
    rungs = [*ladder, placeholder, MASKED]
    refused, at = [], 0
    while at < len(rungs) - 1:  # MASKED, the last rung, reads as nothing: always kept
        leak = _leak(masking, key, entity_type, places, rungs[at])
        if leak <= 0:
            break
        refused.append((rungs[at], leak))
        at += 1
    masking.spans.extend(Span(s, e, rungs[at], key, entity_type, "QUASI", "") for s, e in places)
    masking.ladders[key] = Ladder(rungs, at)
    return GuidedStep(ADDED, key, unit, entity_type, places, rungs[at], word, weight, rank, refused=refused)


def _leak(masking: MaskedDocument, key: str, entity_type: str, places, candidate: str) -> float:
    """What the words of ``candidate``, written at ``places``, add to the person's score."""
    trial = masking.spans + [Span(s, e, candidate, key, entity_type, "QUASI", "") for s, e in places]
    words, origins = masking.read(trial)
    shares = masking.setup.attacker.contributions(words, masking.index)
    return float(sum(share for share, origin in zip(shares, origins, strict=True) if origin == key))


def _raise(masking: MaskedDocument, key: str, ladder: Ladder, word: str, weight: float, rank: int) -> GuidedStep:
    ladder.at += 1
    mine = [span for span in masking.spans if span.key == key]
    for span in mine:
        span.replacement = ladder.rungs[ladder.at]
    places = [(span.start, span.end) for span in mine]
    unit = masking.text[places[0][0] : places[0][1]]
    return GuidedStep(RAISED, key, unit, mine[0].entity_type, places, ladder.rungs[ladder.at], word, weight, rank)
