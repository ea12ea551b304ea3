"""Features of an entity for the masking classifiers: its type, length, information
content, position, frequency, mention count, whether it shares a word with the protected
person's name, the words around it, and (when a masked LM is there) the aggregated
log-probabilities of its subwords."""

import re
import zlib

from .context import DocumentContext, EntityView

_WORD = re.compile(r"\w+")


def _context_words(text: str, start: int, end: int) -> tuple[str, str]:
    left = _WORD.findall(text[max(0, start - 40) : start])
    right = _WORD.findall(text[end : end + 40])
    return (left[-1].lower() if left else "^"), (right[0].lower() if right else "$")


def entity_features(
    context: DocumentContext,
    entity: EntityView,
    *,
    information_content: float = 0.0,
    lm_aggregates: list[float] | None = None,
) -> dict[str, float]:
    text = context.text
    start, end = entity.mentions[0]
    span = text[start:end]
    words = _WORD.findall(span)
    person_words = {w.lower() for w in _WORD.findall(context.person) if len(w) > 1}
    left, right = _context_words(text, start, end)
    features = {
        f"type={entity.label}": 1.0,
        "tokens": float(len(words)),
        "characters": float(len(span)),
        "mentions": float(len(entity.mentions)),
        "position": start / max(1, len(text)),
        "information_content": information_content,
        "person_overlap": float(bool(person_words & {w.lower() for w in words})),
        "protected": float(entity.protected),
        "digits": sum(c.isdigit() for c in span) / max(1, len(span)),
        "capitalised": sum(w[:1].isupper() for w in words) / max(1, len(words)),
        f"left={left}": 1.0,
        f"right={right}": 1.0,
    }
    if lm_aggregates is not None:
        for name, value in zip(("lm_min", "lm_max", "lm_mean", "lm_median", "lm_sum"), lm_aggregates, strict=True):
            features[name] = value
    return features


def ngram_representation(span: str, buckets: int = 64) -> dict[str, float]:
    """A text representation without any model: hashed character trigrams of the span
    (stable across processes: crc32, not Python's salted hash)."""
    padded = f"  {span.lower()}  "
    counts: dict[str, float] = {}
    for i in range(len(padded) - 2):
        key = f"ng{zlib.crc32(padded[i : i + 3].encode()) % buckets}"
        counts[key] = counts.get(key, 0.0) + 1.0
    total = sum(counts.values()) or 1.0
    return {key: value / total for key, value in counts.items()}
