"""OntoNotes entities of a statistical spaCy NER, mapped onto the 8 TAB types.

PERSON keeps the title before it ("Mr Galip Yalman"); a country is a place after
"in/from/to/at..." and the state otherwise, other geopolitical entities are places;
NORP and LANGUAGE are demographic attributes; a CARDINAL with at least four digits is a
code (smaller numbers are left to the count patterns); laws and ordinals are not
identifiers. A NER trained on TAB layers (``training.recognizer``) already speaks the TAB
types: CODE, DEM, DATETIME and MISC keep their label (PERSON, ORG, LOC and QUANTITY
map onto themselves anyway)."""

import re

from .candidates import Candidate
from .gazetteers import Gazetteers
from .names import PLACE_PREPOSITIONS, TITLES

_DIRECT_MAP = {
    "ORG": "ORG",
    "LOC": "LOC",
    "NORP": "DEM",
    "LANGUAGE": "DEM",
    "DATE": "DATETIME",
    "TIME": "DATETIME",
    "MONEY": "QUANTITY",
    "PERCENT": "QUANTITY",
    "QUANTITY": "QUANTITY",
    "EVENT": "MISC",
    "WORK_OF_ART": "MISC",
    "PRODUCT": "MISC",
}
_TAB_ONLY = frozenset({"CODE", "DEM", "DATETIME", "MISC"})  # TAB labels that OntoNotes lacks
_TITLE_BEFORE = re.compile(rf"\b{TITLES}\.?\s+$")


def tab_type(label: str, text: str, start: int, end: int, gazetteers: Gazetteers) -> str | None:
    """The TAB type of an OntoNotes entity, or None when it is not an identifier."""
    span = text[start:end]
    if label in _TAB_ONLY:
        return label
    if label == "PERSON":
        return "PERSON"
    if label == "GPE":
        before = text[max(0, start - 30) : start]
        if span in gazetteers.countries and not PLACE_PREPOSITIONS.search(before):
            return "ORG"
        return "LOC"
    if label == "FAC":
        return "ORG" if any(word in gazetteers.org_keywords for word in span.split()) else "LOC"
    if label == "CARDINAL":
        return "CODE" if sum(c.isdigit() for c in span) >= 4 and not re.search(r"\s", span) else None
    return _DIRECT_MAP.get(label)


def ner_candidates(doc, gazetteers: Gazetteers) -> list[Candidate]:
    text = doc.text
    found = []
    for ent in doc.ents:
        start, end = ent.start_char, ent.end_char
        if text[start:end].lower().startswith("the "):  # minimal spans: no leading article
            start += 4
        if text[start:end] in gazetteers.boilerplate:
            continue
        label = tab_type(ent.label_, text, start, end, gazetteers)
        if label is None:
            continue
        if label == "PERSON":
            title = _TITLE_BEFORE.search(text[max(0, start - 12) : start])
            if title:
                start -= len(title.group(0))
        found.append(Candidate(start, end, label, f"ner:{ent.label_}"))
    return found
