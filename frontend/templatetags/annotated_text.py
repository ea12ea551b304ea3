"""Rendering a document's text with its mentions highlighted.

Built in Python rather than with a template loop: a long court case has thousands of
runs, and this keeps the page fast. Every mention carries its type as text (not only
as a colour) and its masking decision as a marker, for colour-blind readers."""

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

register = template.Library()

TYPE_LABELS = {
    "PERSON": "PER",
    "CODE": "CODE",
    "LOC": "LOC",
    "ORG": "ORG",
    "DEM": "DEM",
    "DATETIME": "DATE",
    "QUANTITY": "QTY",
    "MISC": "MISC",
}
DECISION_MARKS = {"DIRECT": "D", "QUASI": "Q", "NO_MASK": "", None: "?"}


def _mention_open(mention) -> str:
    decision = mention.identifier_type or "UNDECIDED"
    confidential = mention.confidential_status not in (None, "NOT_CONFIDENTIAL")
    title = f"{mention.entity_type} · {decision.replace('_', ' ')}"
    if confidential:
        title += f" · confidential: {mention.confidential_status}"
    classes = f"m t-{mention.entity_type} d-{decision}" + (" conf" if confidential else "") + f" o-{mention.origin}"
    return (
        f'<mark class="{classes}" id="m{mention.pk}" data-mention="{mention.pk}" data-entity="{mention.entity_id}" '
        f'title="{escape(title)}">'
    )


def _mention_tag(mention) -> str:
    mark = DECISION_MARKS.get(mention.identifier_type, "")
    label = TYPE_LABELS.get(mention.entity_type, mention.entity_type)
    return f'<span class="tag" aria-hidden="true">{label}{"·" + mark if mark else ""}</span>'


@register.simple_tag
def annotated_text(segments) -> str:
    parts = []
    for index, segment in enumerate(segments):
        text = escape(segment.text)
        mention = segment.mention
        if mention is None:
            parts.append(text)
            continue
        parts.append(_mention_open(mention) + text)
        following = segments[index + 1] if index + 1 < len(segments) else None
        # The tag goes after the last run of the mention.
        if following is None or following.mention is not mention:
            parts.append(_mention_tag(mention))
        parts.append("</mark>")
    return mark_safe("".join(parts))
