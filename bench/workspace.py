"""Server time of the annotation workspace (DESIGN.md §8).

Measures, through Django's test client (URL routing, middleware, session, view,
rendering; no network):

1. the workspace page for the largest real TAB document (its largest layer);
2. the workspace page for a synthetic 10,000-token document with 1,000 mentions
   (budget 150 ms);
3. one decision on an entity with 50 mentions, propagated and re-rendered (the HTMX
   answer with the changed lines; budget 30 ms).

    python bench/workspace.py [--runs 50] [--database-url postgres://postgres@127.0.0.1:5432/postgres]

Prints the median and the 95th percentile of each, in milliseconds.
"""

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "tab" / "tab_dev_sample.json"
SHARED = REPO.parent / "shared" / "tab"
BUDGETS_MS = {
    "page, largest TAB document": 150,
    "page, 10,000 tokens / 1,000 mentions": 150,
    "decision on 50 mentions": 30,
}


def setup_django(database_url: str | None, workdir: Path) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "sanitize_app.settings.development"
    os.environ["DATABASE_URL"] = database_url or f"sqlite:///{workdir / 'bench.sqlite3'}"
    os.environ["ALLOWED_HOSTS"] = "testserver"
    os.environ["DEBUG"] = "0"
    os.environ.pop("CELERY_BROKER_URL", None)
    sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def largest_document() -> dict:
    files = [SAMPLE, *sorted(SHARED.glob("*.json"))]
    documents = [d for path in files for d in json.loads(path.read_text(encoding="utf-8"))]
    return max(documents, key=lambda d: len(d["text"]))


def synthetic_document(tokens: int = 10_000, mentions: int = 1_000, shared: int = 50) -> tuple[dict, str]:
    """A court-case-like text of ``tokens`` words with ``mentions`` annotated spans, the
    first ``shared`` of them mentions of one entity. Returns the TAB document and the
    id of that entity."""
    words = re.findall(r"\w+", json.loads(SAMPLE.read_text(encoding="utf-8"))[0]["text"])
    pieces, spans, cursor = [], [], 0
    every = tokens // mentions
    for index in range(tokens):
        word = "Yalman" if index % every == 0 and len(spans) < shared else words[index % len(words)]
        if index and index % 60 == 0:
            pieces.append(".\n\n")
            cursor += 3
        elif index:
            pieces.append(" ")
            cursor += 1
        if index % every == 0:
            spans.append((cursor, cursor + len(word), word))
        pieces.append(word)
        cursor += len(word)
    text = "".join(pieces)
    entity_mentions = []
    for number, (start, end, word) in enumerate(spans):
        entity = "syn_e_shared" if number < shared else f"syn_e{number // 2}"
        entity_mentions.append(
            {
                "entity_mention_id": f"syn_em{number}",
                "entity_id": entity,
                "entity_type": "PERSON" if number < shared else "MISC",
                "start_offset": start,
                "end_offset": end,
                "span_text": word,
                "edit_type": "check",
                "identifier_type": "QUASI",
                "confidential_status": "NOT_CONFIDENTIAL",
            }
        )
    document = {
        "doc_id": "synthetic-10k",
        "text": text,
        "task": "Task: Annotate the document to anonymise the following person: Galip Yalman",
        "annotations": {"bench_annotator": {"entity_mentions": entity_mentions}},
    }
    return document, "syn_e_shared"


def timed(call, runs: int, warmup: int = 3) -> list[float]:
    for _ in range(warmup):
        call()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def report(name: str, samples: list[float]) -> bool:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    median = statistics.median(samples)
    budget = BUDGETS_MS[name]
    ok = median <= budget
    print(f"{name:<42} median {median:7.1f} ms   p95 {p95:7.1f} ms   budget {budget} ms  {'ok' if ok else 'OVER'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--database-url", help="default: a fresh SQLite file; for PostgreSQL give an empty database")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sanitize-bench-") as tmp:
        workdir = Path(tmp)
        setup_django(args.database_url, workdir)
        from django.contrib.auth import get_user_model
        from django.test import Client

        from annotation.models import AnnotationLayer, Corpus, Entity
        from annotation.services.corpus_import import import_tab

        corpus = Corpus.objects.create(name=f"workspace bench {os.getpid()}")
        big = largest_document()
        synthetic, shared_entity = synthetic_document()
        path = workdir / "docs.json"
        path.write_text(json.dumps([big, synthetic], ensure_ascii=False), encoding="utf-8")
        with path.open("rb") as stream:
            import_tab(stream, corpus, actor=None)
        user = get_user_model().objects.create_superuser("bench", password="bench-password-123")
        client = Client()
        client.force_login(user)
        big_layer = max(
            AnnotationLayer.objects.filter(document__doc_id=big["doc_id"], document__corpus=corpus),
            key=lambda layer: layer.mentions.count(),
        )
        syn_layer = AnnotationLayer.objects.get(document__doc_id="synthetic-10k", document__corpus=corpus)
        # Imported layers are finished, and a confirmed one is locked: time the decisions
        # as a review correction, the costliest case (the masked review is rendered again).
        AnnotationLayer.objects.filter(pk=syn_layer.pk).update(status="under_review")
        entity = Entity.objects.get(layer=syn_layer, tab_entity_id=shared_entity)
        tokens = len(re.findall(r"\w+", synthetic["text"]))
        print(
            f"Largest TAB document: {big['doc_id']} ({len(big['text'])} characters, "
            f"{big_layer.mentions.count()} mentions in its largest layer)"
        )
        print(
            f"Synthetic document: {tokens} tokens, {syn_layer.mentions.count()} mentions, "
            f"entity with {entity.mentions.count()} mentions; database: {os.environ['DATABASE_URL'].split(':')[0]}"
        )

        def page(layer):
            response = client.get(f"/layers/{layer.pk}/")
            assert response.status_code == 200, response.status_code

        choices = iter(["DIRECT", "NO_MASK"] * (args.runs + 10))

        def decide():
            syn_layer.refresh_from_db(fields=["version"])
            response = client.post(
                f"/layers/{syn_layer.pk}/entities/{entity.pk}/decision/",
                # As the page sends it: the entity is the current one, so its panel is redrawn too.
                {"identifier_type": next(choices), "layer_version": syn_layer.version, "current_entity": entity.pk},
                HTTP_HX_REQUEST="true",
            )
            assert response.status_code == 200, response.content[:300]

        ok = report("page, largest TAB document", timed(lambda: page(big_layer), args.runs))
        ok &= report("page, 10,000 tokens / 1,000 mentions", timed(lambda: page(syn_layer), args.runs))
        ok &= report("decision on 50 mentions", timed(decide, args.runs))
        corpus.delete()
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
