"""What every attacker shares: the people of a background in a fixed order, and the
labelled windows it trains on (each background text and its augmented copy, cut into
windows, each window labelled with the text's person)."""

from collections.abc import Sequence

from ..types import BackgroundText
from ..windows import STRIDE, WINDOW, window_bounds, windows


def people_of(background: Sequence[BackgroundText]) -> list[str]:
    """The individuals of a background, in the order they first appear (one class each)."""
    people = list(dict.fromkeys(text.person for text in background))
    if len(people) < 2:
        raise ValueError(f"a background needs documents about at least 2 people to tell them apart (got {len(people)})")
    return people


def training_windows(
    background: Sequence[BackgroundText],
    people: list[str],
    *,
    size: int = WINDOW,
    stride: int = STRIDE,
    augment: bool = True,
) -> tuple[list[list[str]], list[int]]:
    """(windows, person index of each): the words of every background text and, when
    ``augment``, of its copy with entities replaced by labels (TRI trains on both so that
    the attacker learns to read masked text)."""
    index = {person: i for i, person in enumerate(people)}
    texts: list[list[str]] = []
    labels: list[int] = []
    for text in background:
        for words in (text.words, text.augmented if augment else ()):
            if not words:
                continue
            cut = windows(words, size, stride)
            texts.extend(cut)
            labels.extend([index[text.person]] * len(cut))
    silent = [person for i, person in enumerate(people) if i not in set(labels)]
    if silent:
        raise ValueError(f"no words left after pretreatment in the background of: {', '.join(silent[:5])}")
    return texts, labels


def document_windows(
    documents: Sequence[Sequence[str]], size: int = WINDOW, stride: int = STRIDE
) -> tuple[list[list[str]], list[int]]:
    """Every window of every document, and the document each belongs to."""
    texts: list[list[str]] = []
    owners: list[int] = []
    for number, words in enumerate(documents):
        for start, end in window_bounds(len(words), size, stride):
            texts.append(list(words[start:end]))
            owners.append(number)
    return texts, owners
