"""The side-by-side view of one released document: the original and the sanitized text
cut into runs, each replaced span a run of its own in both columns, tied to the
decision (the entity) it belongs to.

The released spans are offsets into the original, in text order and never overlapping
(the engine's rendering keeps the earliest, longest mention of a nest). The sanitized
column is rebuilt from the original and those spans, so that each replacement's place
in it is known; the rebuilt text must be the one the release stored, otherwise the
spans do not describe it and the view says so rather than highlighting wrong words."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


class SpansDoNotFit(ValueError):
    """The stored spans cannot be laid out on this document (named in the message)."""


@dataclass(frozen=True)
class Replacement:
    number: int  # 1-based, in text order
    start: int  # into the original
    end: int
    sanitized_start: int  # into the sanitized text
    sanitized_end: int
    original: str
    replacement: str
    entity_type: str
    identifier_type: str
    reason: str
    decision: object | None = None  # the ReleaseDecision whose mentions include this span

    @property
    def popover_id(self) -> str:
        """One popover per decision (every mention of the entity opens it), else per span."""
        decision_pk = getattr(self.decision, "pk", None)
        return f"decision-{decision_pk}" if decision_pk is not None else f"replacement-{self.number}"


@dataclass(frozen=True)
class Run:
    text: str
    replacement: Replacement | None = None


@dataclass
class SideBySide:
    original: list[Run] = field(default_factory=list)
    sanitized: list[Run] = field(default_factory=list)
    replacements: list[Replacement] = field(default_factory=list)

    @property
    def orphans(self) -> list[Replacement]:
        """Replacements no decision explains: each gets a popover of its own."""
        return [r for r in self.replacements if r.decision is None]


def _decision_by_mention(decisions: Iterable) -> dict[tuple[int, int], object]:
    by_mention = {}
    for decision in decisions:
        for start, end in decision.mentions:
            by_mention.setdefault((start, end), decision)
    return by_mention


def _checked(spans: Sequence[dict], text_length: int, doc_id: str) -> list[dict]:
    ordered = sorted(spans, key=lambda span: (span["start"], -span["end"]))
    previous = None
    for span in ordered:
        start, end = span["start"], span["end"]
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= text_length):
            raise SpansDoNotFit(
                f"Document {doc_id}: the released span [{start}, {end}] is not inside its text "
                f"of {text_length} characters."
            )
        if previous is not None and start < previous["end"]:
            raise SpansDoNotFit(
                f"Document {doc_id}: the released span [{start}, {end}] overlaps "
                f"[{previous['start']}, {previous['end']}]."
            )
        previous = span
    return ordered


def side_by_side(
    text: str, sanitized_text: str, spans: Sequence[dict], decisions: Iterable = (), *, doc_id: str = ""
) -> SideBySide:
    """Both columns of a released document. ``spans``: the release's
    ``{start, end, replacement, entity_type, identifier_type, reason}`` dicts;
    ``decisions``: objects with ``mentions`` ([[start, end], ...]) to tie spans to."""
    by_mention = _decision_by_mention(decisions)
    view = SideBySide()
    cursor, shift = 0, 0
    for number, span in enumerate(_checked(spans, len(text), doc_id), start=1):
        start, end, replacement = span["start"], span["end"], span.get("replacement", "")
        if cursor < start:
            view.original.append(Run(text[cursor:start]))
            view.sanitized.append(Run(text[cursor:start]))
        item = Replacement(
            number=number,
            start=start,
            end=end,
            sanitized_start=start + shift,
            sanitized_end=start + shift + len(replacement),
            original=text[start:end],
            replacement=replacement,
            entity_type=span.get("entity_type", ""),
            identifier_type=span.get("identifier_type", ""),
            reason=span.get("reason", ""),
            decision=by_mention.get((start, end)),
        )
        view.replacements.append(item)
        view.original.append(Run(item.original, item))
        view.sanitized.append(Run(replacement, item))
        shift += len(replacement) - (end - start)
        cursor = end
    if cursor < len(text):
        view.original.append(Run(text[cursor:]))
        view.sanitized.append(Run(text[cursor:]))
    rebuilt = "".join(run.text for run in view.sanitized)
    if rebuilt != sanitized_text:
        differs = next(
            (i for i, (a, b) in enumerate(zip(rebuilt, sanitized_text, strict=False)) if a != b),
            min(len(rebuilt), len(sanitized_text)),
        )
        raise SpansDoNotFit(
            f"Document {doc_id}: its released spans do not rebuild the stored sanitized text "
            f"(they differ from character {differs} of the sanitized text)."
        )
    return view


@dataclass(frozen=True)
class Attempt:
    """One candidate of a decision's trail, as the popover lists it."""

    candidate: str
    tried: bool
    guesses: tuple[str, ...] = ()
    matched: str = ""
    reason: str = ""
    kept: bool = False


def decision_trail(decision) -> list[Attempt]:
    """The candidates in the order they were tried, each with the attacker's guesses and
    whether one matched; then those never tried (a candidate before them survived). The
    kept candidate is the first tried one no guess matched that is the replacement."""
    attempts, seen = [], set()
    for trial in decision.trials or []:
        candidate = trial.get("candidate", "")
        matched = trial.get("matched", "")
        kept = not matched and candidate == decision.replacement
        attempts.append(
            Attempt(candidate, True, tuple(trial.get("guesses") or ()), matched, trial.get("reason", ""), kept)
        )
        seen.add(candidate)
    for candidate in decision.candidates or []:
        if candidate not in seen:
            attempts.append(Attempt(candidate, False, kept=not attempts and candidate == decision.replacement))
            seen.add(candidate)
    return attempts
