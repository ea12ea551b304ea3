"""Span arithmetic on Python code-point offsets (the TAB convention)."""

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
