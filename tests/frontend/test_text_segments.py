"""Cutting the text into runs, and nesting the runs into one piece per mention, so
that a mention holding another stays an element of its own around it."""

from frontend.text_segments import Piece, Segment, nest_segments, segment_text

# The real nested pair of TAB (001-99929, annotator2): CODE "53(1)" holds CODE "1".
TEXT = "under section 53(1) of the Act"


class Span:
    def __init__(self, name, start, end):
        self.name, self.start_offset, self.end_offset = name, start, end

    def __repr__(self):
        return self.name


def shape(nodes):
    """The tree as plain values: ("text", start, text) or (mention, start, end, children)."""
    return [
        ("text", node.start, node.text)
        if isinstance(node, Segment)
        else (node.mention.name, node.start, node.end, shape(node.children))
        for node in nodes
    ]


def test_a_nested_mention_is_a_piece_inside_the_outer_piece_with_the_outer_text_around_it():
    outer, inner = Span("53(1)", 14, 19), Span("1", 17, 18)
    tree = nest_segments(segment_text(TEXT, [inner, outer]))
    assert shape(tree) == [
        ("text", 0, "under section "),
        ("53(1)", 14, 19, [("text", 14, "53("), ("1", 17, 18, [("text", 17, "1")]), ("text", 18, ")")]),
        ("text", 19, " of the Act"),
    ]
    assert tree[1].ends_mention and tree[1].children[1].ends_mention
    assert tree[1].leaf is None and tree[1].children[1].leaf.text == "1"


def test_an_inner_mention_ending_with_the_outer_one_is_its_last_child():
    text = "neither a member of the Church of Sweden nor"
    assert text[24:40] == "Church of Sweden"
    outer, inner = Span("outer", 0, 40), Span("church", 24, 40)
    assert shape(nest_segments(segment_text(text, [outer, inner]))) == [
        ("outer", 0, 40, [("text", 0, "neither a member of the "), ("church", 24, 40, [("text", 24, text[24:40])])]),
        ("text", 40, " nor"),
    ]


def test_identical_spans_nest_in_the_order_given_and_the_outer_holds_only_the_inner():
    first, second = Span("em146", 4, 16), Span("em147", 4, 16)
    tree = nest_segments(segment_text("was 13,208 sq. m, by", [first, second]))
    assert shape(tree) == [
        ("text", 0, "was "),
        ("em146", 4, 16, [("em147", 4, 16, [("text", 4, "13,208 sq. m")])]),
        ("text", 16, ", by"),
    ]


def test_a_crossing_mention_is_cut_where_the_other_closes_and_only_its_last_piece_ends_it():
    left, right = Span("left", 0, 6), Span("right", 3, 9)
    tree = nest_segments(segment_text("abcdefghij", [left, right]))
    assert shape(tree) == [
        ("left", 0, 6, [("text", 0, "abc"), ("right", 3, 6, [("text", 3, "def")])]),
        ("right", 6, 9, [("text", 6, "ghi")]),
        ("text", 9, "j"),
    ]
    cut, rest = tree[0].children[1], tree[1]
    assert (cut.ends_mention, rest.ends_mention, tree[0].ends_mention) == (False, True, True)


def test_a_mention_over_a_line_break_ends_only_in_the_line_where_it_ends():
    mention = Span("two lines", 2, 8)  # "cd\nefg"
    first_line = nest_segments(segment_text("abcd\nefgh", [mention], 0, 4))
    second_line = nest_segments(segment_text("abcd\nefgh", [mention], 5, 9))
    assert shape(first_line) == [("text", 0, "ab"), ("two lines", 2, 4, [("text", 2, "cd")])]
    assert shape(second_line) == [("two lines", 5, 8, [("text", 5, "efg")]), ("text", 8, "h")]
    assert isinstance(first_line[1], Piece)
    assert (first_line[1].ends_mention, second_line[0].ends_mention) == (False, True)


def test_text_without_mentions_is_one_plain_run_per_range():
    assert shape(nest_segments(segment_text("plain text", []))) == [("text", 0, "plain text")]
    assert nest_segments(segment_text("", [])) == []
