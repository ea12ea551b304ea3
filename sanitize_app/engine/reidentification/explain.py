"""The terms that drove a correct guess: per distinct lemma of the attacked text, its
contributions to the true person's score summed over its occurrences; the terms with the
largest positive sums, each shown at its most contributing occurrence."""

from collections.abc import Sequence

from .types import LeakingTerm, Token


def leaking_terms(text: str, tokens: Sequence[Token], contributions: Sequence[float], limit: int) -> list[LeakingTerm]:
    """The ``limit`` lemmas adding most to the true person's score (positive sums only),
    strongest first; ``tokens`` and ``contributions`` are aligned (one value per token)."""
    if len(tokens) != len(contributions):
        raise ValueError(f"{len(tokens)} tokens but {len(contributions)} contributions")
    total: dict[str, float] = {}
    best: dict[str, tuple[float, Token]] = {}
    for token, value in zip(tokens, contributions, strict=True):
        value = float(value)
        total[token.lemma] = total.get(token.lemma, 0.0) + value
        if token.lemma not in best or value > best[token.lemma][0]:
            best[token.lemma] = (value, token)
    strongest = sorted((lemma for lemma in total if total[lemma] > 0), key=lambda lemma: -total[lemma])
    terms = []
    for lemma in strongest[: max(limit, 0)]:
        token = best[lemma][1]
        terms.append(LeakingTerm(text[token.start : token.end], lemma, token.start, token.end, total[lemma]))
    return terms
