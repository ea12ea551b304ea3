"""What a release works on and what it produces: the entities of one document to
sanitize, the attacker's view of a candidate, and each decision with its trail.

Offsets are always into the *original* text: a released span says which characters of
the original it replaced, so a release can be evaluated with the TAB metrics and
compared with any annotator's layer, while the original text itself never leaves the
workbench."""

from dataclasses import dataclass, field
from typing import Protocol

# The entity types of TAB.
ENTITY_TYPES = ("PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC")
# Types whose candidates are a numbered placeholder only: no truthful generalization of a
# name or a number identifies less than the placeholder does.
PLACEHOLDER_TYPES = ("PERSON", "CODE")
CANDIDATES_PER_ENTITY = 5


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    text: str


@dataclass
class ReleaseEntity:
    """One entity of a document to release: coreferent mentions, in document order."""

    key: str
    entity_type: str
    identifier_type: str  # DIRECT or QUASI
    mentions: list[Mention]

    @property
    def first(self) -> Mention:
        return self.mentions[0]

    @property
    def original(self) -> str:
        return self.first.text


@dataclass
class ReleaseInput:
    doc_id: str
    text: str
    entities: list[ReleaseEntity]


class CandidateSource(Protocol):
    """Generalizations of an entity, most specific first (at most five); an empty list
    when the source cannot generalize it (the caller then falls back)."""

    name: str

    def candidates(self, entity: ReleaseEntity, text: str) -> list[str]: ...


# How the candidate under attack is marked in the document the attacker reads.
MARK_OPEN, MARK_CLOSE = "[[", "]]"


def mark(candidate: str) -> str:
    return f"{MARK_OPEN}{candidate}{MARK_CLOSE}"


@dataclass(frozen=True)
class AttackQuery:
    """What an attacker sees: the whole current sanitized document with the candidate
    marked (``marked_text``). ``original`` is the text the candidate replaces: an
    attacker that guesses must never be shown it; it is here for matching the guesses
    and for the offline attacker's checks."""

    marked_text: str
    candidate: str
    entity_type: str
    original: str


@dataclass
class AttackOutcome:
    guesses: list[str]
    matched: str = ""  # the guess that matched the original ("" when none did)
    reason: str = ""  # why it matched, or why the candidate was kept

    @property
    def inverted(self) -> bool:
        return bool(self.matched)


class Attacker(Protocol):
    name: str

    def attack(self, query: AttackQuery) -> AttackOutcome: ...


@dataclass
class Trial:
    candidate: str
    guesses: list[str]
    matched: str
    reason: str

    def as_dict(self) -> dict:
        return {"candidate": self.candidate, "guesses": self.guesses, "matched": self.matched, "reason": self.reason}


# How a decision was reached (counted per release).
PATH_FIRST = "first"  # the most specific candidate survived the attack
PATH_LATER = "later"  # a more general candidate did
PATH_FALLBACK = "fallback"  # every candidate was inverted, or none existed: the numbered label
PATH_FIXED = "fixed"  # a strategy without a choice (suppress, stars, label, placeholder, rules)
PATH_ATTACK = "attack"  # added by attack-guided masking (the term re-identified the person)
PATHS = (PATH_FIRST, PATH_LATER, PATH_FALLBACK, PATH_FIXED, PATH_ATTACK)


@dataclass
class Decision:
    entity: ReleaseEntity
    replacement: str
    path: str
    reason: str
    candidates: list[str] = field(default_factory=list)
    candidate_source: str = ""  # "rules", "llm", "placeholder", ...
    trials: list[Trial] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "entity_key": self.entity.key,
            "entity_type": self.entity.entity_type,
            "identifier_type": self.entity.identifier_type,
            "replacement": self.replacement,
            "path": self.path,
            "reason": self.reason,
            "candidates": self.candidates,
            "candidate_source": self.candidate_source,
            "trials": [trial.as_dict() for trial in self.trials],
            "mentions": [[m.start, m.end] for m in self.entity.mentions],
        }


@dataclass(frozen=True)
class ReleasedSpan:
    start: int  # into the original text
    end: int
    replacement: str
    entity_type: str
    identifier_type: str
    reason: str
    entity_key: str = ""

    def as_dict(self) -> dict:
        return {
            "start": self.start,
            "end": self.end,
            "replacement": self.replacement,
            "entity_type": self.entity_type,
            "identifier_type": self.identifier_type,
            "reason": self.reason,
        }


@dataclass
class SanitizedDocument:
    doc_id: str
    text: str  # the sanitized text
    spans: list[ReleasedSpan]  # offsets into the original, in order
    decisions: list[Decision]
