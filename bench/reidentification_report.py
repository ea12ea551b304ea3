"""Printing ``bench/reidentification.py``'s results: the tables, a text chart and the PNG
chart of TRIR per method beside the published DistilBERT values."""

import math
import statistics
from pathlib import Path

LABELS = {
    "original": "original",
    "ner3": "NER3",
    "ner4": "NER4",
    "ner7": "NER7",
    "presidio": "Presidio",
    "spacy": "spaCy",
    "word2vec_t=0.5": "word2vec t=0.5",
    "word2vec_t=0.25": "word2vec t=0.25",
    "manual": "manual",
}
BAR = 40  # characters of a 100 % bar


def nearest_rank(values: list[float], percent: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(percent / 100 * len(ordered)) - 1)]


def timing(values: list[float]) -> dict:
    """Median and 95th percentile (nearest rank) of per-document seconds."""
    return {"median": statistics.median(values), "p95": nearest_rank(values, 95), "n": len(values)}


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}"


def seconds(entry: dict) -> str:
    return f"{entry['median']:.3f} / {entry['p95']:.3f}"


def print_background_table(table: dict, published: dict) -> None:
    pretreated = table["pretreatment"]
    print(
        f"{table['file']}: background {table['people']} people (bodies + label-masked copies), "
        f"{table['protected']} protected abstracts"
    )
    if pretreated["cached"]:
        print(f"Pretreatment: read from {pretreated['cached']} (measured when cached: ", end="")
    else:
        print("Pretreatment: ", end="")
    print(
        f"{pretreated['total_seconds']:.0f} s, median / p95 {seconds(pretreated['per_document'])} s per body)"
        if pretreated["cached"]
        else f"{pretreated['total_seconds']:.0f} s, median / p95 {seconds(pretreated['per_document'])} s per body"
    )
    ran = {name: entry for name, entry in table["attackers"].items() if "error" not in entry}
    for name, entry in table["attackers"].items():
        if "error" in entry:
            print(f"  {name}: unavailable ({entry['error']})")
    if not ran:
        return
    columns = list(next(iter(ran.values()))["columns"])
    header = f"{'column':<16} {'published':>9}" + "".join(f" {name + ' TRIR':>16} {'top5':>5}" for name in ran)
    print(header)
    print("-" * len(header))
    for column in columns:
        cells = "".join(
            f" {percent(entry['columns'][column]['TRIR']):>16} {percent(entry['columns'][column]['top5']):>5}"
            for entry in ran.values()
        )
        print(f"{LABELS.get(column, column):<16} {published.get(column, '-'):>9}{cells}")
    for name, entry in ran.items():
        attack_s = [entry["columns"][c]["attack_seconds_per_document"] for c in columns]
        medians = sorted(a["median"] for a in attack_s)
        p95s = sorted(a["p95"] for a in attack_s)
        r = entry.get("pearson", {})
        print(
            f"{name}: fit {entry['fit_seconds']:.1f} s; attack median {medians[len(medians) // 2]:.3f} s, "
            f"p95 {p95s[-1]:.3f} s per document (the abstract's pretreatment included, leaking terms not "
            f"computed; median of the columns' medians, worst p95); "
            f"random baseline {100 * entry['random_baseline']:.1f} %; "
            f"Pearson r vs published: {fmt_r(r.get('all'))} ({len(columns)} columns), {fmt_r(r.get('methods'))} "
            f"(without original)"
        )
        described = entry["describe"]
        if name == "transformer-ft":
            print(
                f"  fine-tuned {described.get('model')} for {described.get('epochs')} epoch(s) "
                f"on {described.get('device')}"
            )
        print(f"  settings: {described}")


def fmt_r(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def print_pipeline(pipeline: dict) -> None:
    if "error" in pipeline:
        print(f"Our pipeline: unavailable ({pipeline['error']})")
        return
    detection = pipeline["detection"]
    print(
        f"Detection: {detection['engine']}; {detection['masked_entities']} entities masked "
        f"({detection['direct']} DIRECT), median / p95 {seconds(detection['seconds_per_document'])} s per abstract"
    )
    attackers = pipeline["attackers"]
    header = (
        f"{'release':<34} {'TPS %':>6} {'spans/doc':>9} {'added':>9}"
        + "".join(f" {name + ' TRIR':>16} {'top5':>5}" for name in attackers)
        + f" {'median / p95 s':>15}"
    )
    print(header)
    print("-" * len(header))
    for row in pipeline["releases"]:
        if "error" in row:
            print(f"{row['release']:<34} unavailable: {row['error']}")
            continue
        cells = "".join(
            f" {percent(row['attacks'][name]['TRIR']):>16} {percent(row['attacks'][name]['top5']):>5}"
            if name in row["attacks"]
            else f" {'-':>16} {'-':>5}"
            for name in attackers
        )
        added = f"{row['added_per_document']:.1f}" if row.get("added_per_document") is not None else "-"
        print(
            f"{row['release']:<34} {100 * row['TPS']:6.1f} {row['masks_per_document']:9.1f} {added:>9}{cells} "
            f"{seconds(row['seconds_per_document']):>15}"
        )
    for line in pipeline.get("verdicts", []):
        print(line)


def chart_columns(series: dict[str, dict[str, float]], published: dict) -> list[str]:
    """The published methods, then our releases (which have no published value)."""
    ours = [c for values in series.values() for c in values if c not in published]
    return list(published) + list(dict.fromkeys(ours))


def text_chart(series: dict[str, dict[str, float]], published: dict) -> list[str]:
    """One bar per method and source (published first), 40 characters = 100 %."""
    lines = []
    sources = [("published", {c: v / 100 for c, v in published.items()}), *series.items()]
    width = max(len(name) for name, _ in sources)
    label_width = max(len(LABELS.get(c, c)) for c in chart_columns(series, published))
    for column in chart_columns(series, published):
        label = LABELS.get(column, column)
        for name, values in sources:
            if column in values:
                share = values[column]
                bar = "█" * round(BAR * share)
                lines.append(f"{label:<{label_width}} {name:<{width}} {bar:<{BAR}} {100 * share:5.1f}")
                label = ""
    return lines


def png_chart(series: dict[str, dict[str, float]], published: dict, path: Path) -> str:
    """Grouped bars: TRIR per method, published then each attacker; our releases after the
    published methods. Returns the path, or why there is no chart."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        return f"no chart: {exc}"
    columns = chart_columns(series, published)
    sources = [("published (DistilBERT, GPU)", {c: v / 100 for c, v in published.items()}), *series.items()]
    width = 0.8 / len(sources)
    figure, axes = plt.subplots(figsize=(max(10, 0.9 * len(columns)), 4.6), dpi=90)
    for i, (name, values) in enumerate(sources):
        xs = [j + (i - (len(sources) - 1) / 2) * width for j, c in enumerate(columns) if c in values]
        axes.bar(xs, [100 * values[c] for c in columns if c in values], width, label=name)
    if len(columns) > len(published):
        axes.axvline(len(published) - 0.5, color="grey", linewidth=0.8, linestyle="--")
    axes.set_xticks(range(len(columns)), [LABELS.get(c, c) for c in columns], rotation=30, ha="right", fontsize=8)
    axes.set_ylabel("TRIR %")
    axes.set_ylim(0, 105)
    axes.set_title(
        "Re-identification risk, WikiActors_50_eval (50 people): published methods | our releases", fontsize=10
    )
    axes.legend(fontsize=8)
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
    return str(path)
