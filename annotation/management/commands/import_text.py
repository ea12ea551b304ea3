from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotation.corpus_io.errors import TabImportError
from annotation.corpus_io.plaintext import iter_plaintext_records
from annotation.models import Corpus
from annotation.services.corpora import create_corpus
from annotation.services.corpus_import import import_records


class Command(BaseCommand):
    help = (
        "Import a folder of plain-text (.txt, UTF-8) documents. --persons names a CSV (header: "
        "file or doc_id, person[, dataset_type]) or JSON file giving each document's person to protect."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path)
        parser.add_argument("--persons", type=Path, required=True)
        parser.add_argument("--corpus", required=True, help="Corpus name (created if it does not exist).")

    def handle(self, *args, folder: Path, persons: Path, corpus: str, **options):
        folder, persons = Path(folder), Path(persons)  # call_command passes strings
        if not persons.is_file():
            raise CommandError(f"{persons} is not a file.")
        try:
            with transaction.atomic():
                target = Corpus.objects.filter(name=corpus).first() or create_corpus(corpus, actor=None)
                existing = set(target.documents.values_list("doc_id", flat=True))
                summary = import_records(
                    iter_plaintext_records(folder, persons, existing), target, actor=None, source=str(folder)
                )
        except TabImportError as exc:
            raise CommandError(f"{folder}: {exc}") from None
        self.stdout.write(self.style.SUCCESS(f"Imported into {target.name}: {summary}."))
