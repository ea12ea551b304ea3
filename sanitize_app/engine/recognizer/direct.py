"""The rules' finds of direct identifiers, which no statistical NER may remove.

A NER trained on a few dozen layers loses what the rules always found: application
numbers it tags as dates or spans with "no." in front, a titled name it cuts or types
as an organisation. Privacy first, by construction: these finds are settled before
every other span (``resolve.resolve_overlaps``), so a NER span that overlaps one is
dropped, never the rule's find. The finds are those whose precision the rules can
vouch for:

- the protected person's name forms (``person``: the names given with the task);
- a name after a title ("Dr Price", "Mrs Satike Dikici": ``title``);
- an application or case number ("12345/01", "E. 2001/123") where the 40 characters
  before it say it is one ("application no.", "case no.", "file no."), or before the
  list it belongs to ("applications (nos. 58372/00, 61878/00, ..."): a bare "5/12" may
  be a date.
"""

import re

from .candidates import Candidate

_NAME_SOURCES = frozenset({"person", "title"})
_NUMBER_SOURCES = frozenset({"pattern:application", "pattern:case"})
APPLICATION_NUMBER = re.compile(r"^(?:[EKD]\.\s?)?\d{1,6}/\d{2,6}(?:\s?[EKD]\.)?$")
_REFERENCE_CONTEXT = re.compile(r"\bapplications?\b|\bnos?\.|\bnumbers?\b|\bcase\b|\bfile\b|\b[EK]\.\s?$", re.I)
_APPLICATION_CONTEXT = re.compile(r"\bapplications?\b|\bnos?\.", re.I)
_CONTEXT = 40


# A number of a list, and what separates it from the next: "58372/00, " or "682/02 and ".
_LISTED_BEFORE = re.compile(r"\d{1,6}/\d{2,6}(?:\s*[,;]\s*|\s+and\s+|\s*&\s*)$")
_LIST_REACH = 2000  # characters searched back over a list ("nos. 58372/00, ... and 14537/02")


def _announced(text: str, start: int, context: re.Pattern, *, lists: bool = False) -> bool:
    """Whether the words before ``start`` (same paragraph) say what follows; with
    ``lists``, over the numbers listed before it after one announcement."""
    before = text[max(0, start - (_LIST_REACH if lists else _CONTEXT)) : start].rsplit("\n\n", 1)[-1]
    while lists and (listed := _LISTED_BEFORE.search(before)):
        before = before[: listed.start()]
    return bool(context.search(before[-_CONTEXT:]))


def is_reference_number(text: str, start: int, end: int) -> bool:
    """An application or case number in a context that says so (application, case or
    file number), or one of a list that such a context announces ("applications (nos.
    58372/00, 61878/00, ... and 14537/02)": 49 numbers in one real judgment)."""
    return bool(APPLICATION_NUMBER.match(text[start:end])) and _announced(text, start, _REFERENCE_CONTEXT, lists=True)


def is_application_number(text: str, start: int, end: int) -> bool:
    """An application number to the Court right after its announcement ("application
    no. 12345/01"): it names the case and so its applicant, a direct identifier. (The
    numbers listed after it, other applications joined to the case, and a domestic
    court's case number are quasi-identifiers for the annotators.)"""
    before = text[max(0, start - _CONTEXT) : start]
    return (
        bool(APPLICATION_NUMBER.match(text[start:end]))
        and "/" in text[start:end]
        and not _LISTED_BEFORE.search(before)
        and _announced(text, start, _APPLICATION_CONTEXT)
    )


def is_direct_find(candidate: Candidate, text: str) -> bool:
    if candidate.label == "PERSON" and candidate.source in _NAME_SOURCES:
        return True
    return (
        candidate.label == "CODE"
        and candidate.source in _NUMBER_SOURCES
        and is_reference_number(text, candidate.start, candidate.end)
    )
