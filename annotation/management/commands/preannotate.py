import time

from django.core.management.base import BaseCommand, CommandError

from annotation.models import PreannotationRun
from annotation.services import preannotation
from annotation.services.errors import DomainError
from annotation.services.preannotation import run_counts
from annotation.tasks import enqueue_preannotation

from ._helpers import ProgressBar, get_corpus


class Command(BaseCommand):
    help = (
        "Pre-annotate a corpus's documents with the engine (Celery tasks in batches; in-process when no broker "
        "is configured). Annotators' open layers receive the proposals; what they changed is never replaced."
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--documents", nargs="+", metavar="DOC_ID", help="Only these documents.")
        parser.add_argument("--no-wait", action="store_true", help="Enqueue and return without waiting.")
        parser.add_argument("--timeout", type=float, default=3600, help="Seconds to wait for the workers.")

    def handle(self, *args, corpus: str, documents, no_wait: bool, timeout: float, **options):
        target = get_corpus(corpus)
        try:
            run = preannotation.start_run(target, documents=documents)
        except DomainError as exc:
            raise CommandError(str(exc)) from None
        bar = ProgressBar(self.stderr, f"Pre-annotating {target.name}", run.total)
        enqueue_preannotation(run, after_each=lambda: bar.to(self._finished(run)))
        if no_wait:
            bar.close()
            self.stdout.write(f"Run {run.pk} enqueued: {run.total} documents.")
            return
        deadline = time.monotonic() + timeout
        while (counts := run_counts(run))["pending"] and time.monotonic() < deadline:
            bar.to(counts["done"] + counts["failed"])
            time.sleep(0.5)
        bar.to(counts["done"] + counts["failed"])
        bar.close()
        run.refresh_from_db()
        self._report(run, counts)

    @staticmethod
    def _finished(run: PreannotationRun) -> int:
        counts = run_counts(run)
        return counts["done"] + counts["failed"]

    def _report(self, run: PreannotationRun, counts: dict) -> None:
        engine = run.engine or {}
        self.stdout.write(f"Recognizer: {engine.get('recognizer', '?')}")
        self.stdout.write(f"Information content: {engine.get('information_content', '?')}")
        for indicator in engine.get("indicators", []):
            state = "available" if indicator["available"] else f"unavailable ({indicator['reason']})"
            self.stdout.write(f"  {indicator['name']}: {state}")
        for item in run.run_documents.filter(status="failed").select_related("document")[:20]:
            self.stderr.write(f"  {item.document.doc_id} failed: {item.error}")
        if counts["pending"]:
            raise CommandError(
                f"Run {run.pk}: {counts['pending']} documents still pending (are workers consuming the "
                "'preannotation' queue?)."
            )
        summary = f"Run {run.pk}: {counts['done']} documents pre-annotated, {counts['failed']} failed."
        if counts["failed"]:
            raise CommandError(summary)
        self.stdout.write(self.style.SUCCESS(summary))
