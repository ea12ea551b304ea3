"""Span boundaries that every proposed span obeys, whatever part of the recognizer found
it. Applied once, where the candidates of all sources are merged (``tab_resolver``):

- a span never starts or ends with whitespace, and a span without a letter or digit is
  no span;
- a span never crosses a paragraph break (two line breaks, possibly with spaces or
  ``\\r`` between). A paragraph is a unit of meaning in a judgment; what a greedy rule
  sweeps across a break is the end of one paragraph and the first word of the next
  ("Criminal Code.⏎⏎In"). Such a span is cut at its first break and its **first part**
  is kept: a span starts where its source found its evidence (the title, the
  preposition, the NER's first token, the pattern's start), and what runs on past the
  break is the next paragraph's opening word, which on its own would be a spurious
  mention. The part kept loses the sentence punctuation left at the cut (an initial
  keeps its full stop: "lawyer B."); a part without a letter or digit is skipped for the
  next one; a part that is only the Court's vocabulary ("Court", "Criminal Code": the
  boilerplate gazetteer) is dropped, as every source drops such phrases.
"""

import re
from dataclasses import replace

from .candidates import Candidate
from .names import ends_sentence

PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n|\u2029")
_WORD_CHARACTER = re.compile(r"[^\W_]")


def trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """``start``/``end`` without the whitespace at both edges (an empty span if all is)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _without_sentence_end(text: str, start: int, end: int) -> tuple[int, int]:
    """The part before a cut loses the punctuation that ended its paragraph."""
    while end > start and text[end - 1] in ",;:":
        end -= 1
    words = text[start:end].split()
    if words and text[end - 1] in ".!?" and ends_sentence(words[-1]):
        end -= 1
    return trimmed(text, start, end)


def _first_part(text: str, candidate: Candidate) -> tuple[int, int] | None:
    """The first part of a span cut at its paragraph breaks that has a letter or digit."""
    start = candidate.start
    for brk in PARAGRAPH_BREAK.finditer(text, candidate.start, candidate.end):
        part = _without_sentence_end(text, *trimmed(text, start, brk.start()))
        if _WORD_CHARACTER.search(text, *part):
            return part
        start = brk.end()
    part = trimmed(text, start, candidate.end)
    while part[0] < part[1] and text[part[0]] in ".,;:":
        part = trimmed(text, part[0] + 1, part[1])
    return part if _WORD_CHARACTER.search(text, *part) else None


def within_paragraphs(text: str, candidates: list[Candidate], boilerplate: frozenset[str]) -> list[Candidate]:
    """The candidates trimmed, cut at paragraph breaks (see the module's docstring)."""
    kept = []
    for candidate in candidates:
        crosses = PARAGRAPH_BREAK.search(text, candidate.start, candidate.end) is not None
        bounds = _first_part(text, candidate) if crosses else trimmed(text, candidate.start, candidate.end)
        if bounds is None or not _WORD_CHARACTER.search(text, *bounds):
            continue
        if crosses and text[bounds[0] : bounds[1]] in boilerplate:
            continue
        if bounds != (candidate.start, candidate.end):
            candidate = replace(candidate, start=bounds[0], end=bounds[1])
        kept.append(candidate)
    return kept
