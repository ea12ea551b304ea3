"""What a re-identification attack works on and what it produces.

Words are pretreated lemmas (``pretreatment``): lower-case, no stop words, only letters,
digits and ``./``. A ``Token`` keeps the offsets of its word in the text it came from, so
a leaking term can be shown where it is."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

TOP_GUESSES = 5  # guesses kept per document (top-5 accuracy needs five)


@dataclass(frozen=True)
class Token:
    lemma: str
    start: int  # offsets into the text the token was read from
    end: int


@dataclass(frozen=True)
class BackgroundText:
    """One public document about one individual, pretreated: ``words`` of the document
    and ``augmented`` words of its copy with named entities replaced by their labels
    (empty when the copy was not made)."""

    person: str
    words: tuple[str, ...]
    augmented: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProtectedText:
    """A document to attack: the text the attacker reads (sanitized) and who it is about."""

    doc_id: str
    person: str
    text: str


@dataclass(frozen=True)
class LeakingTerm:
    """A word of the attacked text that pushed the attacker towards the true person."""

    text: str  # as written in the attacked text
    lemma: str
    start: int  # offsets into the attacked text
    end: int
    weight: float  # its contribution to the true person's score

    def as_dict(self) -> dict:
        return {"text": self.text, "lemma": self.lemma, "start": self.start, "end": self.end, "weight": self.weight}


@dataclass
class DocumentOutcome:
    doc_id: str
    person: str
    rank: int  # of the true person among the attacker's guesses, 1 = named
    guesses: list[tuple[str, float]]  # the best TOP_GUESSES (person, score)
    leaking_terms: list[LeakingTerm] = field(default_factory=list)

    @property
    def re_identified(self) -> bool:
        return self.rank == 1

    def as_dict(self) -> dict:
        return {
            "doc_id": self.doc_id,
            "person": self.person,
            "rank": self.rank,
            "guesses": [[name, score] for name, score in self.guesses],
            "leaking_terms": [term.as_dict() for term in self.leaking_terms],
        }


@dataclass
class ReidentificationResult:
    attacker: str  # the attacker's name, e.g. "tfidf-svc"
    settings: dict  # what the attacker used (windows, C, model ...)
    people: int  # individuals in the background (N)
    outcomes: list[DocumentOutcome]
    skipped: list[dict] = field(default_factory=list)  # [{doc_id, reason}]: person not in the background
    fit_seconds: float = 0.0
    attack_seconds: float = 0.0

    @property
    def n(self) -> int:
        return len(self.outcomes)

    @property
    def trir(self) -> float:
        """Share of protected documents whose person the attacker names first."""
        return sum(o.re_identified for o in self.outcomes) / self.n if self.n else 0.0

    @property
    def top5(self) -> float:
        return sum(o.rank <= 5 for o in self.outcomes) / self.n if self.n else 0.0

    @property
    def random_baseline(self) -> float:
        """TRIR of an attacker that guesses at random among the N individuals."""
        return 1 / self.people if self.people else 0.0

    def summary(self) -> dict:
        return {
            "TRIR": self.trir,
            "top5": self.top5,
            "n": self.n,
            "attacker": self.attacker,
            "people": self.people,
            "random_baseline": self.random_baseline,
            "fit_seconds": self.fit_seconds,
            "attack_seconds": self.attack_seconds,
            "skipped": self.skipped,
            "settings": self.settings,
        }


class ReidentificationAttacker(Protocol):
    """A classifier from pretreated words to the individuals of a background.

    Scores of a document are the sum of its windows' scores (as in TRI), one column per
    individual in ``people`` order."""

    name: str
    people: list[str]

    def fit(self, background: Sequence[BackgroundText]) -> None: ...

    def scores(self, documents: Sequence[Sequence[str]]) -> np.ndarray: ...

    def contributions(self, words: Sequence[str], person: int) -> np.ndarray:
        """How much each word adds to the score of ``people[person]`` (one value per
        word; exact for linear attackers, by occlusion otherwise)."""
        ...

    def describe(self) -> dict:
        """The attacker's settings, for the record of every figure it produced."""
        ...
