"""Sanitized releases of the real TAB dev documents (DESIGN.md §6, issue 15): TPS per
strategy, time per document, decision paths, and the share of DATETIME mentions the
date rules parse.

The engine runs directly (no Django, no database): for each document one annotator's
layer (chosen with ``random.Random(seed)``), all its DIRECT and QUASI mentions grouped by
entity, released with each strategy by ``build_release_engine(strategy)``. TPS uses
unigram information content from the documents themselves and the pretrained encoder
(all-MiniLM-L6-v2) for similarity; ER_di / ER_qi score the released spans against every
annotator's layer. The peer, in the same run: Microsoft Presidio's analyzer finding its
own spans, replaced by ``<ENTITY_TYPE>`` as its anonymizer does by default (bench-only
requirement: ``pip install -r bench/requirements.txt``; ``--no-peer`` leaves it out).

    python bench/release.py                         # the 41 documents of data/tab/tab_dev_sample.json
    python bench/release.py PATH --documents 10
    python bench/release.py --llm-scripted          # INTACT with the tests' scripted LLM server too
    python bench/release.py --json                  # one JSON object

Aims (issue 15): suppression < label < rules, rules >= 89 TPS %, date rules >= 95 %.
Published TPS % on the TAB test split (INTACT paper): suppression 77.7, entity type 84.8,
Presidio 85.8, INTACT (Mistral-7B) 88.5, most specific candidates 91.3.
"""

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sanitize_app.engine.evaluation import GoldCorpus, evaluate, official_token_filter  # noqa: E402
from sanitize_app.engine.information_content import CorpusStatistics  # noqa: E402
from sanitize_app.engine.release.engine import build_release_engine  # noqa: E402
from sanitize_app.engine.release.inputs import tab_layer_input  # noqa: E402
from sanitize_app.engine.release.strategies import STRATEGIES  # noqa: E402
from sanitize_app.engine.release.tps import (  # noqa: E402
    TERM_PIPELINE,
    TextPreservedSimilarity,
    load_term_pipeline,
    sentence_embedder,
)
from sanitize_app.engine.release.types import PATHS  # noqa: E402

SAMPLE = REPO / "data" / "tab" / "tab_dev_sample.json"
SCRIPTED = "intact+scripted-llm"
PEER = "presidio (peer)"


def choose_layers(documents: list[dict], seed: int) -> list[str]:
    """One annotator per document, reproducibly."""
    rng = random.Random(seed)
    return [rng.choice(sorted(document["annotations"])) for document in documents]


def nearest_rank(values: list[float], percent: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(percent / 100 * len(ordered)) - 1)]


def date_share(documents: list[dict], chosen: list[str]) -> dict:
    """How many DATETIME mentions the date rules give a ladder for: over every layer's
    mentions (as the paper counts them), over the distinct texts, and over the released
    layers; with the most frequent texts they miss."""
    try:
        from sanitize_app.engine.release.generalization.dates import date_parse_share, datetime_candidates
    except ImportError as exc:
        return {"unavailable": f"sanitize_app.engine.release.generalization.dates: {exc}"}
    every = [
        m["span_text"]
        for document in documents
        for layer in document["annotations"].values()
        for m in layer["entity_mentions"]
        if m["entity_type"] == "DATETIME"
    ]
    released = [
        m["span_text"]
        for document, annotator in zip(documents, chosen, strict=True)
        for m in document["annotations"][annotator]["entity_mentions"]
        if m["entity_type"] == "DATETIME" and m["identifier_type"] in ("DIRECT", "QUASI")
    ]
    result = {}
    for name, texts in (("all_layers", every), ("distinct_texts", sorted(set(every))), ("released", released)):
        parsed, total = date_parse_share(texts)
        result[name] = {"parsed": parsed, "total": total, "share": parsed / total if total else None}
    missed = Counter(text for text in every if not datetime_candidates(text))
    result["most_frequent_missed"] = missed.most_common(10)
    return result


def run_strategy(name: str, engine, inputs, scorer, gold) -> dict:
    seconds, released, paths, failures = [], [], Counter(), []
    # The ladders load their data (gazetteers, tables) on first use: that is timed apart.
    started = time.perf_counter()
    try:
        engine.sanitize(inputs[0])
    except Exception:  # noqa: BLE001, S110 - the timed loop reports it
        pass
    warm_up = time.perf_counter() - started
    for release_input in inputs:
        started = time.perf_counter()
        try:
            sanitized = engine.sanitize(release_input)
        except Exception as exc:  # noqa: BLE001 - the bench reports a failing document and goes on
            failures.append(f"{release_input.doc_id}: {exc.__class__.__name__}: {exc}")
            continue
        seconds.append(time.perf_counter() - started)
        paths.update(decision.path for decision in sanitized.decisions)
        released.append((release_input, [(s.start, s.end, s.replacement) for s in sanitized.spans]))
    row = scored_row(name, released, seconds, scorer, gold)
    row.update(settings=engine.settings(), warm_up_seconds=warm_up, failures=failures)
    row["paths"] = {path: paths[path] for path in PATHS}
    return row


def scored_row(name: str, released, seconds: list[float], scorer, gold) -> dict:
    """TPS and ER (against every annotator's layer) of the released documents."""
    if not released:
        return {"strategy": name, "error": "no document was released"}
    started = time.perf_counter()
    corpus = scorer.corpus([(release_input.text, spans) for release_input, spans in released])
    scoring = time.perf_counter() - started
    worst_value, worst_input = min(zip((d.value for d in corpus.documents), (r for r, _ in released), strict=True))
    masked = {release_input.doc_id: [(s, e) for s, e, _ in spans] for release_input, spans in released}
    report = evaluate(gold, masked, token_filter=official_token_filter())
    return {
        "strategy": name,
        "documents": len(released),
        "TPS": corpus.value,
        "ER_di": report.ER_di,
        "ER_qi": report.ER_qi,
        "worst": {"doc_id": worst_input.doc_id, "TPS": worst_value},
        "seconds_per_document": {"median": statistics.median(seconds), "p95": nearest_rank(seconds, 95)},
        "warm_up_seconds": 0.0,
        "tps_seconds": scoring,
        "paths": {},
        "failures": [],
    }


def presidio_row(inputs, scorer, gold) -> dict:
    """The peer: Microsoft Presidio's analyzer (its defaults, the same spaCy pipeline) finds
    its own spans in each document, replaced by ``<ENTITY_TYPE>`` as its anonymizer's
    default operator writes them (overlaps: the earliest, then the longest, as ours)."""
    try:
        from presidio_analyzer import AnalyzerEngine
        from presidio_analyzer.nlp_engine import NlpEngineProvider
    except ImportError:
        return {"strategy": PEER, "error": "Presidio is not installed: pip install -r bench/requirements.txt"}
    configuration = {"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": TERM_PIPELINE}]}
    analyzer = AnalyzerEngine(
        nlp_engine=NlpEngineProvider(nlp_configuration=configuration).create_engine(), supported_languages=["en"]
    )
    analyzer.analyze(text=inputs[0].text, language="en")  # loaded before the clock starts
    released, seconds = [], []
    for release_input in inputs:
        started = time.perf_counter()
        found = sorted(analyzer.analyze(text=release_input.text, language="en"), key=lambda r: (r.start, -r.end))
        spans, covered = [], -1
        for result in found:
            if result.start >= covered:
                spans.append((result.start, result.end, f"<{result.entity_type}>"))
                covered = result.end
        seconds.append(time.perf_counter() - started)
        released.append((release_input, spans))
    return scored_row(PEER, released, seconds, scorer, gold)


def scripted_llm_config():
    """The tests' scripted OpenAI-compatible server, started here (tests/support)."""
    from sanitize_app.engine.release.llm import LLMConfig
    from tests.support.openai_server import ScriptedOpenAIServer

    server = ScriptedOpenAIServer().start()
    return server, LLMConfig(base_url=server.base_url, model="scripted", timeout_s=30, concurrency=2)


def engines(strategies: list[str], texts: list[str], llm_scripted: bool):
    """(name, engine or the error that prevents it, server to stop)."""
    from sanitize_app.engine.release.matching import frequent_lemmas

    lemmas = frequent_lemmas(texts)
    for strategy in strategies:
        try:
            yield strategy, build_release_engine(strategy, frequent_lemmas=lemmas), None
        except Exception as exc:  # noqa: BLE001 - a missing part is reported, the others still run
            yield strategy, exc, None
    if llm_scripted:
        server = None
        try:
            server, config = scripted_llm_config()
            yield SCRIPTED, build_release_engine("intact", llm_config=config, frequent_lemmas=lemmas), server
        except Exception as exc:  # noqa: BLE001
            yield SCRIPTED, exc, server


def measure(documents: list[dict], *, seed: int, strategies: list[str], llm_scripted: bool, peer: bool) -> dict:
    chosen = choose_layers(documents, seed)
    inputs = [tab_layer_input(document, annotator) for document, annotator in zip(documents, chosen, strict=True)]
    texts = [document["text"] for document in documents]
    started = time.perf_counter()
    scorer = TextPreservedSimilarity(
        load_term_pipeline(), CorpusStatistics.from_texts(texts), sentence_embedder(), keep_analyses=len(documents)
    )
    scorer.corpus([(text, []) for text in texts])  # parse every document once (the analysis is kept)
    setup = time.perf_counter() - started
    gold = GoldCorpus.from_tab(documents)
    rows = []
    for name, engine, server in engines(strategies, texts, llm_scripted):
        if isinstance(engine, Exception):
            rows.append({"strategy": name, "error": f"{engine.__class__.__name__}: {engine}"})
        else:
            row = run_strategy(name, engine, inputs, scorer, gold)
            if server is not None:
                row["llm_requests"] = len(server.requests)
            rows.append(row)
        if server is not None:
            server.stop()
    if peer:
        rows.append(presidio_row(inputs, scorer, gold))
    return {
        "documents": len(documents),
        "seed": seed,
        "annotators": dict(Counter(chosen)),
        "entities": sum(len(i.entities) for i in inputs),
        "mentions": sum(len(e.mentions) for i in inputs for e in i.entities),
        "ic": scorer.ic_description,
        "embedder": scorer.embedder_description,
        "setup_seconds": setup,
        "strategies": rows,
        "dates": date_share(documents, chosen),
    }


def print_table(result: dict) -> None:
    print(
        f"{result['documents']} documents, one layer each (seed {result['seed']}): "
        f"{result['entities']} entities, {result['mentions']} mentions released"
    )
    print(f"IC: {result['ic']}\nEmbedder: {result['embedder']}")
    print(f"Loading spaCy and the encoder, parsing the documents for TPS: {result['setup_seconds']:.1f} s (once)")
    print("Seconds per document: the release alone (TPS apart); load s: the first document, data loading included")
    print("ER_di / ER_qi: the released spans against every annotator's layer (official token filter)\n")
    header = (
        f"{'strategy':<20} {'TPS %':>6} {'ER_di':>6} {'ER_qi':>6} {'worst':>18} {'median s':>9} {'p95 s':>7} "
        f"{'load s':>7}  paths first/later/fallback/fixed"
    )
    print(header)
    print("-" * len(header))
    for row in result["strategies"]:
        if "error" in row:
            print(f"{row['strategy']:<20} unavailable: {row['error']}")
            continue
        worst = f"{row['worst']['doc_id']} {100 * row['worst']['TPS']:.1f}"
        timing = row["seconds_per_document"]
        paths = "/".join(str(row["paths"][p]) for p in PATHS) if row["paths"] else "-"
        print(
            f"{row['strategy']:<20} {100 * row['TPS']:6.1f} {row['ER_di']:6.3f} {row['ER_qi']:6.3f} {worst:>18} "
            f"{timing['median']:9.3f} {timing['p95']:7.3f} "
            f"{row['warm_up_seconds']:7.2f}  "
            f"{paths}" + (f"  ({row['llm_requests']} LLM requests)" if "llm_requests" in row else "")
        )
        for failure in row["failures"][:3]:
            print(f"    failed: {failure}")
    dates = result["dates"]
    print()
    if "unavailable" in dates:
        print(f"Date rules: unavailable ({dates['unavailable']})")
        return
    for name, label in (
        ("all_layers", "DATETIME mentions of every layer"),
        ("distinct_texts", "distinct DATETIME texts"),
        ("released", "released DATETIME mentions"),
    ):
        counts = dates[name]
        share = f"{100 * counts['share']:.1f} %" if counts["share"] is not None else "-"
        print(f"Date rules parse {counts['parsed']}/{counts['total']} {label} ({share})")
    if dates["most_frequent_missed"]:
        print("Most frequent unparsed: " + "; ".join(f"{text!r} ×{n}" for text, n in dates["most_frequent_missed"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", default=str(SAMPLE), help="TAB JSON file (default: the 41 dev documents)")
    parser.add_argument("--documents", type=int, help="Only the first N documents.")
    parser.add_argument("--seed", type=int, default=13, help="Seed of the annotator choice (default 13).")
    parser.add_argument("--strategies", nargs="+", choices=STRATEGIES, default=list(STRATEGIES))
    parser.add_argument("--llm-scripted", action="store_true", help="Also INTACT with the tests' scripted LLM server.")
    parser.add_argument("--json", action="store_true", help="Print one JSON object instead of the table.")
    parser.add_argument("--no-peer", action="store_true", help="Leave out the Presidio row.")
    options = parser.parse_args(argv)
    documents = json.loads(Path(options.path).read_text(encoding="utf-8"))
    if options.documents:
        documents = documents[: options.documents]
    result = measure(
        documents,
        seed=options.seed,
        strategies=options.strategies,
        llm_scripted=options.llm_scripted,
        peer=not options.no_peer,
    )
    if options.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
