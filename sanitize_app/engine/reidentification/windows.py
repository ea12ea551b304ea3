"""Overlapping windows of a document's words (TRI): a classifier reads a window at a time
and a document's score is the sum of its windows' scores, so long documents are read
whole and every window is as long as the ones the attacker was trained on."""

from collections.abc import Sequence

WINDOW = 75  # words per window
STRIDE = 56  # words between window starts (an overlap of 19)


def window_bounds(length: int, size: int = WINDOW, stride: int = STRIDE) -> list[tuple[int, int]]:
    """[start, end) of each window over ``length`` words: windows of ``size`` words start
    every ``stride`` words, and the last one is aligned on the end, so every window is as
    long as the training windows (a short tail is read with the words before it, not as a
    window of a few words); a text of at most ``size`` words, an empty one included, is
    one window."""
    if size < 1 or not 1 <= stride <= size:
        raise ValueError(f"windows need 1 <= stride <= size (got size {size}, stride {stride})")
    if length <= size:
        return [(0, length)]
    starts = list(range(0, length - size, stride)) + [length - size]
    return [(start, start + size) for start in starts]


def windows(words: Sequence[str], size: int = WINDOW, stride: int = STRIDE) -> list[list[str]]:
    return [list(words[start:end]) for start, end in window_bounds(len(words), size, stride)]
