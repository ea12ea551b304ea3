"""Information content IC(e) of an entity: how much masking it costs the reader.

From a masked language model when one is configured (-log P(span | context)), else
from corpus statistics: the mean over the span's words of -log of their smoothed
relative frequency in a reference corpus (rare words carry more information)."""

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

    def information_content(self, text: str, span: tuple[int, int]) -> float:
        words = [w.lower() for w in _WORD.findall(text[span[0] : span[1]])]
        if not words:
            return 0.0
        vocabulary = len(self.counts) + 1
        return sum(-math.log((self.counts[w] + 1) / (self.total + vocabulary)) for w in words) / len(words)


class LanguageModelContent:
    """IC from a masked language model."""

    def __init__(self, lm):
        self.lm = lm
        self.source = f"masked LM ({lm.name})"

    def information_content(self, text: str, span: tuple[int, int]) -> float:
        return self.lm.information_content(text, span)
