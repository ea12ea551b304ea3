"""Span arithmetic on Python code-point offsets (the TAB convention)."""

import unicodedata

from .errors import InvalidAnnotation


def trimmed_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Check ``start``/``end`` against ``text`` and drop whitespace at both edges.

    Raises ``InvalidAnnotation`` naming the offending field when the span is outside the
    text, inverted, or only whitespace."""
    for name, value in (("start_offset", start), ("end_offset", end)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidAnnotation(f"{name} must be an integer, got {value!r}.", field=name)
    if start < 0:
        raise InvalidAnnotation(f"start_offset {start} is negative.", field="start_offset")
    if end > len(text):
        raise InvalidAnnotation(
            f"end_offset {end} is past the end of the text ({len(text)} characters).", field="end_offset"
        )
    if start >= end:
        raise InvalidAnnotation(f"start_offset {start} must be smaller than end_offset {end}.", field="start_offset")
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start == end:
        raise InvalidAnnotation("The span contains only whitespace.", field="start_offset")
    return start, end


# Characters that belong to the grapheme before them: combining marks (é written as
# e + U+0301), the zero-width joiner and variation selectors of emoji sequences, and
# emoji skin-tone modifiers. A span never starts or ends between them and their base.
def _extends_grapheme(char: str) -> bool:
    code = ord(char)
    return (
        unicodedata.category(char).startswith("M")
        or code == 0x200D
        or 0xFE00 <= code <= 0xFE0F
        or 0x1F3FB <= code <= 0x1F3FF
        or 0xE0020 <= code <= 0xE007F  # tag characters (flag sequences)
    )


def _is_word(char: str) -> bool:
    return char.isalnum() or _extends_grapheme(char)


_LEADING_JUNK = set(",;:!?\"“”‘’'«»")
_TRAILING_JUNK = set(",;:!?\"“”‘’'«»")
_PAIRS = {")": "(", "]": "["}


def _grapheme_start(text: str, index: int) -> int:
    while 0 < index < len(text) and (_extends_grapheme(text[index]) or text[index - 1] == "\u200d"):
        index -= 1
    return index


def _grapheme_end(text: str, index: int) -> int:
    while index < len(text) and (_extends_grapheme(text[index]) or text[index - 1] == "\u200d"):
        index += 1
    return index


def _keeps_final_dot(span: str) -> bool:
    """'M.', 'K. R.', 'Ltd.', 'sq. m.' keep their dot; 'widows.' loses it."""
    word = span[:-1].rsplit(None, 1)[-1] if span[:-1].strip() else ""
    letters = word.split(".")[-1]
    return 0 < len(letters) <= 3 and letters.isalpha()


def _wrapped_in_pair(span: str) -> bool:
    """True when the first character opens a bracket closed by the last one."""
    if len(span) < 2 or span[-1] not in _PAIRS or span[0] != _PAIRS[span[-1]]:
        return False
    depth = 0
    for index, char in enumerate(span):
        depth += (char == span[0]) - (char == span[-1])
        if depth == 0 and index < len(span) - 1:
            return False
    return True


def snap_to_tokens(text: str, start: int, end: int) -> tuple[int, int]:
    """Turn a rough selection into a clean span: whole words (a selection that starts or
    ends inside a word takes the whole word), whole graphemes, no whitespace or stray
    punctuation at the edges (quotes, commas, an unmatched bracket, a sentence-final
    dot). Raises ``InvalidAnnotation`` when nothing is left."""
    start, end = trimmed_span(text, start, end)
    while start > 0 and _is_word(text[start - 1]) and _is_word(text[start]):
        start -= 1
    while end < len(text) and _is_word(text[end - 1]) and _is_word(text[end]):
        end += 1
    start, end = _grapheme_start(text, start), _grapheme_end(text, end)
    changed = True
    while changed and start < end:
        changed = False
        if text[start].isspace() or text[start] in _LEADING_JUNK:
            start, changed = start + 1, True
            continue
        last = text[end - 1]
        span = text[start:end]
        if last.isspace() or last in _TRAILING_JUNK:
            end, changed = end - 1, True
        elif _wrapped_in_pair(span):  # "(TRY)" -> "TRY", but not "(a) and (b)"
            start, end, changed = start + 1, end - 1, True
        elif last in _PAIRS and _PAIRS[last] not in span:
            end, changed = end - 1, True
        elif text[start] in "([" and {"(": ")", "[": "]"}[text[start]] not in span:
            start, changed = start + 1, True
        elif last == "." and not _keeps_final_dot(span):
            end, changed = end - 1, True
    if start >= end:
        raise InvalidAnnotation("The selection contains no word to annotate.", field="start_offset")
    return start, end


# Honorifics that belong inside a PERSON span (TAB guidelines: "Mr Gestur Jónsson").
TITLES = ("Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "Prof", "Professor", "Sir", "Dame", "Lord", "Lady", "Judge")


def with_title(text: str, start: int) -> int:
    """Move ``start`` back over an honorific right before it ("Mr ", "Dr. ")."""
    before = text[max(0, start - 12) : start]
    for title in TITLES:
        for form in (f"{title} ", f"{title}. "):
            if before.endswith(form):
                candidate = start - len(form)
                if candidate == 0 or not text[candidate - 1].isalnum():
                    return candidate
    return start
