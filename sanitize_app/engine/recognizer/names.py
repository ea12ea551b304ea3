"""Name-shape heuristics: people, organisations and places found by how they look, so
that PERSON, ORG and LOC are proposed even when no statistical model is installed.

- a title followed by capitalised words or initials is a person ("Mr Roy H.W. Johnston");
- the person to protect is found under every form of their name, and so is any person
  named after a title elsewhere ("Johnston", "Roy Johnston");
- a capitalised phrase with an organisation head word is an organisation;
- a country is a place after "in/from/to/at..." and a state otherwise; another
  capitalised phrase after such a preposition is a place;
- an acronym is an organisation.
"""

import re
from functools import lru_cache

from .candidates import Candidate
from .gazetteers import Gazetteers

TITLES = r"(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor|Judge|Sir|Dame|Lord|Lady)"
PARTICLES = {
    "de",
    "van",
    "von",
    "der",
    "den",
    "la",
    "le",
    "du",
    "da",
    "di",
    "del",
    "bin",
    "ibn",
    "al",
    "el",
    "ter",
    "ten",
}
CONNECTORS = {"of", "and", "for", "the", "de", "on", "&"}
PLACE_PREPOSITIONS = re.compile(
    r"(?:\b(?:in|from|to|at|near|into|within|across|throughout|outside|via|towards|village of|town of|city of|"
    r"district of|province of|region of|municipality of)\s+)$"
)
_TITLE = re.compile(rf"\b{TITLES}\b\.?")
_WORD = re.compile(r"(?:[^\W\d_]\.[-‐‑]?){1,4}|[^\W\d_][\w'’\-‐‑]*")
_CAPITALISED_PHRASE = re.compile(r"(?:[^\W\d_][\w'’.-]*|&)(?:\s+(?:[^\W\d_][\w'’.-]*|&))*")
# Whitespace between the words of one name: at most one line break (two make a paragraph).
_GAP = r"(?:[^\S\n]+|[^\S\n]*\n[^\S\n]*)"
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,7}(?:[-/][A-Z0-9]{2,8})*\b")
ROMAN = re.compile(r"^(?=[MDCLXVI])M*(?:C[MD]|D?C{0,3})(?:X[CL]|L?X{0,3})(?:I[XV]|V?I{0,3})$")


@lru_cache(maxsize=8)
def _alternation(entries: frozenset[str]) -> re.Pattern:
    """One pattern matching any of ``entries`` as whole words, longest first."""
    alternation = "|".join(re.escape(entry) for entry in sorted(entries, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])")


def _is_capitalised(word: str) -> bool:
    return word[:1].isupper()


def _name_after(text: str, position: int) -> int:
    """End of the name that starts at ``position`` (capitalised words, initials and
    particles before a capitalised word); ``position`` if there is none."""
    end, cursor = position, position
    while True:
        gap = re.match(r"[ \u00a0]+", text[cursor:])
        start = cursor + (gap.end() if gap else 0)
        if cursor != position and not gap:
            return end
        match = _WORD.match(text, start)
        if not match:
            return end
        word = match.group(0)
        if _is_capitalised(word):
            end = cursor = match.end()
        elif word.lower() in PARTICLES:
            cursor = match.end()  # kept only if a capitalised word follows
        else:
            return end


def titled_persons(text: str) -> list[Candidate]:
    found = []
    for match in _TITLE.finditer(text):
        end = _name_after(text, match.end())
        if end > match.end():
            found.append(Candidate(match.start(), end, "PERSON", "title"))
    return found


def name_forms(name: str) -> list[str]:
    """The forms a person's name takes in a judgment: in full, first and last names,
    last name alone (longest first)."""
    words = [w for w in re.split(r"\s+", name.strip()) if w]
    forms = [" ".join(words)]
    if len(words) >= 2:
        forms.append(f"{words[0]} {words[-1]}")
        surname = words[-1]
        # Compound surnames ("Le Petit"): keep the particle.
        if len(words) >= 3 and words[-2].lower() in PARTICLES | {"le", "la"}:
            surname = f"{words[-2]} {words[-1]}"
        forms.append(surname)
    return list(dict.fromkeys(form for form in forms if len(form) > 1))


def person_mentions(text: str, names: list[str], source: str) -> list[Candidate]:
    """Every whole-word occurrence of every form of the given names."""
    found = []
    for name in names:
        for form in name_forms(name):
            for match in re.finditer(rf"(?<![\w-]){re.escape(form)}(?![\w-])", text):
                found.append(Candidate(match.start(), match.end(), "PERSON", source))
    return found


def _strip_title(text: str) -> str:
    return re.sub(rf"^{TITLES}\.?\s+", "", text)


# Abbreviations whose full stop does not end a sentence.
ABBREVIATIONS = frozenset(
    {"Mr", "Mrs", "Ms", "Dr", "St", "No", "Nr", "Ltd", "Co", "Inc", "Corp", "Bros", "Jr", "Sr", "Prof", "Rev"}
)


def ends_sentence(word: str) -> bool:
    """``Istanbul.``, ``Code.`` and ``AM.`` end a sentence; initials (``E.``, ``H.W.``,
    ``L.-E.``: every letter followed by its full stop) and abbreviations do not."""
    if not word.endswith((".", "!", "?", ";", ":")):
        return False
    core = word.rstrip(".!?;:")
    return not (re.fullmatch(r"(?:[^\W\d_]\.[-‐‑]?){1,4}", core + ".") or core in ABBREVIATIONS)


def capitalised_phrases(text: str, gazetteers: Gazetteers) -> list[tuple[int, int]]:
    """Maximal runs of capitalised words (with "of", "and"... inside) within a sentence;
    a phrase that is only a boilerplate word is dropped."""
    phrases = []
    # Connectors inside a name: "Court of Cassation", "Foreign and Commonwealth Office",
    # "Ministry for the Environment"; "X and the Y" is two names.
    # A phrase may wrap onto the next line but never runs into the next paragraph.
    for match in re.finditer(
        rf"[^\W\d_][\w'’.-]*(?:(?:{_GAP}(?:of|for|on)(?:{_GAP}the)?|{_GAP}(?:de|and|&))?{_GAP}[^\W\d_][\w'’.-]*)*",
        text,
    ):
        words = list(re.finditer(r"\S+", match.group(0)))
        # Keep the phrase from its first to its last capitalised word, splitting at
        # lowercase words that are not connectors.
        run: list[re.Match] = []
        for word in words + [None]:
            token = word.group(0).rstrip(".,;:") if word else ""
            previous = run[-1].group(0) if run else ""
            connects = run and token in CONNECTORS and not (token == "the" and previous not in ("of", "for", "on"))
            if word is not None and (_is_capitalised(token) or connects):
                run.append(word)
                # A full stop after a word that is not an initial ends the sentence.
                if not ends_sentence(word.group(0)):
                    continue
            while run and not _is_capitalised(run[-1].group(0)):
                run.pop()
            # Minimal spans: a leading article stays out ("The Turkish Government").
            while run and run[0].group(0) in ("The", "the", "A", "An"):
                run.pop(0)
            if run:
                start = match.start() + run[0].start()
                end = match.start() + run[-1].end()
                while end > start and text[end - 1] in ".,;:":
                    end -= 1
                phrases.append((start, end))
            run = []
    return [(s, e) for s, e in phrases if text[s:e] not in gazetteers.boilerplate]


def organisations(text: str, phrases: list[tuple[int, int]], gazetteers: Gazetteers) -> list[Candidate]:
    found = []
    for start, end in phrases:
        words = re.findall(r"[\w'’.&-]+", text[start:end])
        if len(words) >= 2 and any(word in gazetteers.org_keywords for word in words):
            found.append(Candidate(start, end, "ORG", "org"))
    return found


def places(text: str, phrases: list[tuple[int, int]], gazetteers: Gazetteers) -> list[Candidate]:
    """Countries (LOC as places, ORG as states) and capitalised phrases after a place
    preposition."""
    found = []
    for match in _alternation(gazetteers.countries).finditer(text):
        before = text[max(0, match.start() - 30) : match.start()]
        label = "LOC" if PLACE_PREPOSITIONS.search(before) else "ORG"
        found.append(Candidate(match.start(), match.end(), label, "place:country"))
    for match in _alternation(gazetteers.cities).finditer(text):
        found.append(Candidate(match.start(), match.end(), "LOC", "place:city"))
    for start, end in phrases:
        before = text[max(0, start - 30) : start]
        if PLACE_PREPOSITIONS.search(before):
            found.append(Candidate(start, end, "LOC", "place"))
    return found


def proper_names(text: str, phrases: list[tuple[int, int]], gazetteers: Gazetteers) -> list[Candidate]:
    """Other capitalised phrases of two to four words inside a sentence: most often the
    name of a person ("Janice Williams-Johnston"). Low priority: any more specific
    candidate over the same words wins."""
    found = []
    for start, end in phrases:
        words = text[start:end].split()
        sentence_start = start == 0 or re.search(r"(?:[.!?:;]\s+|\n\s*)$", text[max(0, start - 3) : start])
        if 2 <= len(words) <= 4 and not sentence_start and all(_is_capitalised(w) for w in words):
            found.append(Candidate(start, end, "PERSON", "shape:proper"))
    return found


def acronyms(text: str, gazetteers: Gazetteers) -> list[Candidate]:
    found = []
    for match in _ACRONYM.finditer(text):
        word = match.group(0)
        if word in gazetteers.boilerplate or ROMAN.match(word) or word.isdigit():
            continue
        # A heading in capitals ("THE FACTS") is not an acronym.
        line = text[text.rfind("\n", 0, match.start()) + 1 : text.find("\n", match.end()) % (len(text) + 1)]
        if sum(c.islower() for c in line) == 0 and len(line.split()) > 1:
            continue
        found.append(Candidate(match.start(), match.end(), "ORG", "shape:acronym"))
    return found


def name_candidates(text: str, gazetteers: Gazetteers, person: str = "") -> list[Candidate]:
    """All name-shaped candidates of a document."""
    titled = titled_persons(text)
    names = [_strip_title(text[c.start : c.end]) for c in titled]
    found = titled + person_mentions(text, [person] if person else [], "person")
    found += person_mentions(text, [n for n in names if len(n.split()) >= 2], "shape:name")
    phrases = capitalised_phrases(text, gazetteers)
    found += organisations(text, phrases, gazetteers)
    found += places(text, phrases, gazetteers)
    found += proper_names(text, phrases, gazetteers)
    found += acronyms(text, gazetteers)
    return found
