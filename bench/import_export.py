"""Import and export of a TAB-sized corpus on SQLite and on PostgreSQL.

Builds a corpus the size of the full TAB (1,268 documents, about 155,000 mentions) by
replicating the 41 real documents of data/tab under new ids, then, for each backend,
times ``import_tab`` and the TAB export into a fresh database and checks that the
export equals the input. Budget (DESIGN.md §8): 60 s each.

    python bench/import_export.py                       # both backends, 1 run each
    python bench/import_export.py --backends sqlite --runs 3
    BENCH_POSTGRES_URL=postgres://user@host:5432/db python bench/import_export.py
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "tab" / "tab_dev_sample.json"
TAB_DOCUMENTS, TAB_MENTIONS = 1268, 155_006
BUDGET_S = 60.0


def renamed(document: dict, new_id: str, keep_layers: int) -> dict:
    """A copy of ``document`` under ``new_id`` with its first ``keep_layers`` layers;
    mention and entity ids are rewritten to the new document id."""
    old = document["doc_id"]
    annotations = dict(list(document["annotations"].items())[:keep_layers])
    text = json.dumps({**document, "annotations": annotations, "doc_id": new_id}, ensure_ascii=False)
    copy = json.loads(text.replace(f'"{old}_', f'"{new_id}_'))
    copy["quality_checked"] = [name for name in copy["quality_checked"] if name in annotations]
    return copy


def build_corpus(path: Path, documents: int, mentions: int) -> tuple[int, int]:
    """Write a TAB file of ``documents`` documents whose mention total tracks
    ``mentions`` (layers are dropped or kept to follow the running target)."""
    sample = json.loads(SAMPLE.read_text(encoding="utf-8"))
    written = total = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        for index in range(documents):
            source = sample[index % len(sample)]
            target = mentions * (index + 1) / documents
            layers, count = 0, 0
            for layer in source["annotations"].values():
                if layers and total + count >= target:
                    break
                layers += 1
                count += len(layer["entity_mentions"])
            document = renamed(source, f"{source['doc_id']}-r{index // len(sample)}", layers)
            out.write((", " if written else "") + json.dumps(document, ensure_ascii=False))
            written += 1
            total += count
        out.write("]")
    return written, total


def run_backend(database_url: str, corpus_file: Path) -> dict:
    """Time one import and one export in this process (Django set up here)."""
    os.environ["DATABASE_URL"] = database_url
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "sanitize_app.settings.development"
    sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.core.management import call_command

    from annotation.corpus_io.tab_writer import iter_tab_documents, write_tab_json
    from annotation.models import Corpus
    from annotation.services.corpus_import import import_tab

    call_command("migrate", verbosity=0)
    corpus = Corpus.objects.create(name="benchmark")
    started = time.perf_counter()
    with corpus_file.open("rb") as stream:
        summary = import_tab(stream, corpus, actor=None, source=corpus_file.name)
    import_s = time.perf_counter() - started
    exported = corpus_file.with_suffix(".export.json")
    started = time.perf_counter()
    with exported.open("w", encoding="utf-8") as out:
        write_tab_json(iter_tab_documents(corpus.documents.all()), out)
    export_s = time.perf_counter() - started
    same = json.loads(exported.read_text(encoding="utf-8")) == json.loads(corpus_file.read_text(encoding="utf-8"))
    return {
        "import_s": import_s,
        "export_s": export_s,
        "documents": summary.documents,
        "mentions": summary.mentions,
        "round_trip_exact": same,
    }


def fresh_database(backend: str, workdir: Path, run: int) -> str:
    if backend == "sqlite":
        return f"sqlite:///{workdir / f'bench-{run}.sqlite3'}"
    import psycopg

    server = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    base, _ = server.rsplit("/", 1)
    name = f"sanitize_bench_{os.getpid()}_{run}"
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    return f"{base}/{name}"


def drop_database(backend: str, url: str) -> None:
    if backend != "postgresql":
        return
    import psycopg

    server = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}"')


def summarize(values: list[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:6.1f}"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{statistics.median(values):6.1f} (p95 {p95:.1f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--documents", type=int, default=TAB_DOCUMENTS)
    parser.add_argument("--mentions", type=int, default=TAB_MENTIONS)
    parser.add_argument("--child", nargs=2, metavar=("DATABASE_URL", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_backend(args.child[0], Path(args.child[1]))))
        return 0
    with tempfile.TemporaryDirectory(prefix="sanitize-bench-") as tmp:
        workdir = Path(tmp)
        corpus_file = workdir / "tab_sized.json"
        documents, mentions = build_corpus(corpus_file, args.documents, args.mentions)
        size_mb = corpus_file.stat().st_size / 1e6
        print(f"Corpus: {documents} documents, {mentions} mentions, {size_mb:.0f} MB (replicated from {SAMPLE.name})")
        print(f"{'backend':<11} {'import s':>16} {'export s':>16}  round trip  budget {BUDGET_S:.0f} s")
        failed = False
        for backend in args.backends.split(","):
            imports, exports, exact = [], [], True
            for run in range(args.runs):
                url = fresh_database(backend, workdir, run)
                try:
                    # A fresh process per run: no warm caches or connections carried over.
                    output = subprocess.run(
                        [sys.executable, __file__, "--child", url, str(corpus_file)],
                        check=True,
                        capture_output=True,
                        text=True,
                    ).stdout
                finally:
                    drop_database(backend, url)
                result = json.loads(output.strip().splitlines()[-1])
                imports.append(result["import_s"])
                exports.append(result["export_s"])
                exact &= result["round_trip_exact"] and result["mentions"] == mentions
            over = max(imports) > BUDGET_S or max(exports) > BUDGET_S
            failed |= over or not exact
            print(
                f"{backend:<11} {summarize(imports):>16} {summarize(exports):>16}  "
                f"{'exact' if exact else 'DIFFERS':<10}  {'OVER BUDGET' if over else 'ok'}"
            )
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
