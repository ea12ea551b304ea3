"""Grouping recognised spans into entities.

Identical strings are one entity; a short form of a person's name ("Mr Smith",
"Smith") joins the one full name with that surname ("John Smith"); the forms of the
protected person's name are one entity."""

import re
from collections import defaultdict
from dataclasses import dataclass, field

from .candidates import Candidate
from .names import TITLES, name_forms

_TITLE = re.compile(rf"^{TITLES}\.?\s+")


@dataclass
class EntityGroup:
    mentions: list[Candidate] = field(default_factory=list)
    protected: bool = False

    @property
    def label(self) -> str:
        return self.mentions[0].label


def _surname(text: str) -> str:
    words = [w for w in _TITLE.sub("", text).split() if not re.fullmatch(r"(?:\w\.)+[-‑]?", w)]
    return words[-1].rstrip("’'s") if words else ""


def group_entities(text: str, spans: list[Candidate], person: str = "") -> list[EntityGroup]:
    protected_forms = set(name_forms(person)) if person else set()
    by_text: dict[tuple[str, str], EntityGroup] = {}
    for span in spans:
        key = (span.label, text[span.start : span.end])
        group = by_text.setdefault(key, EntityGroup())
        group.mentions.append(span)
    groups = list(by_text.values())
    # Persons: the protected person's forms together; short forms join a full name.
    people = [g for g in groups if g.label == "PERSON"]
    protected = [g for g in people if _TITLE.sub("", text[g.mentions[0].start : g.mentions[0].end]) in protected_forms]
    if protected:
        keep = protected[0]
        keep.protected = True
        for other in protected[1:]:
            keep.mentions += other.mentions
            groups.remove(other)
    full_names = defaultdict(list)
    for group in people:
        if group in groups and len(_TITLE.sub("", text[group.mentions[0].start : group.mentions[0].end]).split()) >= 2:
            full_names[_surname(text[group.mentions[0].start : group.mentions[0].end])].append(group)
    for group in people:
        if group not in groups:
            continue
        name = _TITLE.sub("", text[group.mentions[0].start : group.mentions[0].end])
        if len(name.split()) == 1 and len(full_names.get(_surname(name), [])) == 1:
            target = full_names[_surname(name)][0]
            if target is not group:
                target.mentions += group.mentions
                groups.remove(group)
    for group in groups:
        group.mentions.sort(key=lambda c: c.start)
    return sorted(groups, key=lambda g: g.mentions[0].start)
