"""Inter-annotator agreement on documents annotated by several people (the TAB paper's
Table 5, Figure 6 and Table 10).

Units and labels. For one attribute (entity type, identifier type or confidential
status) and one document with n >= 2 layers, every annotator gives each unit a label:
the attribute of their mention on the unit, or ``O`` when they have no mention there.

- per span, exact match: a unit is a distinct (start, end) annotated by somebody; an
  annotator's label comes from a mention with exactly that span;
- per span, partial match: a unit is a group of overlapping spans (connected through
  overlaps, across annotators); an annotator's label comes from their first mention in
  the group;
- per character: a unit is a character covered by somebody's mention; an annotator's
  label comes from the mention covering it.

Coefficients, over all units of all documents:
- observed agreement: the mean, over units, of the share of agreeing rater pairs;
- Fleiss' kappa, in its form for a varying number of raters per unit (P-bar is the
  observed agreement, chance agreement from the pooled label proportions);
- Krippendorff's alpha for nominal data (coincidence matrix; units with one label
  are not pairable and are left out).
"""

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

NONE = "O"
ATTRIBUTES = ("entity_type", "identifier_type", "confidential_status")
Unit = Sequence[str | None]  # one label per rater; None = this rater did not rate the unit


@dataclass
class Coefficients:
    observed: float
    fleiss_kappa: float
    krippendorff_alpha: float
    units: int


def _pairable(units: Iterable[Unit]) -> list[list[str]]:
    return [labels for labels in ([x for x in unit if x is not None] for unit in units) if len(labels) >= 2]


def observed_agreement(units: Iterable[Unit]) -> float:
    rated = _pairable(units)
    if not rated:
        return 0.0
    return sum(_unit_agreement(labels) for labels in rated) / len(rated)


def _unit_agreement(labels: list[str]) -> float:
    n = len(labels)
    return sum(c * (c - 1) for c in Counter(labels).values()) / (n * (n - 1))


def fleiss_kappa(units: Iterable[Unit]) -> float:
    rated = _pairable(units)
    if not rated:
        return 0.0
    observed = sum(_unit_agreement(labels) for labels in rated) / len(rated)
    pooled = Counter(label for labels in rated for label in labels)
    total = sum(pooled.values())
    chance = sum((count / total) ** 2 for count in pooled.values())
    return 1.0 if chance == 1 else (observed - chance) / (1 - chance)


def krippendorff_alpha(units: Iterable[Unit]) -> float:
    """Nominal alpha: 1 - D_o / D_e from the coincidence matrix."""
    coincidences: dict[tuple[str, str], float] = defaultdict(float)
    for labels in _pairable(units):
        m = len(labels)
        for i, first in enumerate(labels):
            for j, second in enumerate(labels):
                if i != j:
                    coincidences[(first, second)] += 1 / (m - 1)
    totals: dict[str, float] = defaultdict(float)
    for (first, _), value in coincidences.items():
        totals[first] += value
    n = sum(totals.values())
    if n <= 1:
        return 0.0
    disagreement = sum(value for (a, b), value in coincidences.items() if a != b) / n
    expected = sum(totals[a] * totals[b] for a in totals for b in totals if a != b) / (n * (n - 1))
    return 1.0 if expected == 0 else 1 - disagreement / expected


def coefficients(units: list[Unit]) -> Coefficients:
    return Coefficients(
        observed_agreement(units), fleiss_kappa(units), krippendorff_alpha(units), len(_pairable(units))
    )


# -- units from annotated documents ------------------------------------------------

Mention = dict  # TAB entity mention: start_offset, end_offset and the attributes


def _layers(document: dict, annotators: Iterable[str] | None) -> dict[str, list[Mention]]:
    wanted = None if annotators is None else set(annotators)
    return {
        name: sorted(layer["entity_mentions"], key=lambda m: (m["start_offset"], m["end_offset"]))
        for name, layer in document.get("annotations", {}).items()
        if wanted is None or name in wanted
    }


def _label(mention: Mention | None, attribute: str) -> str:
    return NONE if mention is None else (mention.get(attribute) or NONE)


def exact_span_units(layers: dict[str, list[Mention]], attribute: str) -> list[list[str]]:
    by_span = {name: {(m["start_offset"], m["end_offset"]): m for m in mentions} for name, mentions in layers.items()}
    spans = sorted({span for spans in by_span.values() for span in spans})
    return [[_label(by_span[name].get(span), attribute) for name in layers] for span in spans]


def overlap_groups(layers: dict[str, list[Mention]]) -> list[tuple[int, int]]:
    """Extents of the groups of mentions connected through overlaps."""
    spans = sorted((m["start_offset"], m["end_offset"]) for mentions in layers.values() for m in mentions)
    groups: list[list[int]] = []
    for start, end in spans:
        if groups and start < groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], end)
        else:
            groups.append([start, end])
    return [(start, end) for start, end in groups]


def partial_span_units(layers: dict[str, list[Mention]], attribute: str) -> list[list[str]]:
    units = []
    for start, end in overlap_groups(layers):
        row = []
        for mentions in layers.values():
            first = next((m for m in mentions if m["start_offset"] < end and start < m["end_offset"]), None)
            row.append(_label(first, attribute))
        units.append(row)
    return units


def character_units(layers: dict[str, list[Mention]], attribute: str) -> list[list[str]]:
    labels: dict[str, dict[int, str]] = {}
    for name, mentions in layers.items():
        covered: dict[int, str] = {}
        for mention in mentions:
            for offset in range(mention["start_offset"], mention["end_offset"]):
                covered.setdefault(offset, _label(mention, attribute))
        labels[name] = covered
    offsets = sorted({offset for covered in labels.values() for offset in covered})
    return [[labels[name].get(offset, NONE) for name in layers] for offset in offsets]


UNIT_BUILDERS = {
    "span (exact)": exact_span_units,
    "span (partial)": partial_span_units,
    "character": character_units,
}


def agreement_table(documents: Iterable[dict], annotators: Iterable[str] | None = None) -> dict:
    """{attribute: {unit kind: Coefficients}} over the documents with >= 2 layers."""
    documents = list(documents)
    table = {}
    for attribute in ATTRIBUTES:
        table[attribute] = {}
        for kind, build in UNIT_BUILDERS.items():
            units = []
            for document in documents:
                layers = _layers(document, annotators)
                if len(layers) >= 2:
                    units += build(layers, attribute)
            table[attribute][kind] = coefficients(units)
    return table


def entity_type_confusion(documents: Iterable[dict], annotators: Iterable[str] | None = None) -> Counter:
    """Counter of (type, type) over every ordered pair of annotators on the same exact
    span (``O`` when one of them has no mention there): the heatmap of Figure 6. It is
    symmetric by construction."""
    confusion: Counter = Counter()
    for document in documents:
        layers = _layers(document, annotators)
        if len(layers) < 2:
            continue
        for labels in exact_span_units(layers, "entity_type"):
            for i, first in enumerate(labels):
                for j, second in enumerate(labels):
                    # Two annotators who both left out a span a third one marked say
                    # nothing about types: no (O, O) cell.
                    if i != j and (first, second) != (NONE, NONE):
                        confusion[(first, second)] += 1
    return confusion


def identifier_disagreements(documents: Iterable[dict], annotators: Iterable[str] | None = None) -> dict:
    """Per entity type: on spans that several annotators marked with that same type,
    how many annotator pairs agree and disagree on the identifier type (Table 10)."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for document in documents:
        layers = _layers(document, annotators)
        if len(layers) < 2:
            continue
        by_span = defaultdict(list)
        for mentions in layers.values():
            seen = set()
            for mention in mentions:
                span = (mention["start_offset"], mention["end_offset"])
                if span not in seen:  # one vote per annotator and span
                    seen.add(span)
                    by_span[(span, mention.get("entity_type"))].append(mention.get("identifier_type") or NONE)
        for (_, entity_type), decisions in by_span.items():
            for i in range(len(decisions)):
                for j in range(i + 1, len(decisions)):
                    same = decisions[i] == decisions[j]
                    counts[entity_type]["agree" if same else "disagree"] += 1
                    if not same:
                        counts[entity_type][" vs ".join(sorted((decisions[i], decisions[j])))] += 1
    return {entity_type: dict(counter) for entity_type, counter in sorted(counts.items())}
