import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.services.exports import (
    ExportError,
    ExportFormat,
    ExportOptions,
    LayerScope,
    MaskSource,
    prepare_export,
)

from ._helpers import get_corpus


class Command(BaseCommand):
    help = (
        "Write masked spans in the format of the official TAB evaluation script: "
        '{"doc_id": [[start, end], ...]}: the DIRECT and QUASI mentions of one annotator '
        "(--annotator NAME; finished layers unless --layers all), or those the pre-annotation "
        "engine proposed (--source preannotation)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--source", choices=MaskSource.values, default=MaskSource.ANNOTATOR)
        parser.add_argument("--annotator", help="Username of the annotator whose layers to export.")
        parser.add_argument(
            "--layers",
            choices=LayerScope.values,
            default=LayerScope.FINISHED,
            help="finished (default): the annotator's confirmed, under-review and reviewed layers; all: every one.",
        )
        parser.add_argument("-o", "--output", type=Path, help="Output file (default: standard output).")

    def handle(self, *args, corpus: str, source: str, annotator: str | None, layers: str, output, **options):
        output = Path(output) if output else None  # call_command passes strings
        if source == MaskSource.PREANNOTATION and annotator:
            raise CommandError("--annotator goes with --source annotator, not with --source preannotation.")
        if source == MaskSource.ANNOTATOR and not annotator:
            raise CommandError("Name the annotator (--annotator NAME) or use --source preannotation.")
        choice = ExportOptions(ExportFormat.MASKS, layers, (annotator,) if annotator else (), source)
        try:
            export = prepare_export(get_corpus(corpus), choice)
        except ExportError as error:
            hint = " (python manage.py preannotate)" if error.field == "source" else ""
            raise CommandError(error.message + hint) from None
        if output is None:
            export.write(sys.stdout)
            sys.stdout.write("\n")
        else:
            with output.open("w", encoding="utf-8") as out:
                export.write(out)
            self.stderr.write(f"Wrote the masked spans of {corpus} ({source}) to {output}.")
