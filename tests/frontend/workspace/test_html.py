"""The workspace's text HTML: nested mentions stay two marks, each with its own tag,
and every run of text keeps its code-point offset (the expected HTML is written out)."""

from frontend.workspace.html import render_block, render_plain_text
from frontend.workspace.model import Block, LayerView, MentionView


def mention(id, entity, start, end, text, entity_type="CODE", identifier_type="NO_MASK", origin="manual"):
    confidential, edit_type, suggested = "NOT_CONFIDENTIAL", None, None
    return MentionView(
        id, entity, start, end, text, entity_type, identifier_type, confidential, origin, edit_type, suggested
    )


class Text:
    """The part of a LayerView that render_block reads."""

    def __init__(self, text):
        self.text = text


def render_line(text, mentions, index=0):
    """``text`` rendered as the one block (line) ``index`` of a document."""
    return render_block(Text(text), Block(index, 0, len(text)), mentions)


def test_a_nested_pair_is_an_outer_mark_around_the_inner_mark_with_both_tags():
    # 001-99929, annotator2: "53(1)" (QUASI) holds "1" (NO_MASK, the entity of "Article 1").
    text = "section 53(1) of"
    outer = mention(66, 43, 8, 13, "53(1)", identifier_type="QUASI")
    inner = mention(67, 19, 11, 12, "1")
    html = render_line(text, [outer, inner])
    assert html == (
        '<p class="blk" id="b0"><span data-o="0">section </span>'
        '<mark class="m t-CODE d-QUASI o-manual nest" data-m="66" data-e="43" data-tag="CODE·Q"'
        ' title="CODE, quasi, added by hand">'
        '<span data-o="8">53(</span>'
        '<mark class="m t-CODE d-NO_MASK o-manual" data-o="11" data-m="67" data-e="19" data-tag="CODE"'
        ' title="CODE, no mask, added by hand">1</mark>'
        '<span data-o="12">)</span></mark>'
        '<span data-o="13"> of</span></p>'
    )


def test_identical_spans_are_two_marks_one_inside_the_other():
    text = "m 13,208 sq. m,"
    first = mention(146, 78, 2, 14, "13,208 sq. m", "QUANTITY", "QUASI", "preannotation")
    second = mention(147, 78, 2, 14, "13,208 sq. m", "QUANTITY", "QUASI", "preannotation")
    html = render_line(text, [first, second])
    assert html == (
        '<p class="blk" id="b0"><span data-o="0">m </span>'
        '<mark class="m t-QUANTITY d-QUASI o-preannotation nest" data-m="146" data-e="78" data-tag="QTY·Q"'
        ' title="QUANTITY, quasi, pre-annotated">'
        '<mark class="m t-QUANTITY d-QUASI o-preannotation" data-o="2" data-m="147" data-e="78" data-tag="QTY·Q"'
        ' title="QUANTITY, quasi, pre-annotated">13,208 sq. m</mark></mark>'
        '<span data-o="14">,</span></p>'
    )


def test_a_mention_alone_stays_one_mark_holding_its_text_and_offset():
    text = "Mr Polat 👨 left"
    html = render_line(text, [mention(1, 2, 3, 8, "Polat", "PERSON", None)], index=3)
    assert html == (
        '<p class="blk" id="b3"><span data-o="0">Mr </span>'
        '<mark class="m t-PERSON d-UNDECIDED o-manual" data-o="3" data-m="1" data-e="2" data-tag="PER·?"'
        ' title="PERSON, undecided, added by hand">Polat</mark>'
        '<span data-o="8"> 👨 left</span></p>'
    )


def test_text_without_a_layer_keeps_its_lines_and_offsets_and_is_escaped():
    text = "A <b>case</b>\n\n👨 B"
    assert render_plain_text(text) == (
        '<p class="blk" id="b0"><span data-o="0">A &lt;b&gt;case&lt;/b&gt;</span></p>'
        '<p class="blk" id="b1"></p>'
        '<p class="blk" id="b2"><span data-o="15">👨 B</span></p>'
    )
    assert [(b.start, b.end) for b in LayerView.line_blocks(text)] == [(0, 13), (14, 14), (15, 18)]
