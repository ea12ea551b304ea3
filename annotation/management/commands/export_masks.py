import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus_io.masks import annotator_masked_spans

from ._helpers import get_corpus


class Command(BaseCommand):
    help = (
        "Write the masked spans of one annotator (their DIRECT and QUASI mentions) in the format "
        'of the official TAB evaluation script: {"doc_id": [[start, end], ...]}.'
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--annotator", required=True, help="Username of the annotator whose layers to export.")
        parser.add_argument("-o", "--output", type=Path, help="Output file (default: standard output).")

    def handle(self, *args, corpus: str, annotator: str, output: Path | None, **options):
        output = Path(output) if output else None  # call_command passes strings
        spans = annotator_masked_spans(get_corpus(corpus).documents.all(), annotator)
        if not spans:
            raise CommandError(f"{annotator} has no layer in corpus {corpus}.")
        text = json.dumps(spans, ensure_ascii=False)
        if output is None:
            sys.stdout.write(text + "\n")
        else:
            output.write_text(text, encoding="utf-8")
            self.stderr.write(f"Wrote the masked spans of {len(spans)} documents to {output}.")
