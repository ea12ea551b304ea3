import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.services.exports import ExportError, ExportFormat, ExportOptions, LayerScope, prepare_export

from ._helpers import get_corpus


class Command(BaseCommand):
    help = (
        "Export a corpus in the TAB JSON format: every document, with its finished layers (confirmed, "
        "under review, reviewed) or all of them, of every annotator or of the ones named."
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("-o", "--output", type=Path, help="Output file (default: standard output).")
        parser.add_argument(
            "--layers",
            choices=LayerScope.values,
            default=LayerScope.FINISHED,
            help="finished (default): confirmed, under-review and reviewed layers only; all: unfinished ones too.",
        )
        parser.add_argument(
            "--finished-only",
            action="store_true",
            help="The same as --layers finished (the default), kept for older scripts.",
        )
        parser.add_argument("--annotators", nargs="+", default=[], metavar="NAME", help="Only these annotators.")

    def handle(self, *args, corpus: str, output: Path | None, layers: str, finished_only: bool, annotators, **options):
        output = Path(output) if output else None  # call_command passes strings
        corpus_object = get_corpus(corpus)
        choice = ExportOptions(
            ExportFormat.TAB, LayerScope.FINISHED if finished_only else layers, tuple(annotators or ())
        )
        try:
            export = prepare_export(corpus_object, choice)
        except ExportError as error:
            raise CommandError(error.message) from None
        if output is None:
            export.write(sys.stdout)
            sys.stdout.write("\n")
        else:
            with output.open("w", encoding="utf-8") as out:
                export.write(out)
            count = corpus_object.documents.count()
            self.stderr.write(f"Wrote {count} documents of {corpus_object.name} ({choice.layers} layers) to {output}.")
