"""Legal phrases are not people.

The name-shape rules see any capitalised phrase inside a sentence as a person's name,
and a statistical NER sometimes agrees, so "Housing Act", "Turkish Criminal Code" or
"Traffic Ordinance" came out as PERSON. A title-cased phrase whose head word (the last
word before "of", "for", "on", "in": "**Code** of Criminal Procedure") or last word
names a legal instrument or an institution (the ``law_heads`` and ``institution_heads``
gazetteers) is typed as the TAB annotators type it in the real files (../shared/tab):
laws, codes, conventions and rules are MISC ("Army Act 1955", "Article 146 § 1 of the
Criminal Code", "Traffic Ordinance of 1972"), courts, tribunals and commissions are ORG
("Court of Appeal", "Employment Tribunal", "European Commission of Human Rights"), and a
post "in Law" is the holder's occupation, DEM ("Lecturer in Law").

Applied once, where the candidates of all sources are merged (``tab_resolver``), to
PERSON and LOC candidates, and to ORG candidates headed by a law word ("Land
Administration Act" is a law, not an administration). A span that starts with a title
("Mr Law") or names the protected person is left alone: it is a person. A law keeps the
year that follows it ("Housing Act 1996"), as the annotators' spans do.
"""

import re
from dataclasses import replace

from .candidates import Candidate
from .gazetteers import Gazetteers
from .names import TITLES

# Sources that name a person for certain: the protected person's forms, a title, the
# names found after a title elsewhere.
_PERSON_SOURCES = ("person", "title", "shape:name")
_HEAD_ENDS = frozenset({"of", "for", "on", "in"})
_LOWERCASE_INSIDE = _HEAD_ENDS | {"the", "and", "de", "&", "under"}
_NUMBER = re.compile(r"^(?:\d[\d.:/()-]*|§+|No\.?|[IVX]+)$")
_TITLE_START = re.compile(rf"^{TITLES}\b")
_YEAR_AFTER = re.compile(r"[^\S\n]+(?:of[^\S\n]+)?(?:1[89]\d\d|20\d\d)\b")


def _word(token: str) -> str:
    """A word without the punctuation and possessive around it ("Court’s" -> "Court")."""
    return re.sub(r"(?:['’]s|['’])$", "", token.strip(".,;:()“”\"'"))


def legal_type(phrase: str, gazetteers: Gazetteers) -> str | None:
    """MISC (a law), ORG (an institution), DEM (a post in law) or None (not a legal phrase)."""
    words = [_word(token) for token in phrase.split()]
    words = [word for word in words if word]
    if not words or not words[0][:1].isupper() or _TITLE_START.match(phrase):
        return None
    if not all(w[:1].isupper() or w in _LOWERCASE_INSIDE or _NUMBER.match(w) for w in words):
        return None  # not title-cased: not a name of anything
    cut = next((i for i, word in enumerate(words) if word in _HEAD_ENDS), len(words))
    names = [word for word in words[:cut] if not _NUMBER.match(word)]
    head = names[-1] if names else ""
    last = next((word for word in reversed(words) if not _NUMBER.match(word)), "")
    legal_head = last in gazetteers.law_heads or last in gazetteers.institution_heads
    if cut < len(words) and words[0].lower() in gazetteers.occupations and legal_head:
        return "DEM"
    for word in (head, last):
        if word in gazetteers.law_heads:
            return "MISC"
        if word in gazetteers.institution_heads:
            return "ORG"
    return None


def _is_law(phrase: str, gazetteers: Gazetteers) -> bool:
    return legal_type(phrase, gazetteers) == "MISC"


def retype_legal_phrases(text: str, candidates: list[Candidate], gazetteers: Gazetteers) -> list[Candidate]:
    """The candidates, with legal phrases typed as laws or institutions (see the module)."""
    typed = []
    for candidate in candidates:
        phrase = text[candidate.start : candidate.end]
        label = None
        if candidate.label in ("PERSON", "LOC") and not candidate.source.startswith(_PERSON_SOURCES):
            label = legal_type(phrase, gazetteers)
        elif candidate.label == "ORG" and _is_law(phrase, gazetteers):
            label = "MISC"
        if label is not None:
            end = candidate.end
            year = _YEAR_AFTER.match(text, end) if label == "MISC" else None
            candidate = replace(candidate, end=year.end() if year else end, label=label)
        typed.append(candidate)
    return typed
