import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from annotation.corpus_io.tab_writer import iter_tab_documents, write_tab_json

from ._helpers import get_corpus


class Command(BaseCommand):
    help = "Export a corpus in the TAB JSON format (every document, every annotator's layer)."

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("-o", "--output", type=Path, help="Output file (default: standard output).")
        parser.add_argument(
            "--finished-only",
            action="store_true",
            help="Only layers that are confirmed, under review or reviewed.",
        )

    def handle(self, *args, corpus: str, output: Path | None, finished_only: bool, **options):
        output = Path(output) if output else None  # call_command passes strings
        documents = iter_tab_documents(get_corpus(corpus).documents.all(), finished_only=finished_only)
        if output is None:
            count = write_tab_json(documents, sys.stdout)
            sys.stdout.write("\n")
        else:
            with output.open("w", encoding="utf-8") as out:
                count = write_tab_json(documents, out)
            self.stderr.write(f"Wrote {count} documents to {output}.")
