from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus_io.errors import TabImportError
from annotation.services.background import import_background


class Command(BaseCommand):
    help = (
        "Load a background corpus for the web-search risk indicator: a JSON list of WikiActors rows "
        "(name, public_knowledge) or of {title, url, text} objects, or JSON lines."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--collection", default="", help="Name of the collection (default: the file name).")
        parser.add_argument("--replace", action="store_true", help="Replace the collection's documents.")

    def handle(self, *args, file: Path, collection: str, replace: bool, **options):
        file = Path(file)
        if not file.is_file():
            raise CommandError(f"{file} is not a file.")
        name = collection or file.stem
        try:
            count = import_background(file, name, replace=replace)
        except TabImportError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(f"Imported {count} background documents into collection {name!r}."))
