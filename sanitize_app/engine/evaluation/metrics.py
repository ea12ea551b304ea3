"""The metrics themselves, computed as the official TAB evaluation script does.

- A mention (or token) is masked when every character is covered by the system's masked
  spans, ignoring function words, a few titles and punctuation (``token_filter``).
- ER_di / ER_qi: an entity counts as masked when every mention that itself needs masking
  is masked; micro-averaged over documents and annotators.
- Token recall: over the ``\\w+`` tokens of the mentions of entities to mask.
- Precision: each system token (``\\w+`` inside a masked span) is weighted; an
  annotator "has" the token when one of their masked mentions covers it fully; the
  denominator multiplies by the number of annotators of the document.
"""

import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .corpus import GoldCorpus, GoldDocument, GoldEntity
from .token_filter import CHARACTERS_TO_IGNORE, TokenFilter, WordListTokenFilter

Spans = list[tuple[int, int]]
Weighting = Callable[[str, Spans], list[float]]
_TOKEN = re.compile(r"\w+")


def uniform_weights(text: str, spans: Spans) -> list[float]:
    return [1.0] * len(spans)


def tokens_of(text: str, start: int, end: int) -> Spans:
    return [(start + m.start(), start + m.end()) for m in _TOKEN.finditer(text[start:end])]


@dataclass
class MissedEntity:
    doc_id: str
    annotator: str
    entity_id: str
    entity_type: str
    is_direct: bool
    mentions: list[tuple[int, int, str]]  # the unmasked mentions that needed masking


@dataclass
class EvaluationReport:
    ER_di: float
    ER_qi: float
    token_recall: float
    token_precision: float
    WP: float
    weighting: str
    token_filter: str
    documents: int
    direct_entities: int
    quasi_entities: int
    recall_by_type: dict[str, float] = field(default_factory=dict)
    false_negatives_by_type: dict[str, int] = field(default_factory=dict)
    missed: list[MissedEntity] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "ER_di": self.ER_di,
            "ER_qi": self.ER_qi,
            "token_recall": self.token_recall,
            "token_precision": self.token_precision,
            "WP": self.WP,
            "weighting": self.weighting,
            "token_filter": self.token_filter,
            "documents": self.documents,
            "direct_entities": self.direct_entities,
            "quasi_entities": self.quasi_entities,
            "recall_by_type": self.recall_by_type,
            "false_negatives_by_type": self.false_negatives_by_type,
        }


class _MaskedDocument:
    def __init__(self, gold: GoldDocument, spans: Iterable[tuple[int, int]], token_filter: TokenFilter):
        self.gold = gold
        self.spans = [tuple(span) for span in spans]
        self.offsets = {i for start, end in self.spans for i in range(start, end)}
        self.token_filter = token_filter

    def is_masked(self, start: int, end: int) -> bool:
        missing = set(range(start, end)) - self.offsets
        if missing:
            missing -= self.token_filter.ignorable(self.gold.text, start, end)
        return all(self.gold.text[i] in CHARACTERS_TO_IGNORE for i in missing)

    def entity_masked(self, entity: GoldEntity) -> bool:
        return all(
            self.is_masked(start, end) or not needs
            for (start, end), needs in zip(entity.mentions, entity.mention_masking, strict=True)
        )


def _ratio(hits: float, total: float) -> float:
    return hits / total if total else 0.0


def evaluate(
    corpus: GoldCorpus,
    masked: dict[str, Spans],
    *,
    token_filter: TokenFilter | None = None,
    weighting: Weighting | None = None,
    weighting_name: str = "uniform",
) -> EvaluationReport:
    """Evaluate ``masked`` ({doc_id: [(start, end), ...]}) against ``corpus``. As in the
    official script, only documents present in ``masked`` are evaluated."""
    token_filter = token_filter or WordListTokenFilter()
    unknown = sorted(set(masked) - set(corpus.documents))
    if unknown:
        raise KeyError(f"masked output names documents not in the gold corpus: {', '.join(unknown[:5])}")
    counts = defaultdict(float)
    by_type = defaultdict(lambda: [0, 0])  # type -> [masked tokens, tokens]
    missed: list[MissedEntity] = []
    for doc_id, spans in masked.items():
        document = _MaskedDocument(corpus.documents[doc_id], spans, token_filter)
        _count_recall(document, counts, by_type, missed)
        _count_precision(document, counts, weighting or uniform_weights)
    return EvaluationReport(
        ER_di=_ratio(counts["direct_masked"], counts["direct"]),
        ER_qi=_ratio(counts["quasi_masked"], counts["quasi"]),
        token_recall=_ratio(counts["tokens_masked"], counts["tokens"]),
        token_precision=_ratio(counts["uniform_tp"], counts["uniform_all"]),
        WP=_ratio(counts["weighted_tp"], counts["weighted_all"]),
        weighting=weighting_name if weighting else "uniform",
        token_filter=token_filter.name,
        documents=len(masked),
        direct_entities=int(counts["direct"]),
        quasi_entities=int(counts["quasi"]),
        recall_by_type={t: _ratio(hit, total) for t, (hit, total) in sorted(by_type.items())},
        false_negatives_by_type={t: total - hit for t, (hit, total) in sorted(by_type.items())},
        missed=missed,
    )


def _count_recall(document: _MaskedDocument, counts, by_type, missed: list[MissedEntity]) -> None:
    gold = document.gold
    for entity in gold.entities_to_mask():
        kind = "direct" if entity.is_direct else "quasi"
        counts[kind] += 1
        unmasked = [
            (start, end, gold.text[start:end])
            for (start, end), needs in zip(entity.mentions, entity.mention_masking, strict=True)
            if needs and not document.is_masked(start, end)
        ]
        if not unmasked:
            counts[f"{kind}_masked"] += 1
        else:
            missed.append(
                MissedEntity(
                    gold.doc_id, entity.annotator, entity.entity_id, entity.entity_type, entity.is_direct, unmasked
                )
            )
        for start, end in entity.mentions:
            for token_start, token_end in tokens_of(gold.text, start, end):
                hit = document.is_masked(token_start, token_end)
                counts["tokens"] += 1
                counts["tokens_masked"] += hit
                by_type[entity.entity_type][1] += 1
                by_type[entity.entity_type][0] += hit


class _Coverage:
    """Which annotators cover a token with one of their masked mentions: per annotator,
    mentions sorted by start with the running maximum of their ends."""

    def __init__(self, document: GoldDocument):
        per_annotator = defaultdict(list)
        for entity in document.entities:
            for (start, end), needs in zip(entity.mentions, entity.mention_masking, strict=True):
                if entity.need_masking and needs:
                    per_annotator[entity.annotator].append((start, end))
        self.tables = []
        for annotator, spans in per_annotator.items():
            spans.sort()
            reach, best = [], -1
            for _, end in spans:
                best = max(best, end)
                reach.append(best)
            self.tables.append((annotator, [start for start, _ in spans], reach))

    def annotators(self, start: int, end: int) -> int:
        count = 0
        for _, starts, reach in self.tables:
            index = bisect_right(starts, start) - 1
            if index >= 0 and reach[index] >= end:
                count += 1
        return count


def _count_precision(document: _MaskedDocument, counts, weighting: Weighting) -> None:
    gold = document.gold
    system_tokens = [token for start, end in document.spans for token in tokens_of(gold.text, start, end)]
    if not system_tokens:
        return
    annotator_count = len(gold.annotators)
    coverage = _Coverage(gold)
    covered = [coverage.annotators(start, end) for start, end in system_tokens]
    for prefix, weights in (
        ("uniform", uniform_weights(gold.text, system_tokens)),
        ("weighted", weighting(gold.text, system_tokens)),
    ):
        for hits, weight in zip(covered, weights, strict=True):
            counts[f"{prefix}_tp"] += hits * weight
            counts[f"{prefix}_all"] += annotator_count * weight
