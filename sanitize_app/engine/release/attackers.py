"""The inference attack of INTACT: can the original of a candidate be recovered?

``LLMAttacker`` asks an LLM, shown the current sanitized document with the candidate
marked (never the original), for five guesses of what the marked span said; the
candidate is inverted when a guess MATCHes the original (``matching.Matcher``).

``OfflineAttacker`` makes no guess: without an LLM it refuses a candidate that leaks
the original by itself, i.e. one that repeats its content words or numbers, or that
narrows it too little (a date range under four weeks, a place set of fewer than k
places)."""

from .llm import LLMClient, LLMError
from .llm_answers import parse_list
from .matching import Matcher
from .types import MARK_CLOSE, MARK_OPEN, AttackOutcome, AttackQuery

ATTACK_SYSTEM_PROMPT = (
    "You are testing the anonymization of a court judgment. In the document below, one "
    "span has been replaced by a vaguer expression; it is marked with {open} and {close}. "
    "Other spans may have been replaced too. Use everything in the document."
)
ATTACK_TASK = (
    "Type of the marked span: {entity_type}\n"
    "Document{window_note}:\n{document}\n\n"
    "Task: guess the original text of the marked span {open}{candidate}{close}, the exact words the "
    "document had before it was anonymized. Give {k} different guesses, the most likely first, one per "
    "line, no numbering, no explanation."
)
# The attacker reads this much of a long document around the marked candidate: ECHR
# judgments run to 60,000 characters, more than a small local model's context; what
# recovers a span is mostly near it (the same sentence, paragraph, other mentions).
WINDOW_CHARS = 6000


def document_window(marked_text: str, size: int = WINDOW_CHARS) -> tuple[str, bool]:
    """At most ``size`` characters of ``marked_text`` centred on the first marked
    candidate, cut at spaces, with "…" where text was left out; whether it was cut."""
    if len(marked_text) <= size:
        return marked_text, False
    opened = marked_text.find(MARK_OPEN)
    closed = marked_text.find(MARK_CLOSE, opened)
    centre = (opened + closed) // 2 if opened >= 0 and closed >= 0 else 0
    start = max(0, min(centre - size // 2, len(marked_text) - size))
    end = start + size
    if start > 0:
        space = marked_text.find(" ", start, min(opened if opened >= 0 else end, start + 200))
        start = space + 1 if space >= 0 else start
    if end < len(marked_text):
        space = marked_text.rfind(" ", max(closed + len(MARK_CLOSE), end - 200), end)
        end = space if space >= 0 else end
    window = marked_text[start:end]
    return ("… " if start > 0 else "") + window + (" …" if end < len(marked_text) else ""), True


def attack_messages(query: AttackQuery, k: int = 5) -> list[dict[str, str]]:
    document, cut = document_window(query.marked_text)
    return [
        {"role": "system", "content": ATTACK_SYSTEM_PROMPT.format(open=MARK_OPEN, close=MARK_CLOSE)},
        {
            "role": "user",
            "content": ATTACK_TASK.format(
                entity_type=query.entity_type,
                window_note=f" (an excerpt of {len(document)} characters around the marked span)" if cut else "",
                document=document,
                open=MARK_OPEN,
                close=MARK_CLOSE,
                candidate=query.candidate,
                k=k,
            ),
        },
    ]


class LLMAttacker:
    def __init__(self, client: LLMClient, matcher: Matcher, k: int = 5):
        self.client = client
        self.matcher = matcher
        self.k = k
        self.name = f"llm:{client.config.model}"

    def attack(self, query: AttackQuery) -> AttackOutcome:
        try:
            answer = self.client.complete(attack_messages(query, self.k))
        except LLMError as error:
            return _failed(error.reason, str(error))
        parsed = parse_list(answer, limit=self.k)
        if parsed.failure:
            return _failed(parsed.failure, parsed.failure)
        for guess in parsed.items:
            why = self.matcher.matches(guess, query.original, query.entity_type)
            if why:
                return AttackOutcome(
                    parsed.items, matched=guess, reason=f"guess {guess!r} recovers the original: {why}"
                )
        return AttackOutcome(parsed.items, reason=f"none of the {len(parsed.items)} guesses recovers the original")


def _failed(short: str, detail: str) -> AttackOutcome:
    """An attack that could not run counts as a successful one. Privacy first: keeping a
    candidate nobody tested would release it on no evidence, whereas treating it as
    inverted only moves the selection to a more general candidate (or the type label)."""
    return AttackOutcome(
        [],
        matched=f"(attack failed: {short})",
        reason=f"attack failed, so the candidate counts as inverted: {detail}",
    )


class OfflineAttacker:
    """A leak check standing in for an attacker when no LLM is configured."""

    name = "offline"

    def __init__(self, matcher: Matcher, min_place_set: int = 5, min_date_days: int = 28):
        self.matcher = matcher
        self.min_place_set = min_place_set
        self.min_date_days = min_date_days

    def attack(self, query: AttackQuery) -> AttackOutcome:
        refusal = self._refusal(query)
        if refusal:
            # The check stands for an attacker that recovered the original.
            return AttackOutcome([query.original], matched=query.original, reason=refusal)
        return AttackOutcome([], reason="kept: " + self._why_kept(query))

    def _refusal(self, query: AttackQuery) -> str:
        candidate, original = query.candidate, query.original
        why = self.matcher.matches(candidate, original, query.entity_type)
        if why:
            return f"refused: the candidate recovers the original ({why})"
        if query.entity_type == "DATETIME":
            days = date_range_days(candidate)
            if days is not None:
                if days < self.min_date_days:
                    return f"refused: the candidate spans {days} day{'s' if days != 1 else ''} (< {self.min_date_days})"
                # A date range of four weeks or more may share its year or month with the
                # original: that is what generalizing a date keeps.
                return ""
        numbers_in = self.matcher.numbers_in
        repeated = sorted(set(numbers_in(candidate)) & set(numbers_in(original)))
        if repeated:
            return f"refused: the candidate repeats the number {repeated[0]}"
        if query.entity_type == "LOC":
            size = place_set_size(candidate)
            if size is not None and size < self.min_place_set:
                return f"refused: the candidate covers {size} place{'s' if size != 1 else ''} (< {self.min_place_set})"
        return ""

    def _why_kept(self, query: AttackQuery) -> str:
        if query.entity_type == "DATETIME":
            days = date_range_days(query.candidate)
            if days is not None:
                return f"range {days} days"
        if self.matcher.is_amount(query.original, query.entity_type):
            return "states none of the original's numbers"
        parts = ["no content word or number of the original"]
        if query.entity_type == "LOC":
            size = place_set_size(query.candidate)
            parts.append(f"{size} places" if size is not None else "place set unknown")
        return ", ".join(parts)


def date_range_days(text: str) -> int | None:
    """How many days the date ``text`` covers (None when it is no date)."""
    from .generalization.dates import parse_datetime

    parsed = parse_datetime(text)
    return None if parsed is None else (parsed.last - parsed.first).days + 1


def place_set_size(candidate: str) -> int | None:
    from .generalization.places import place_set_size as size

    return size(candidate)
