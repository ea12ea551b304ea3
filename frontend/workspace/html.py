"""HTML of the workspace's text and entity list, built in Python.

A long court case has thousands of runs and hundreds of entities; string building is
an order of magnitude faster than a template loop, and the same functions render the
whole page and the pieces swapped in after each change.

Every run of text carries ``data-o``, its code-point offset in the document: the
browser turns a selection into TAB offsets from it, whatever UTF-16 does to emoji.
Type and decision are given as text (``data-tag``, shown by CSS, never selected) as
well as by colour.

A mention holding another one (nested spans: "doctor-patient" ⊃ "patient") is a
``<mark class="… nest">`` around the inner ``<mark>``; its own text sits in plain
``<span data-o>`` runs inside it. So every element with ``data-o`` holds text only (a
run), and every mention keeps a ``mark[data-m]`` of its own, with its own tag."""

from django.utils.html import escape

from ..text_segments import Piece, Segment, nest_segments, segment_text
from .model import Block, EntityView, LayerView, MentionView

TYPE_TAGS = {
    "PERSON": "PER",
    "CODE": "CODE",
    "LOC": "LOC",
    "ORG": "ORG",
    "DEM": "DEM",
    "DATETIME": "DATE",
    "QUANTITY": "QTY",
    "MISC": "MISC",
}
DECISION_LETTERS = {"DIRECT": "D", "QUASI": "Q", "NO_MASK": "", None: "?"}
SUGGESTION_LETTERS = {"DIRECT": "D", "QUASI": "Q", "NO_MASK": "N"}
DECISION_WORDS = {"DIRECT": "direct", "QUASI": "quasi", "NO_MASK": "no mask", None: "undecided"}


def mention_tag(mention: MentionView) -> str:
    letter = DECISION_LETTERS.get(mention.identifier_type, "")
    return TYPE_TAGS.get(mention.entity_type, mention.entity_type) + (f"·{letter}" if letter else "")


def _mark_open(mention: MentionView, start: int | None, tagged: bool) -> str:
    """The opening tag of a mention's mark: a run (``start`` is its offset) or, for
    ``start`` None, the outer mark of a nested pair (runs and marks inside it)."""
    decision = mention.identifier_type or "UNDECIDED"
    confidential = mention.confidential_status not in (None, "NOT_CONFIDENTIAL")
    classes = f"m t-{mention.entity_type} d-{decision} o-{mention.origin}" + (" conf" if confidential else "")
    title = f"{mention.entity_type}, {DECISION_WORDS.get(mention.identifier_type)}"
    if confidential:
        title += f", confidential: {mention.confidential_status}"
    title += ", pre-annotated" if mention.origin == "preannotation" else ", added by hand"
    tag = f' data-tag="{mention_tag(mention)}"' if tagged else ""
    if start is None:
        return f'<mark class="{classes} nest" data-m="{mention.id}" data-e="{mention.entity_id}"{tag} title="{title}">'
    return (
        f'<mark class="{classes}" data-o="{start}" data-m="{mention.id}" data-e="{mention.entity_id}"'
        f'{tag} title="{title}">'
    )


def _render_nodes(nodes: list[Segment | Piece], out: list[str]) -> None:
    for node in nodes:
        if isinstance(node, Segment):
            out.append(f'<span data-o="{node.start}">{escape(node.text)}</span>')
            continue
        leaf = node.leaf
        if leaf is not None:
            out.append(f"{_mark_open(node.mention, leaf.start, node.ends_mention)}{escape(leaf.text)}</mark>")
            continue
        out.append(_mark_open(node.mention, None, node.ends_mention))
        _render_nodes(node.children, out)
        out.append("</mark>")


def _block_html(text: str, block: Block, mentions: list[MentionView], *, oob: bool = False) -> str:
    runs: list[str] = []
    _render_nodes(nest_segments(segment_text(text, mentions, block.start, block.end)), runs)
    swap = ' hx-swap-oob="true"' if oob else ""
    return f'<p class="blk" id="b{block.index}"{swap}>{"".join(runs)}</p>'


def render_block(view: LayerView, block: Block, mentions: list[MentionView], *, oob: bool = False) -> str:
    return _block_html(view.text, block, mentions, oob=oob)


def render_plain_text(text: str) -> str:
    """A document's text with no layer: the same lines and runs, without marks."""
    return "".join(_block_html(text, block, []) for block in LayerView.line_blocks(text))


def render_blocks(view: LayerView, blocks: list[Block] | None = None, *, oob: bool = False) -> str:
    if blocks == []:
        return ""
    by_block = view.mentions_by_block(blocks)
    return "".join(
        render_block(view, block, by_block.get(block.index, []), oob=oob)
        for block in (view.blocks if blocks is None else blocks)
    )


def render_entity_row(entity: EntityView, *, oob: bool = False) -> str:
    first = entity.first
    decision = "mixed" if entity.mixed else (entity.identifier_type or "UNDECIDED")
    word = "mixed ⚠" if entity.mixed else DECISION_WORDS.get(entity.identifier_type)
    confidential = entity.confidential_status
    flags = (
        f' <span class="conf-flag">{escape(confidential.lower())}</span>'
        if confidential not in (None, "NOT_CONFIDENTIAL")
        else ""
    )
    state = "" if entity.decided else " undecided"
    suggested = entity.suggested if not entity.decided and not entity.mixed else None
    hint = (
        f' <span class="suggests" title="the engine suggests {DECISION_WORDS[suggested]}">'
        f"→ {SUGGESTION_LETTERS[suggested]}</span>"
        if suggested
        else ""
    )
    proposed = entity.suggested_confidential
    if proposed and confidential in (None, "NOT_CONFIDENTIAL"):
        hint += (
            f' <span class="suggests" title="the engine proposes confidential: {proposed.lower()}">'
            f"→ {proposed.lower()}</span>"
        )
    swap = ' hx-swap-oob="true"' if oob else ""
    return (
        f'<li id="ent-{entity.id}" class="ent{state}{" inconsistent" if entity.inconsistent else ""}"'
        f' data-e="{entity.id}" data-first="{first.id}"{swap}>'
        f'<button type="button" class="ent-btn" data-e="{entity.id}" data-m="{first.id}">'
        f'<span class="badge t-{first.entity_type}">{TYPE_TAGS.get(first.entity_type, first.entity_type)}</span>'
        f'<span class="ent-text">{escape(first.text)}</span>'
        f'<span class="ent-count" title="{len(entity.mentions)} mentions">×{len(entity.mentions)}</span>'
        f'<span class="dec dec-{decision}">{word}</span>{hint}{flags}</button></li>'
    )


def render_entity_list(view: LayerView, *, oob: bool = False) -> str:
    swap = ' hx-swap-oob="true"' if oob else ""
    rows = "".join(render_entity_row(entity) for entity in view.entities)
    return f'<ol id="entity-list" class="entity-list"{swap}>{rows}</ol>'


def render_progress(view: LayerView, *, oob: bool = False) -> str:
    total, done = len(view.entities), view.decided_count
    percent = round(100 * done / total) if total else 0
    swap = ' hx-swap-oob="true"' if oob else ""
    return (
        f'<span id="progress" class="progress"{swap} title="entities with a masking decision">'
        f'<progress class="bar" max="100" value="{percent}" aria-hidden="true"></progress>'
        f"{done} / {total} decided</span>"
    )


def render_status(layer, *, oob: bool = False) -> str:
    swap = ' hx-swap-oob="true"' if oob else ""
    label = escape(layer.get_status_display())
    return f'<span class="status status-{layer.status}" id="layer-status"{swap}>{label}</span>'
