"""The recognizer as spaCy pipeline components (registered factories).

Each component adds its candidates to ``doc.user_data["tab_candidates"]``;
``tab_resolver`` is where they all meet: it first applies the rules every span obeys,
whatever its source (trimmed, never across a paragraph break: ``paragraphs``; legal
phrases typed as laws or institutions, never as people: ``legal``), then keeps the
longest of overlapping ones, after the rules' finds of direct identifiers, which
nothing removes (``direct``), and (configured with ``first=["person", "ner"]``) those
sources' own and stores the result in
``doc.user_data["tab_spans"]`` (character offsets, exact: TAB offsets do not follow
token boundaries). The person to protect is read from ``doc.user_data["tab_person"]``.
"""

from spacy.language import Language

from .direct import is_direct_find
from .gazetteers import gazetteer_candidates, load_gazetteers
from .legal import retype_legal_phrases
from .names import name_candidates
from .paragraphs import within_paragraphs
from .patterns import pattern_candidates
from .resolve import resolve_overlaps
from .statistical import ner_candidates

CANDIDATES = "tab_candidates"
SPANS = "tab_spans"
PERSON = "tab_person"


def _add(doc, candidates) -> None:
    doc.user_data.setdefault(CANDIDATES, []).extend(candidates)


@Language.component("tab_patterns")
def tab_patterns(doc):
    """DATETIME, CODE and QUANTITY by regular patterns."""
    _add(doc, pattern_candidates(doc.text))
    return doc


@Language.component("tab_gazetteers")
def tab_gazetteers(doc):
    """DEM and MISC from the word lists of data/gazetteers."""
    _add(doc, gazetteer_candidates(doc.text))
    return doc


@Language.component("tab_names")
def tab_names(doc):
    """PERSON, ORG and LOC by name shape (titles, the protected person, organisation
    head words, places, acronyms)."""
    _add(doc, name_candidates(doc.text, load_gazetteers(), doc.user_data.get(PERSON, "")))
    return doc


@Language.component("tab_ner_mapping")
def tab_ner_mapping(doc):
    """The statistical NER's entities, mapped to TAB types (a no-op without NER)."""
    if doc.has_annotation("ENT_IOB"):
        _add(doc, ner_candidates(doc, load_gazetteers()))
    return doc


@Language.factory("tab_resolver", default_config={"first": []})
def make_tab_resolver(nlp, name: str, first: list[str]):
    """``first``: sources whose candidates win every overlap (see ``resolve``)."""
    preferred = tuple(first)

    def tab_resolver(doc):
        gazetteers = load_gazetteers()
        candidates = within_paragraphs(doc.text, doc.user_data.pop(CANDIDATES, []), gazetteers.boilerplate)
        candidates = retype_legal_phrases(doc.text, candidates, gazetteers)
        text = doc.text
        doc.user_data[SPANS] = resolve_overlaps(candidates, preferred, lambda c: is_direct_find(c, text))
        return doc

    return tab_resolver


TAB_COMPONENTS = ("tab_ner_mapping", "tab_patterns", "tab_gazetteers", "tab_names", "tab_resolver")
