"""Information content IC(e) of an entity: how much masking it costs the reader.

From a masked language model when one is configured (-log P(span | context)), else
from corpus statistics: the mean over the span's words of -log of their smoothed
relative frequency in a reference corpus (rare words carry more information).

``term_information_content`` is -log P(t) of a whole term for the TPS utility measure
(``release.tps``): under the unigram model the words are independent, P(t) = Π P(w),
so the term's IC is the *sum* of its words' ICs, not their mean."""

import math
import re
from collections import Counter
from collections.abc import Iterable

_WORD = re.compile(r"\w+")


class CorpusStatistics:
    """Word frequencies of a reference corpus (e.g. the project's documents)."""

    source = "corpus statistics"

    def __init__(self, counts: Counter | None = None):
        self.counts = counts or Counter()
        self.total = sum(self.counts.values())

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> "CorpusStatistics":
        counts = Counter()
        for text in texts:
            counts.update(word.lower() for word in _WORD.findall(text))
        return cls(counts)

    @property
    def description(self) -> str:
        return f"corpus unigram statistics ({self.total} words, {len(self.counts)} distinct; add-one smoothing)"

    def _word_ics(self, text: str) -> list[float]:
        """-log of each word's add-one smoothed relative frequency (one slot for unseen words)."""
        vocabulary = len(self.counts) + 1
        denominator = self.total + vocabulary
        return [-math.log((self.counts[w.lower()] + 1) / denominator) for w in _WORD.findall(text)]

    def information_content(self, text: str, span: tuple[int, int]) -> float:
        ics = self._word_ics(text[span[0] : span[1]])
        return sum(ics) / len(ics) if ics else 0.0

    def term_information_content(self, text: str, span: tuple[int, int]) -> float:
        """-log P(term) = Σ -log P(w) over its words (0 for a term without words)."""
        return sum(self._word_ics(text[span[0] : span[1]]))


class LanguageModelContent:
    """IC from a masked language model."""

    def __init__(self, lm):
        self.lm = lm
        self.source = f"masked LM ({lm.name})"
        self.description = f"masked language model {lm.name} (-log P(term | context))"

    def information_content(self, text: str, span: tuple[int, int]) -> float:
        return self.lm.information_content(text, span)

    def term_information_content(self, text: str, span: tuple[int, int]) -> float:
        # The LM's span score is already -log P of the whole span (its subwords summed).
        return self.lm.information_content(text, span)
