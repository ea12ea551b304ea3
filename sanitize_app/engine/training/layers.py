"""Annotators' layers of TAB documents as training material.

A layer is one annotator's mentions on one document. Several layers of one document
are several views of the same text: each is its own training example.

Overlaps within a layer (a handful in TAB) cannot all be kept where a model needs flat
spans (spaCy's NER): ``flat_mentions`` keeps the longest of overlapping mentions,
between mentions of equal length the earlier one (as the recognizer's own resolver
does, see ``recognizer.resolve``), and of two mentions of the very same span the
first listed."""

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..tab_document import person_to_protect, respondent_states

TAB_TYPES = ("PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC")
MASKED = frozenset({"DIRECT", "QUASI"})
_WORD_CHAR = re.compile(r"\w")


@dataclass
class Layer:
    doc_id: str
    annotator: str
    text: str
    person: str
    respondent_states: list[str]
    mentions: list[dict]  # TAB entity mentions, in text order

    def typed_mentions(self) -> list[tuple[int, int, str]]:
        """(start, end, type) of the mentions of the 8 TAB types, in layer order."""
        return [
            (m["start_offset"], m["end_offset"], m["entity_type"])
            for m in self.mentions
            if m.get("entity_type") in TAB_TYPES
        ]

    def spans(self) -> set[tuple[int, int, str]]:
        """The distinct (start, end, type) spans of the layer."""
        return set(self.typed_mentions())

    def masked_spans(self) -> list[tuple[int, int]]:
        """Spans of the mentions this annotator masked (DIRECT or QUASI)."""
        return [(m["start_offset"], m["end_offset"]) for m in self.mentions if m.get("identifier_type") in MASKED]

    def masked_offsets(self) -> set[int]:
        """Offsets of the word characters (``\\w``) of the mentions this annotator masked:
        punctuation a span shares with a mention does not make it masked."""
        return {i for start, end in self.masked_spans() for i in range(start, end) if _WORD_CHAR.match(self.text[i])}


def layers_of(documents: list[dict], annotators: list[str] | None = None) -> Iterator[Layer]:
    """Every layer of every document (only the given annotators' when ``annotators`` is set)."""
    wanted = None if annotators is None else set(annotators)
    for document in documents:
        text = document["text"]
        for annotator, layer in (document.get("annotations") or {}).items():
            if wanted is not None and annotator not in wanted:
                continue
            mentions = [
                m for m in layer.get("entity_mentions") or [] if 0 <= m["start_offset"] < m["end_offset"] <= len(text)
            ]
            mentions.sort(key=lambda m: (m["start_offset"], m["end_offset"]))
            yield Layer(
                str(document["doc_id"]),
                annotator,
                text,
                person_to_protect(document),
                respondent_states(document.get("meta")),
                mentions,
            )


def flat_mentions(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Non-overlapping spans: the longest of overlapping ones, the earlier between equals
    (the first listed for the same span: the sort is stable)."""
    kept: list[tuple[int, int, str]] = []
    for span in sorted(spans, key=lambda s: (s[0] - s[1], s[0])):
        if not any(span[0] < other[1] and other[0] < span[1] for other in kept):
            kept.append(span)
    return sorted(kept)
