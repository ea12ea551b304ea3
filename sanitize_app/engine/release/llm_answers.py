"""Reading a list out of an LLM's answer (hypernyms of a span, guesses of an original).

Models rarely answer with bare lines: they number them ("1.", "1)"), bullet them ("-",
"*"), quote them, end them with a full stop, open with "Here are five ...:", wrap them
in a code fence or answer with a JSON array. All of these are read. A refusal ("I
cannot", "I'm sorry", "As an AI") or an answer with no usable line is a failure with its
reason, never a list: the caller must not mistake an apology for a candidate."""

import json
import re
from dataclasses import dataclass, field

# A refusal opens the answer; a hypernym list never starts like this.
_REFUSAL = re.compile(
    r"^\W*(i\s+cannot|i\s+can['’]?t|i\s+can\s+not|i['’]m\s+sorry|i\s+am\s+sorry|sorry,|as\s+an\s+ai|"
    r"i['’]m\s+(?:not\s+able|unable)|i\s+am\s+(?:not\s+able|unable)|i\s+won['’]?t|i\s+will\s+not|"
    r"i\s+must\s+decline|unfortunately,?\s+i)",
    re.IGNORECASE,
)
# An introduction or a closing remark rather than an item.
_PREAMBLE = re.compile(
    r"^(here\s+(?:are|is)|sure\b|certainly\b|of\s+course\b|okay\b|ok\b|these\s+are|the\s+following|"
    r"note\b|(?:five|5)\s+(?:generalizations|guesses|hypernyms))",
    re.IGNORECASE,
)
# "1." "1)" "(1)" "1:" "-" "*" "•" "#": a marker is followed by a space ("12.5 million" is an item).
_MARKER = re.compile(r"^\s*(?:\(?\d{1,2}[.):]|[-*•–—+]|#+)(?=\s)\s*")
_FENCE = re.compile(r"^```[\w-]*\s*$")
_QUOTES = "\"'“”‘’`«»"
# An item is a short phrase; a line of prose is commentary.
MAX_ITEM_WORDS = 12
MAX_ITEM_CHARS = 120


@dataclass
class ParsedList:
    items: list[str] = field(default_factory=list)
    failure: str = ""  # why there is no list ("" when there is one)


def parse_list(answer: str | None, limit: int = 5) -> ParsedList:
    """The items of ``answer`` in order, without markers, quotes, trailing punctuation
    or duplicates (case-insensitive), at most ``limit``."""
    text = (answer or "").strip()
    if not text:
        return ParsedList(failure="empty answer")
    first_line = text.splitlines()[0]
    if _REFUSAL.match(first_line):
        return ParsedList(failure=f"refusal: {_snippet(first_line)!r}")
    items = _json_items(text)
    if items is None:
        items = _line_items(text)
    items = _unique([clean for item in items if (clean := _clean(item)) and _is_phrase(clean)])
    if not items:
        return ParsedList(failure=f"unparsable answer (no list item): {_snippet(text)!r}")
    return ParsedList(items[:limit])


def _json_items(text: str) -> list[str] | None:
    """A JSON array of strings (possibly in a code fence), or an object holding one."""
    body = "\n".join(line for line in text.splitlines() if not _FENCE.match(line.strip())).strip()
    if not body.startswith(("[", "{")):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if isinstance(value, dict):
        value = next((v for v in value.values() if isinstance(v, list)), None)
    if not isinstance(value, list):
        return None
    return [str(v) for v in value if isinstance(v, str | int | float)]


def _line_items(text: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not _FENCE.match(line)]
    items = [line for line in lines if not _is_commentary(line)]
    if len(items) == 1 and not _MARKER.match(items[0]):
        # One line for a list of five: "Ankara; Turkey; Western Asia" or comma-separated.
        # A comma list is only read as such with three or more commas-separated parts
        # ("Paris, France" is one place).
        line = items[0]
        if ";" in line:
            return line.split(";")
        parts = line.split(",")
        if len(parts) >= 3:
            return parts
    return items


def _is_commentary(line: str) -> bool:
    stripped = _MARKER.sub("", line).strip()
    if _MARKER.match(line):
        return False  # a numbered or bulleted line is an item whatever it says
    return stripped.endswith(":") or bool(_PREAMBLE.match(stripped)) or bool(_REFUSAL.match(stripped))


def _clean(item: str) -> str:
    item = _MARKER.sub("", item.strip(), count=1).strip()
    item = item.replace("**", "").replace("__", "")
    # "Ankara — the capital" / "Ankara – capital city": the explanation goes.
    item = re.split(r"\s+[—–]\s+", item, maxsplit=1)[0]
    item = item.strip().strip(_QUOTES).strip()
    item = item.rstrip(".,;:!").strip().strip(_QUOTES).strip()
    return " ".join(item.split())


def _is_phrase(item: str) -> bool:
    return len(item) <= MAX_ITEM_CHARS and len(item.split()) <= MAX_ITEM_WORDS and not _REFUSAL.match(item)


def _unique(items: list[str]) -> list[str]:
    seen, unique = set(), []
    for item in items:
        if item.lower() not in seen:
            seen.add(item.lower())
            unique.append(item)
    return unique


def _snippet(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"
