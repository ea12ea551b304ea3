"""How long the evaluation and agreement pages take to answer now that their reports are
jobs (services.reports), against the computation they did inside the request before.

Runs on the database of the settings in use (the demo: ``manage.py load_demo`` first),
through Django's test client logged in as the corpus's first manager. Reports are never
sent to a worker here (as with a worker on another host, the page only starts them):

- *progress*: the GET that finds no current report, starts one and shows its progress;
- *stored*: the GET that shows a stored report (computed once by this script first);
- *in request*: what the page computed before (the evaluation of the source, the
  comparison of all sources, the agreement), the way the old views did on a cache miss.

    SANITIZE_VAR_DIR=/tmp/var python bench/report_pages.py [--corpus PK] [--runs 30] [--json]
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
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sanitize_app.settings.development")

import django  # noqa: E402

django.setup()

from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from annotation.enums import Role  # noqa: E402
from annotation.models import Corpus, CorpusMembership, ReportJob  # noqa: E402
from annotation.services import reports  # noqa: E402
from annotation.services.agreement import corpus_agreement  # noqa: E402
from annotation.services.evaluation import compare_sources, evaluate_source  # noqa: E402


def timed(work, runs: int) -> dict:
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        seconds.append(time.perf_counter() - start)
    seconds.sort()
    p95 = seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))]
    return {"runs": runs, "median_ms": round(1000 * statistics.median(seconds), 1), "p95_ms": round(1000 * p95, 1)}


def get(client: Client, url: str):
    def work():
        response = client.get(url)
        assert response.status_code == 200 and b"job-progress" not in response.content, (url, response.status_code)

    return work


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=int, help="corpus pk (default: the first with a pre-annotation)")
    parser.add_argument("--runs", type=int, default=30, help="GETs timed per case")
    parser.add_argument("--compute-runs", type=int, default=3, help="in-request computations timed")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    corpus = Corpus.objects.get(pk=args.corpus) if args.corpus else Corpus.objects.order_by("pk").first()
    manager = CorpusMembership.objects.filter(corpus=corpus, role=Role.MANAGER).first().user
    client = Client(HTTP_HOST="localhost")
    client.force_login(manager)
    evaluation = f"/corpora/{corpus.pk}/evaluation/?source=preannotation&compare=1"
    agreement = f"/corpora/{corpus.pk}/agreement/"
    reports._enqueue = lambda job_id: None  # started, never computed here: a worker's work
    results = {"corpus": corpus.name, "documents": corpus.documents.count()}

    def fresh_start(url):
        def work():
            ReportJob.objects.filter(corpus=corpus).delete()
            response = client.get(url)
            assert response.status_code == 200 and b"job-progress" in response.content, (url, response.status_code)

        return work

    # Each run deletes the jobs first (one query) so that it starts them again.
    results["evaluation page, starting the reports (progress)"] = timed(fresh_start(evaluation), args.runs)
    results["agreement page, starting the report (progress)"] = timed(fresh_start(agreement), args.runs)
    # Each page's last fresh start deleted the other page's jobs: start both again, and
    # compute them here as a worker would (a page may start its second report, the
    # comparison, only once it has shown the first).
    ReportJob.objects.filter(corpus=corpus).delete()
    with override_settings(SANITIZE_REPORTS={"in_thread": False}):
        for _ in range(3):
            for url in (evaluation, agreement):
                client.get(url)
            pending = ReportJob.objects.filter(corpus=corpus, status="pending")
            if not pending.exists():
                break
            for job in pending:
                reports.run_report(job.pk)
    results["evaluation page, stored reports"] = timed(get(client, evaluation), args.runs)
    results["agreement page, stored report"] = timed(get(client, agreement), args.runs)

    def before_evaluation():
        evaluate_source(corpus, "preannotation")
        compare_sources(corpus)

    results["in request before: evaluation + comparison"] = timed(before_evaluation, args.compute_runs)
    results["in request before: agreement"] = timed(lambda: corpus_agreement(corpus), args.compute_runs)
    ReportJob.objects.filter(corpus=corpus).delete()
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{results.pop('corpus')} ({results.pop('documents')} documents)")
    for name, figures in results.items():
        median, p95, runs = figures["median_ms"], figures["p95_ms"], figures["runs"]
        print(f"  {name:<55} median {median:>8.1f} ms   p95 {p95:>8.1f} ms   ({runs} runs)")


if __name__ == "__main__":
    main()
