"""What must be right before a layer is confirmed, and what deserves a second look.

Errors block confirmation: an entity without a masking decision, spans that cross each
other, a direct identifier left visible in some of its mentions, the name of the person
to protect left readable.
Warnings are confirmed past with an explicit acknowledgement: the same string decided
differently, an entity whose mentions disagree, a masked string that appears elsewhere
in the text without annotation (it would leak)."""

from collections import defaultdict
from dataclasses import dataclass, field

from ..enums import IdentifierType
from ..models import AnnotationLayer
from .occurrences import unannotated_occurrences, word_occurrences
from .overlaps import crossing_pairs

MASKED = {IdentifierType.DIRECT, IdentifierType.QUASI}
MAX_LISTED = 8


@dataclass
class Finding:
    code: str
    message: str
    mentions: list[int] = field(default_factory=list)  # mention ids to jump to
    offsets: list[int] = field(default_factory=list)  # text positions (for unannotated text)


@dataclass
class ConfirmationReport:
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors and not self.warnings


def _listing(items: list[str]) -> str:
    shown = ", ".join(items[:MAX_LISTED])
    return shown + (f" and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else "")


def confirmation_report(layer: AnnotationLayer) -> ConfirmationReport:
    text = layer.document.text
    mentions = list(
        layer.mentions.order_by("start_offset", "id").values(
            "id", "entity_id", "entity__tab_entity_id", "start_offset", "end_offset", "span_text", "identifier_type"
        )
    )
    by_entity = defaultdict(list)
    for mention in mentions:
        by_entity[mention["entity_id"]].append(mention)
    report = ConfirmationReport()
    _undecided(by_entity, report)
    _crossing(mentions, report)
    _mixed_entities(by_entity, report)
    _person_visible(layer, text, mentions, report)
    _same_string_decided_differently(mentions, report)
    _unannotated_masked_strings(layer, mentions, report)
    return report


def _undecided(by_entity, report) -> None:
    undecided = [ms for ms in by_entity.values() if any(m["identifier_type"] is None for m in ms)]
    if undecided:
        names = [f"“{ms[0]['span_text']}”" for ms in undecided]
        count = f"{len(undecided)} entities have" if len(undecided) > 1 else "1 entity has"
        report.errors.append(
            Finding(
                "undecided",
                f"{count} no masking decision yet: {_listing(names)}.",
                mentions=[ms[0]["id"] for ms in undecided],
            )
        )


def _crossing(mentions, report) -> None:
    """Crossing spans are refused when made in the workspace or the API; an import or an
    older layer may still hold some."""
    by_id = {m["id"]: m for m in mentions}
    pairs = crossing_pairs((m["start_offset"], m["end_offset"], m["id"]) for m in mentions)
    if pairs:
        names = [f"“{by_id[a]['span_text']}” and “{by_id[b]['span_text']}”" for a, b in pairs]
        report.errors.append(
            Finding(
                "crossing",
                f"{len(pairs)} pair(s) of spans cross each other: {_listing(names)}. Spans may nest but not cross: "
                "resize or delete one of each pair.",
                mentions=[ident for pair in pairs for ident in pair],
            )
        )


def _mixed_entities(by_entity, report) -> None:
    for mentions in by_entity.values():
        kinds = {m["identifier_type"] for m in mentions} - {None}
        if len(kinds) < 2:
            continue
        name = f"“{mentions[0]['span_text']}”"
        visible = [m["id"] for m in mentions if m["identifier_type"] == IdentifierType.NO_MASK]
        if IdentifierType.DIRECT in kinds and visible:
            report.errors.append(
                Finding(
                    "direct_visible",
                    f"Entity {name} is a direct identifier but {len(visible)} of its mentions are not masked.",
                    mentions=visible,
                )
            )
        else:
            report.warnings.append(
                Finding(
                    "mixed_entity",
                    f"The mentions of {name} have different decisions ({', '.join(sorted(kinds))}).",
                    mentions=[m["id"] for m in mentions],
                )
            )


def _person_visible(layer, text: str, mentions, report) -> None:
    person = layer.document.person_to_protect.strip()
    if not person:
        return
    masked = [(m["start_offset"], m["end_offset"]) for m in mentions if m["identifier_type"] in MASKED]
    readable = [
        start
        for start in word_occurrences(text, person)
        if not any(s <= start and start + len(person) <= e for s, e in masked)
    ]
    if readable:
        report.errors.append(
            Finding(
                "person_visible",
                f"The name of the person to protect, “{person}”, is readable at {len(readable)} place(s): "
                "mask it (DIRECT) or annotate it.",
                offsets=readable,
            )
        )


def _same_string_decided_differently(mentions, report) -> None:
    decisions = defaultdict(dict)
    for mention in mentions:
        if mention["identifier_type"] is not None:
            decisions[mention["span_text"].casefold()].setdefault(mention["identifier_type"], mention["id"])
    for key, kinds in decisions.items():
        if len(kinds) > 1 and (set(kinds) & MASKED) and IdentifierType.NO_MASK in kinds:
            sample = next(m["span_text"] for m in mentions if m["span_text"].casefold() == key)
            report.warnings.append(
                Finding(
                    "same_string",
                    f"“{sample}” is masked in one place and left readable in another.",
                    mentions=list(kinds.values()),
                )
            )


def _unannotated_masked_strings(layer, mentions, report) -> None:
    strings = {m["span_text"] for m in mentions if m["identifier_type"] in MASKED and len(m["span_text"]) > 2}
    loose = defaultdict(list)
    for start, _end, string in unannotated_occurrences(layer, strings):
        loose[string].append(start)
    for string in sorted(loose):
        report.warnings.append(
            Finding(
                "unannotated",
                f"“{string}” is masked but appears {len(loose[string])} more time(s) without annotation.",
                offsets=loose[string],
            )
        )
