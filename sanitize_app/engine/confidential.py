"""Confidential status proposals (TAB Step 3): BELIEF, POLITICS, SEX, ETHNIC or HEALTH
for a recognised entity, with a short reason; NOT_CONFIDENTIAL otherwise.

Two kinds of evidence, both rules the annotator can check at a glance:

- the mention's own words are in a list of ``data/gazetteers`` (religions and churches,
  parties, ideologies and unions, sexual orientations, ethnic groups, health conditions);
- its context says so: "of Kurdish origin", "suffered from ...", "the PKK, an illegal
  organisation".

A proposal is only a suggestion shown in the workspace: the annotator takes it or not.
Numbers, dates, codes and places never carry a category (they do not *state* a belief or
a diagnosis), nor do state bodies ("Ministry of Labour", "Islamic Republic of Iran")."""

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

NOT_CONFIDENTIAL = "NOT_CONFIDENTIAL"
CATEGORIES = ("BELIEF", "POLITICS", "SEX", "ETHNIC", "HEALTH")

DATA = Path(__file__).resolve().parent / "data" / "gazetteers"
# Each category's lists: the recognizer's own (religions, health) extended by ours.
LISTS = {
    "BELIEF": ("religions", "confidential_belief"),
    "POLITICS": ("confidential_politics",),
    "SEX": ("confidential_sex",),
    "ETHNIC": ("confidential_ethnic",),
    "HEALTH": ("health", "confidential_health"),
}
WHAT = {
    "BELIEF": "religion or belief",
    "POLITICS": "political party, opinion or trade union",
    "SEX": "sexual orientation or sex life",
    "ETHNIC": "ethnic or racial origin",
    "HEALTH": "health condition or disability",
}
# Which entity types may state each category through their words. Places, dates, codes
# and quantities never do; a person's name only when it *is* a listed name (a recognizer
# that typed "Labour" as PERSON).
TYPES = {
    "BELIEF": {"DEM", "ORG", "MISC"},
    "POLITICS": {"DEM", "ORG", "MISC"},
    "SEX": {"DEM", "MISC"},
    "ETHNIC": {"DEM", "MISC"},
    "HEALTH": {"DEM", "MISC"},
}
NEVER = {"DATETIME", "CODE", "QUANTITY", "LOC"}

# State bodies and laws whose words would otherwise read as a category ("Ministry of
# Labour", "International Labour Organisation", "Race Relations Act 1976").
STATE_BODY = re.compile(
    r"\b(?:Ministry|Minister|Government|Republics?|Court|Tribunal|Prosecutor|Police|Gendarmerie|Parliament|"
    r"Contracting Part(?:y|ies)|State|Hospital|University|Act|Code|Law|Convention|Regulations?|Directive|"
    r"Office|Agency|Department|Directorate|Inspectorate|International)\b"
)
# Context cues: a few words right before or after a mention, inside its sentence.
WINDOW = 60
ORIGIN = re.compile(r"\b(?:origin|descent|extraction|ethnicity)\b", re.IGNORECASE)
ORIGIN_AFTER = re.compile(r"^\s+(?:origin|descent|extraction)\b", re.IGNORECASE)
ETHNIC_BEFORE = re.compile(r"\bethnic(?:ally)?\s+$", re.IGNORECASE)
HEALTH_BEFORE = re.compile(
    r"\b(?:suffer(?:s|ed|ing)?\s+from|diagnosed\s+(?:with|as)|treated\s+for|treatment\s+for|diagnosis\s+of|"
    r"infected\s+with|ill\s+with|died\s+of|symptoms\s+of)\b[^.;:]{0,40}$",
    re.IGNORECASE,
)
_POLITICAL_BODY = (
    r"(?:(?:illegal|armed|terrorist|separatist|political|proscribed|outlawed|banned|extremist|revolutionary)"
    r"(?:\s+\w+)?\s+(?:organi[sz]ation|party|movement)|trade[- ]union)"
)
# "Hizbullah, an illegal organisation", "the PKK (Workers' Party), a terrorist organisation"
POLITICAL_AFTER = re.compile(rf"^\s*(?:\([^)]{{1,80}}\))?\s*,?\s*(?:an?|the)?\s*{_POLITICAL_BODY}\b", re.IGNORECASE)
# "an illegal organisation, the PRK-Rızgari", "the trade union Eğitim-Sen"
POLITICAL_BEFORE = re.compile(
    rf"\b{_POLITICAL_BODY}s?\s*,?\s*(?:namely|called|known\s+as)?\s*(?:the\s+)?$", re.IGNORECASE
)


@dataclass(frozen=True)
class ConfidentialProposal:
    status: str  # NOT_CONFIDENTIAL or one of CATEGORIES
    reason: str = ""


NONE = ConfidentialProposal(NOT_CONFIDENTIAL, "")


def read_entries(name: str) -> list[str]:
    lines = (DATA / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _alternation(entries: list[str]) -> str:
    return "|".join(re.escape(entry) for entry in sorted(set(entries), key=len, reverse=True))


@lru_cache(maxsize=1)
def category_patterns() -> dict[str, tuple[re.Pattern | None, re.Pattern | None]]:
    """Per category: (capitalised entries matched as written, lower-case entries in any
    case), each as whole words ("anti-communist" contains "communist")."""
    patterns = {}
    for category, names in LISTS.items():
        entries = [entry for name in names for entry in read_entries(name)]
        exact = [e for e in entries if e != e.lower()]
        folded = [e for e in entries if e == e.lower()]
        patterns[category] = tuple(
            re.compile(rf"(?<!\w)(?:{_alternation(group)})(?!\w)", flags) if group else None
            for group, flags in ((exact, 0), (folded, re.IGNORECASE))
        )
    return patterns


def _listed(phrase: str, category: str, *, whole: bool) -> str | None:
    """The longest entry of ``category``'s lists found in ``phrase`` (the whole phrase
    when ``whole``)."""
    found = []
    for pattern in category_patterns()[category]:
        if pattern is None:
            continue
        if whole:
            match = pattern.fullmatch(phrase)
            found += [match.group(0)] if match else []
        else:
            found += [match.group(0) for match in pattern.finditer(phrase)]
    return max(found, key=len) if found else None


def _sentence_window(text: str, start: int, end: int) -> tuple[str, str]:
    """Up to WINDOW characters before and after the span, cut at a sentence end."""
    before = text[max(0, start - WINDOW) : start]
    after = text[end : end + WINDOW]
    before = re.split(r"[.;!?]\s|\n", before)[-1]
    after = re.split(r"[.;!?]\s|\n", after)[0]
    return before, after


def from_words(phrase: str, entity_type: str) -> ConfidentialProposal | None:
    """A category stated by the mention's own words (the longest listed entry wins)."""
    if entity_type in NEVER:
        return None
    state_body = entity_type in ("ORG", "MISC") and STATE_BODY.search(phrase)
    best: tuple[int, str, str] | None = None
    for category in CATEGORIES:
        allowed = entity_type in TYPES[category] and not state_body
        entry = _listed(phrase, category, whole=not allowed)
        if entry and (best is None or len(entry) > best[0]):
            best = (len(entry), category, entry)
    if best is None:
        return None
    _, category, entry = best
    return ConfidentialProposal(category, f"{WHAT[category]}: “{entry}” is in the word list")


def from_context(text: str, start: int, end: int, entity_type: str) -> ConfidentialProposal | None:
    """A category stated by the words around the mention."""
    phrase = text[start:end]
    before, after = _sentence_window(text, start, end)
    if entity_type in ("DEM", "MISC"):
        if ORIGIN.search(phrase) or ORIGIN_AFTER.match(after) or ETHNIC_BEFORE.search(before):
            return ConfidentialProposal("ETHNIC", f"ethnic or racial origin: “{phrase}” is said of someone's origin")
        health = HEALTH_BEFORE.search(before)
        if health:
            cue = " ".join(health.group(0).split()[:2])
            return ConfidentialProposal("HEALTH", f"health condition: “{phrase}” follows “{cue} …”")
    if entity_type == "ORG" and not STATE_BODY.search(phrase):
        cue = POLITICAL_BEFORE.search(before) or POLITICAL_AFTER.search(after)
        if cue:
            said = " ".join(cue.group(0).strip(" ,").split())
            return ConfidentialProposal("POLITICS", f"political organisation: “{phrase}” is called “{said}”")
    return None


def propose_mention(text: str, start: int, end: int, entity_type: str) -> ConfidentialProposal:
    """The category one mention states, by its words first, else by its context."""
    if not 0 <= start < end <= len(text):
        raise ValueError(f"mention offsets {start}:{end} are outside the text (length {len(text)})")
    if entity_type in NEVER:
        return NONE
    return from_words(text[start:end], entity_type) or from_context(text, start, end, entity_type) or NONE


def propose_entity(text: str, mentions: list[tuple[int, int, str]]) -> ConfidentialProposal:
    """One status for an entity (a decision applies to all its mentions): the category
    most of its mentions state, ties to the earliest; the reason of its first such mention."""
    proposals = [propose_mention(text, start, end, label) for start, end, label in sorted(mentions)]
    stated = [p for p in proposals if p.status != NOT_CONFIDENTIAL]
    if not stated:
        return NONE
    counts = Counter(p.status for p in stated)
    return next(p for p in stated if counts[p.status] == max(counts.values()))
