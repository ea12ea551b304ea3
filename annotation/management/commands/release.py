import os
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Release
from annotation.services.errors import DomainError
from annotation.services.release_exports import FORMATS, export_release
from annotation.services.releases import run_batch, start_release
from annotation.tasks import release_batches

from ._helpers import ProgressBar, get_corpus

# Which option a refused value came from.
OPTION_OF_FIELD = {
    "strategy": "--strategy",
    "source": "--source",
    "annotator": "--source",
    "format": "--format",
    "attack_guided_top_k": "--attack-guided-top-k",
}


class Command(BaseCommand):
    help = (
        "Sanitize a corpus into a release (in this process, through the same services as the workers) and write "
        "it to FILE: sanitized texts with their spans (json), a zip of texts, the masked-output file (masks) or a "
        "TRI frame (tri). The original text is never written."
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument(
            "--source",
            required=True,
            metavar="reviewed|annotator:NAME|preannotation",
            help="Whose spans: reviewed layers first, one annotator's layers, or the newest pre-annotation.",
        )
        parser.add_argument("--strategy", required=True, choices=Release.Strategy.values)
        parser.add_argument("-o", "--output", required=True, metavar="FILE")
        parser.add_argument("--format", default="json", choices=FORMATS)
        parser.add_argument(
            "--attack-guided-top-k",
            type=int,
            default=None,
            metavar="K",
            help="Also mask what keeps the protected person in the re-identification attacker's first K guesses "
            "(needs the corpus's background collection).",
        )

    def handle(self, *args, corpus: str, source: str, strategy: str, output: str, format: str, **options):
        top_k = options.get("attack_guided_top_k")
        target = get_corpus(corpus)
        path = checked_output(output)
        source, annotator = parse_source(source)
        try:
            release = start_release(
                target, source=source, annotator=annotator, strategy=strategy, actor=None, attack_guided_top_k=top_k
            )
        except DomainError as exc:
            raise CommandError(f"{OPTION_OF_FIELD.get(exc.field, '--source')}: {exc.message}") from None
        self._run(release)
        release.refresh_from_db()
        for item in release.documents.filter(status="failed").select_related("document")[:20]:
            self.stderr.write(f"  {item.document.doc_id} failed: {item.error}")
        if release.status != Release.Status.SUCCEEDED:
            raise CommandError(f"Release {release.pk} failed: {release.error or 'no document was sanitized'}")
        try:
            _, _, content = export_release(release, format)
        except DomainError as exc:
            raise CommandError(f"{OPTION_OF_FIELD.get(exc.field, '--format')}: {exc.message}") from None
        write_atomically(path, content)
        self._summary(release, path)

    def _run(self, release: Release) -> None:
        with ProgressBar(self.stderr, f"Release {release.pk} ({release.strategy})", release.total) as bar:
            for batch in release_batches(release):
                run_batch(release.pk, batch)
                bar.update(len(batch))

    def _summary(self, release: Release, path: Path) -> None:
        metrics = release.metrics
        documents = metrics.get("documents", {})
        seconds = metrics.get("seconds_per_document", {})
        paths = ", ".join(f"{name} {count}" for name, count in metrics.get("paths", {}).items())
        self.stdout.write(
            f"TPS {fmt(metrics.get('TPS'))} (worst document {fmt(metrics.get('TPS_worst'))}; {metrics.get('ic')}; "
            f"{metrics.get('embedder')})"
        )
        self.stdout.write(f"ER_di {fmt(metrics.get('ER_di'))}  ER_qi {fmt(metrics.get('ER_qi'))}")
        self.stdout.write(f"Decisions by path: {paths}")
        self.stdout.write(f"Seconds per document: median {seconds.get('median')}, p95 {seconds.get('p95')}")
        skipped = metrics.get("skipped", [])
        if skipped:
            self.stdout.write(f"Skipped {len(skipped)} documents: " + "; ".join(sorted({s["reason"] for s in skipped})))
        self.stdout.write(
            self.style.SUCCESS(
                f"Release {release.pk}: {documents.get('done', 0)} documents sanitized, "
                f"{documents.get('failed', 0)} failed, written to {path}."
            )
        )


def fmt(value) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def parse_source(value: str) -> tuple[str, str | None]:
    """("annotator", NAME) for "annotator:NAME", else (value, None)."""
    if value.startswith("annotator:"):
        name = value.split(":", 1)[1].strip()
        if not name:
            raise CommandError("--source: annotator:NAME needs the annotator's user name.")
        return Release.Source.ANNOTATOR, name
    if value == Release.Source.ANNOTATOR:
        raise CommandError("--source: write annotator:NAME to name the annotator.")
    return value, None


def checked_output(output: str) -> Path:
    path = Path(output)
    if path.is_dir():
        raise CommandError(f"-o/--output: {output} is a directory; give a file name.")
    if not path.parent.resolve().is_dir():
        raise CommandError(f"-o/--output: the directory {path.parent} does not exist.")
    return path


def write_atomically(path: Path, content: bytes) -> None:
    """Write through a temporary file in the same directory, renamed over ``path`` once
    complete: a failure leaves no half-written file."""
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent.resolve(), prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
        os.replace(temporary, path)
    except BaseException as exc:
        if temporary:
            Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise CommandError(f"-o/--output: cannot write {path}: {exc}") from None
        raise
