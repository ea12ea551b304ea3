"""Running a re-identification attack: fit an attacker on a background, then ask it who
is behind each protected document.

A protected document's person is looked up among the background's people by normalized
name (case-folded, whitespace collapsed); a document about someone the background does
not know cannot be re-identified by construction and is skipped with its reason. The rank
of the true person is 1 + the number of people scored strictly higher: a tie counts as
naming the person (a risk measure must not be lowered by a tie), and the person comes
first among the guesses tied with them."""

import time
import unicodedata
from collections.abc import Callable, Sequence

import numpy as np

from .explain import leaking_terms as explain
from .pretreatment import Pretreatment
from .types import (
    TOP_GUESSES,
    BackgroundText,
    DocumentOutcome,
    ProtectedText,
    ReidentificationAttacker,
    ReidentificationResult,
)

Progress = Callable[[int, int], None]
SCORED_TOGETHER = 8  # protected documents scored per call (progress moves between calls)


def normalize_name(name: str) -> str:
    """Case, spacing and Unicode composition aside ("Penélope" typed either way)."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def fit_attacker(attacker: ReidentificationAttacker, background: Sequence[BackgroundText]) -> float:
    """Fit ``attacker`` on ``background`` (names written differently but normalizing alike
    are one person, under their first spelling); returns and records the seconds it took."""
    if not background:
        raise ValueError("the background is empty: the attacker needs documents about the people to tell apart")
    spelling: dict[str, str] = {}
    texts = []
    for text in background:
        if not normalize_name(text.person):
            raise ValueError(f"a background document has no person name (words: {' '.join(text.words[:8])} ...)")
        person = spelling.setdefault(normalize_name(text.person), text.person)
        texts.append(text if person == text.person else BackgroundText(person, text.words, text.augmented))
    started = time.perf_counter()
    attacker.fit(texts)
    attacker.fit_seconds = time.perf_counter() - started
    return attacker.fit_seconds


def attack(
    attacker: ReidentificationAttacker,
    pretreatment: Pretreatment,
    protected: Sequence[ProtectedText],
    *,
    leaking_terms: int = 10,
    progress: Progress | None = None,
) -> ReidentificationResult:
    """Attack each protected document with a fitted attacker (``fit_attacker``)."""
    started = time.perf_counter()
    if not protected:
        raise ValueError("no protected documents to attack")
    index = {normalize_name(person): i for i, person in enumerate(attacker.people)}
    known = [doc for doc in protected if normalize_name(doc.person) in index]
    skipped = [
        {"doc_id": doc.doc_id, "reason": f"{doc.person} has no background document"}
        for doc in protected
        if normalize_name(doc.person) not in index
    ]
    if not known:
        raise ValueError(
            f"none of the {len(protected)} protected documents is about a person of the background "
            f"({len(attacker.people)} people), e.g. {protected[0].person!r}"
        )
    outcomes: list[DocumentOutcome] = []
    for first in range(0, len(known), SCORED_TOGETHER):
        group = known[first : first + SCORED_TOGETHER]
        tokens = list(pretreatment.tokens_many([doc.text for doc in group]))
        scores = attacker.scores([[token.lemma for token in doc_tokens] for doc_tokens in tokens])
        for doc, doc_tokens, row in zip(group, tokens, scores, strict=True):
            outcome = _outcome(attacker, doc, doc_tokens, row, index[normalize_name(doc.person)], leaking_terms)
            outcomes.append(outcome)
            if progress is not None:
                progress(len(outcomes), len(known))
    return ReidentificationResult(
        attacker=attacker.name,
        settings=attacker.describe(),
        people=len(attacker.people),
        outcomes=outcomes,
        skipped=skipped,
        fit_seconds=getattr(attacker, "fit_seconds", 0.0),
        attack_seconds=time.perf_counter() - started,
    )


def _outcome(attacker, doc: ProtectedText, tokens, row: np.ndarray, person: int, limit: int) -> DocumentOutcome:
    rank = 1 + int(np.sum(row > row[person]))
    best = sorted(range(len(row)), key=lambda i: (-row[i], i != person, i))[:TOP_GUESSES]
    outcome = DocumentOutcome(
        doc_id=doc.doc_id,
        person=attacker.people[person],
        rank=rank,
        guesses=[(attacker.people[i], float(row[i])) for i in best],
    )
    if rank == 1 and limit > 0 and tokens:
        shares = attacker.contributions([token.lemma for token in tokens], person)
        outcome.leaking_terms = explain(doc.text, tokens, shares, limit)
    return outcome
