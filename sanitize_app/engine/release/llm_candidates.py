"""Candidates from an LLM: five generalizations of an entity, from specific to general,
that fit the sentence of its first mention (INTACT's candidate generation).

One call per entity: the prompt shows the sentence of the first mention with the span
marked ``[[...]]``, one worked example of the same entity type (user question, assistant
answer), and asks for five hypernyms one per line. The answer is read by
``llm_answers.parse_list``; a refusal, an unparsable answer or a failed call gives no
candidate and its reason (``last_failure``; ``generalize`` returns both), and the engine
falls back to the rules or the type label."""

import re
from dataclasses import dataclass, field

from .llm import LLMClient, LLMError
from .llm_answers import parse_list
from .types import CANDIDATES_PER_ENTITY, ENTITY_TYPES, MARK_CLOSE, MARK_OPEN, ReleaseEntity

SYSTEM_PROMPT = (
    "You help anonymize court judgments. You replace a marked span with more general "
    "expressions that stay true of it, so that a reader learns less about who or what it was."
)

TASK = (
    "Type: {entity_type} ({description})\n"
    "Sentence: {sentence}\n"
    "Task: generalize the span marked with double square brackets. Give 5 generalizations, from the most "
    "specific to the most general, each true of the span and fitting the sentence in its place. "
    "Do not repeat the span itself. One per line, no numbering, no explanation."
)

TYPE_DESCRIPTIONS = {
    "PERSON": "a person's name",
    "CODE": "a number or code identifying something",
    "LOC": "a place",
    "ORG": "an organisation, court or institution",
    "DEM": "a demographic attribute: nationality, ethnicity, occupation, religion, age group",
    "DATETIME": "a date or time",
    "QUANTITY": "a quantity, amount or duration",
    "MISC": "another identifying detail (an offence, an illness, an event, a document)",
}

# One worked example per type: (sentence with the span marked, five answers). Made up
# for this prompt, in the register of the ECHR judgments of TAB.
EXAMPLES = {
    "PERSON": (
        "The application was lodged by [[Mr John Smith]], a British national living in Leeds.",
        ["a British man", "a man living in England", "a British national", "a man", "a person"],
    ),
    "CODE": (
        "The applicant lodged application [[no. 41732/98]] with the Court on 4 May 1998.",
        ["an application number of 1998", "an application number", "a case number", "a reference number", "a code"],
    ),
    "LOC": (
        "He was taken to a police station in [[Diyarbakır]] and questioned.",
        [
            "a city in south-eastern Turkey",
            "a city in Turkey",
            "Turkey",
            "a country in Western Asia",
            "a place",
        ],
    ),
    "ORG": (
        "The case was examined by the [[Ankara State Security Court]] in 1996.",
        [
            "a state security court in Turkey",
            "a criminal court in Turkey",
            "a Turkish court",
            "a national court",
            "a court",
        ],
    ),
    "DEM": (
        "At the time, he worked as a [[police officer]] in a small town.",
        ["law enforcement officer", "public security official", "civil servant", "public employee", "worker"],
    ),
    "DATETIME": (
        "The hearing before the Regional Court took place on [[3 August 2003]].",
        ["August 2003", "summer 2003", "2003", "the early 2000s", "the 2000s"],
    ),
    "QUANTITY": (
        "The court ordered the State to pay him [[EUR 12,500]] for non-pecuniary damage.",
        [
            "about EUR 12,000",
            "between EUR 10,000 and EUR 15,000",
            "more than EUR 10,000",
            "a five-figure sum in euros",
            "a sum of money",
        ],
    ),
    "MISC": (
        "In 1999 he was convicted of [[aggravated robbery]] and sentenced to prison.",
        [
            "robbery",
            "a violent offence against property",
            "an offence against property",
            "a criminal offence",
            "an offence",
        ],
    ),
}

# A sentence ends at . ! ? followed by space and a capital, digit or quote, or at a line
# break; not after the abbreviations of legal English ("Mr. Smith", "no. 123", "Art. 6").
_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "no", "nos", "art", "arts", "para", "paras", "p", "pp", "v", "vs",
    "st", "co", "ltd", "inc", "jr", "sr", "e.g", "i.e", "cf", "etc", "op", "cit", "seq", "ibid", "mt", "ul",
}  # fmt: skip
_SENTENCE_END = re.compile(r"[.!?][\"'”’)]*\s+(?=[\"'“‘(]?[A-Z0-9])|\n")
SENTENCE_MAX_CHARS = 600  # either side of the span: a run-on "sentence" (a list, a table) is cut


def sentence_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence of ``text`` containing ``[start, end)`` (character offsets)."""
    left, right = max(0, start - SENTENCE_MAX_CHARS), min(len(text), end + SENTENCE_MAX_CHARS)
    sentence_start, sentence_end = left, right
    for boundary in _SENTENCE_END.finditer(text, left, right):
        if _after_abbreviation(text, boundary.start()):
            continue
        if boundary.end() <= start:
            sentence_start = boundary.end()
        elif boundary.start() >= end:
            sentence_end = boundary.start() + (0 if text[boundary.start()] == "\n" else 1)
            break
    return sentence_start, sentence_end


def _after_abbreviation(text: str, dot: int) -> bool:
    if text[dot] != ".":
        return False
    word = re.search(r"([\w.]+)$", text[max(0, dot - 12) : dot])
    return bool(word) and (word.group(1).lower() in _ABBREVIATIONS or len(word.group(1)) == 1)


def marked_sentence(text: str, start: int, end: int) -> str:
    sentence_start, sentence_end = sentence_around(text, start, end)
    sentence = text[sentence_start:start] + MARK_OPEN + text[start:end] + MARK_CLOSE + text[end:sentence_end]
    return " ".join(sentence.split())


def hypernym_messages(entity_type: str, sentence: str) -> list[dict[str, str]]:
    """The conversation for one span: system, the worked example of its type, the task."""
    if entity_type not in EXAMPLES:
        raise ValueError(f"unknown entity type {entity_type!r} (expected one of {', '.join(ENTITY_TYPES)})")
    example_sentence, example_answer = EXAMPLES[entity_type]

    def task(text: str) -> str:
        return TASK.format(
            entity_type=entity_type,
            description=TYPE_DESCRIPTIONS[entity_type],
            sentence=text,
        )

    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": task(example_sentence)},
        {"role": "assistant", "content": "\n".join(example_answer)},
        {"role": "user", "content": task(sentence)},
    ]


@dataclass
class CandidateResult:
    candidates: list[str] = field(default_factory=list)
    failure: str = ""  # why there is none ("" when there are)


class LLMCandidates:
    """A ``CandidateSource`` backed by an LLM client."""

    name = "llm"

    def __init__(self, client: LLMClient, limit: int = CANDIDATES_PER_ENTITY):
        self.client = client
        self.limit = limit
        self.last_failure = ""  # the reason of the last call that gave no candidate

    def candidates(self, entity: ReleaseEntity, text: str) -> list[str]:
        result = self.generalize(entity, text)
        self.last_failure = result.failure
        return result.candidates

    def generalize(self, entity: ReleaseEntity, text: str) -> CandidateResult:
        first = entity.first
        if not (0 <= first.start < first.end <= len(text)):
            raise ValueError(
                f"entity {entity.key}: first mention [{first.start}, {first.end}) is outside the text "
                f"({len(text)} characters)"
            )
        messages = hypernym_messages(entity.entity_type, marked_sentence(text, first.start, first.end))
        try:
            answer = self.client.complete(messages)
        except LLMError as error:
            return CandidateResult(failure=f"LLM call failed: {error}")
        parsed = parse_list(answer, limit=self.limit + 1)
        if parsed.failure:
            return CandidateResult(failure=parsed.failure)
        original = _normalized(text[first.start : first.end])
        # A candidate equal to the original is no generalization; one that merely
        # contains it is kept for the attacker to judge (it will invert it).
        kept = [c for c in parsed.items if _normalized(c) != original][: self.limit]
        if not kept:
            return CandidateResult(failure="every generalization repeats the original")
        return CandidateResult(kept)


def _normalized(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .,;:\"'")
