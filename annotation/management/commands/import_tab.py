from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotation.corpus_io.errors import TabImportError
from annotation.models import Corpus
from annotation.services.corpora import create_corpus
from annotation.services.corpus_import import import_tab

from ._helpers import ProgressBar


class Command(BaseCommand):
    help = (
        "Import an official TAB JSON file (train, dev or test split) into a corpus, created if "
        "needed. All or nothing: a file with any problem is rejected whole, with the list of problems."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--corpus", required=True, help="Corpus name (created if it does not exist).")

    def handle(self, *args, file: Path, corpus: str, **options):
        if not file.is_file():
            raise CommandError(f"{file} is not a file.")
        progress = ProgressBar(self.stderr, f"Importing {file.name}")
        try:
            # One transaction: a rejected file does not even leave a new, empty corpus.
            with transaction.atomic(), file.open("rb") as stream:
                target = Corpus.objects.filter(name=corpus).first() or create_corpus(corpus, actor=None)
                summary = import_tab(stream, target, actor=None, source=file.name, progress=progress.to)
        except TabImportError as exc:
            raise CommandError(f"{file}: {exc}") from None
        finally:
            progress.close()
        self.stdout.write(self.style.SUCCESS(f"Imported into {target.name}: {summary}."))
