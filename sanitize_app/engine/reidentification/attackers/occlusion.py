"""What each word adds to a non-linear attacker's score, by occlusion: the document is
re-scored with every occurrence of one lemma removed, and the drop in the true person's
score is shared evenly among those occurrences.

Re-scoring costs a forward pass over the document per lemma, so only ``limit`` distinct
lemmas are tried: the ones the background uses for the fewest people first (a word used
for one person only is what can single that person out), words the background never used
last; the others get 0."""

from collections.abc import Sequence

import numpy as np

from ..types import BackgroundText

OCCLUDED_LEMMAS = 40  # distinct lemmas re-scored per document


def people_per_lemma(background: Sequence[BackgroundText]) -> dict[str, int]:
    """How many people's background documents use each lemma."""
    users: dict[str, set[str]] = {}
    for text in background:
        for word in set(text.words):
            users.setdefault(word, set()).add(text.person)
    return {word: len(people) for word, people in users.items()}


def lemmas_to_occlude(words: Sequence[str], people_per: dict[str, int], limit: int) -> list[str]:
    order = {word: i for i, word in reversed(list(enumerate(words)))}  # first occurrence
    unseen = len(people_per) + 1
    ranked = sorted(order, key=lambda word: (people_per.get(word, unseen), order[word]))
    return ranked[:limit]


def occlusion_contributions(
    scores, words: Sequence[str], person: int, people_per: dict[str, int], limit: int = OCCLUDED_LEMMAS
) -> np.ndarray:
    """``scores``: a function from documents to a (documents × people) score matrix."""
    words = list(words)
    lemmas = lemmas_to_occlude(words, people_per, limit)
    shares = np.zeros(len(words))
    if not lemmas:
        return shares
    variants = [words] + [[word for word in words if word != lemma] for lemma in lemmas]
    values = np.asarray(scores(variants))[:, person]
    for lemma, occluded in zip(lemmas, values[1:], strict=True):
        positions = [i for i, word in enumerate(words) if word == lemma]
        shares[positions] = (values[0] - occluded) / len(positions)
    return shares
