"""Annotators' layers as spaCy NER training examples.

Each layer (one annotator on one document) is cut into chunks of about ``CHUNK_CHARS``
characters at line breaks that no span crosses, so that minibatches mix documents. In
a chunk's reference document every token outside a span is "outside" (annotators mark
every entity of the 8 types). Overlapping spans of one layer: see
``layers.flat_mentions``; a span's surrounding whitespace is trimmed, and a span that
does not fall on token boundaries is expanded to the tokens it touches (an expansion
that creates a new overlap keeps the longer span, ``spacy.util.filter_spans``)."""

from spacy.training import Example
from spacy.util import filter_spans

from ..recognizer.paragraphs import trimmed
from .layers import Layer, flat_mentions

CHUNK_CHARS = 1200


def _chunks(text: str, spans: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """(start, end) pieces of about CHUNK_CHARS, cut after line breaks outside spans."""
    inside = set()
    for start, end, _ in spans:
        inside.update(range(start, end))
    cuts = [i + 1 for i, c in enumerate(text) if c == "\n" and i not in inside]
    pieces, start = [], 0
    for cut in cuts:
        if cut - start >= CHUNK_CHARS:
            pieces.append((start, cut))
            start = cut
    if start < len(text):
        pieces.append((start, len(text)))
    return [(s, e) for s, e in pieces if text[s:e].strip()]


def layer_examples(nlp, layer: Layer) -> list[Example]:
    spans = [(*trimmed(layer.text, s, e), label) for s, e, label in layer.typed_mentions()]
    spans = flat_mentions([s for s in spans if s[0] < s[1]])
    examples = []
    for start, end in _chunks(layer.text, spans):
        chunk = layer.text[start:end]
        reference = nlp.make_doc(chunk)
        entities = []
        for s, e, label in spans:
            if start <= s and e <= end:
                span = reference.char_span(s - start, e - start, label=label, alignment_mode="expand")
                if span is not None:
                    entities.append(span)
        reference.set_ents(filter_spans(entities), default="outside")
        examples.append(Example(nlp.make_doc(chunk), reference))
    return examples
