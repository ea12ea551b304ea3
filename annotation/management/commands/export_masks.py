import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus_io.masks import annotator_masked_spans
from annotation.services.preannotation import predicted_masked_spans

from ._helpers import get_corpus


class Command(BaseCommand):
    help = (
        "Write masked spans in the format of the official TAB evaluation script: "
        '{"doc_id": [[start, end], ...]}: the DIRECT and QUASI mentions of one annotator '
        "(--annotator NAME), or those the pre-annotation engine proposed (--source preannotation)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--source", choices=["annotator", "preannotation"], default="annotator")
        parser.add_argument("--annotator", help="Username of the annotator whose layers to export.")
        parser.add_argument("-o", "--output", type=Path, help="Output file (default: standard output).")

    def handle(self, *args, corpus: str, source: str, annotator: str | None, output: Path | None, **options):
        output = Path(output) if output else None  # call_command passes strings
        documents = get_corpus(corpus).documents.all()
        if source == "preannotation":
            if annotator:
                raise CommandError("--annotator goes with --source annotator, not with --source preannotation.")
            spans = predicted_masked_spans(documents)
            if not spans:
                raise CommandError(
                    f"No document of corpus {corpus} has been pre-annotated (python manage.py preannotate)."
                )
        else:
            if not annotator:
                raise CommandError("Name the annotator (--annotator NAME) or use --source preannotation.")
            spans = annotator_masked_spans(documents, annotator)
            if not spans:
                raise CommandError(f"{annotator} has no layer in corpus {corpus}.")
        text = json.dumps(spans, ensure_ascii=False)
        if output is None:
            sys.stdout.write(text + "\n")
        else:
            output.write_text(text, encoding="utf-8")
            self.stderr.write(f"Wrote the masked spans of {len(spans)} documents to {output}.")
