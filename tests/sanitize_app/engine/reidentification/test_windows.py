"""Windows of a document's words: every window as long as the training windows, the last
one aligned on the end; a short text is one window."""

import pytest

from sanitize_app.engine.reidentification.windows import window_bounds, windows


def test_a_text_no_longer_than_a_window_is_one_window():
    assert window_bounds(0) == [(0, 0)]
    assert window_bounds(40) == [(0, 40)]
    assert window_bounds(75) == [(0, 75)]


def test_windows_start_every_stride_and_the_last_one_ends_with_the_text():
    # 200 words: starts 0, 56, 112 (112 + 75 = 187 < 200), then one window ending at 200.
    assert window_bounds(200) == [(0, 75), (56, 131), (112, 187), (125, 200)]
    # 131 words: the second window, starting at 56, already ends at 131.
    assert window_bounds(131) == [(0, 75), (56, 131)]
    # 100 words: the tail is read with the 50 words before it.
    assert window_bounds(100) == [(0, 75), (25, 100)]


def test_windows_of_words_with_a_small_size_and_stride():
    words = list("abcdefg")
    assert windows(words, size=3, stride=2) == [["a", "b", "c"], ["c", "d", "e"], ["e", "f", "g"]]
    assert windows(words, size=4, stride=4) == [["a", "b", "c", "d"], ["d", "e", "f", "g"]]


def test_a_stride_longer_than_the_window_is_refused():
    with pytest.raises(ValueError, match="stride"):
        window_bounds(10, size=3, stride=4)
