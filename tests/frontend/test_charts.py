import re

from frontend.charts import PALETTE, Segment, bar_chart, stacked_bar_chart


def _widths(svg: str) -> list[float]:
    return [float(w) for w in re.findall(r'<rect x="[\d.]+" y="\d+" width="([\d.]+)" height', svg)]


def test_bars_are_scaled_to_the_largest_value():
    svg = bar_chart([("PERSON", 10), ("ORG", 5), ("LOC", 0)], title="Missed", width=520)
    # plot width = 520 - 120 (labels) - 56 (values) = 344; zero-length bars are not drawn
    assert _widths(svg) == [344.0, 172.0]
    assert 'aria-label="Missed"' in svg
    assert ">0</text>" in svg  # the value of the empty row is still printed


def test_stacked_segments_follow_each_other_and_have_a_legend():
    svg = stacked_bar_chart(
        [("alice", [Segment("kept", 3, PALETTE[0]), Segment("corrected", 1, PALETTE[1])])], title="Edits"
    )
    assert _widths(svg)[-2:] == [258.0, 86.0]
    assert 'x="378.0"' in svg  # the second segment starts where the first ends (120 + 258)
    assert ">kept</text>" in svg and ">corrected</text>" in svg


def test_labels_are_escaped():
    svg = bar_chart([("<script>", 1)], title="a & b")
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg and "a &amp; b" in svg


def test_no_rows_gives_no_chart():
    assert stacked_bar_chart([], title="nothing") == ""
