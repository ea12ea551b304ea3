import json as jsonlib
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.services.errors import DomainError
from annotation.services.release_metrics import score_release_data

from ._helpers import get_corpus


class Command(BaseCommand):
    help = (
        "Score a sanitized release (the release's JSON export: [{doc_id, text, spans: [{start, end, replacement, "
        "...}]}], offsets into the original) against its corpus: TPS (the utility it keeps) with the information "
        "content and embedder used, and ER_di / ER_qi against every finished layer."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="A release in the JSON export format.")
        parser.add_argument("--corpus", required=True, help="The corpus holding the original documents.")
        parser.add_argument("--json", action="store_true", help="Print one JSON object instead of the table.")

    def handle(self, *args, file: str, corpus: str, json: bool, **options):
        target = get_corpus(corpus)
        path = Path(file)
        try:
            data = jsonlib.loads(path.read_text(encoding="utf-8-sig"))
        except FileNotFoundError:
            raise CommandError(f"{path}: no such file.") from None
        except (OSError, UnicodeDecodeError, jsonlib.JSONDecodeError) as exc:
            raise CommandError(f"{path} is not a readable JSON file: {exc}") from None
        try:
            result = score_release_data(target, data)
        except DomainError as exc:
            raise CommandError(f"{path}: {exc.message}") from None
        if json:
            self.stdout.write(jsonlib.dumps(result, ensure_ascii=False))
        else:
            self._table(path, target.name, result)

    def _table(self, path: Path, corpus: str, result: dict) -> None:
        write = self.stdout.write

        def figure(value) -> str:
            return "—" if value is None else f"{value:.3f}"

        write(f"Release: {path} ({result['documents']} documents of corpus {corpus})")
        write(f"Information content: {result['ic']}")
        write(f"Embedder: {result['embedder']}")
        write("")
        write(f"{'TPS':>8} {'ER_di':>8} {'ER_qi':>8} {'recall':>8} {'prec.':>8}")
        keys = ("TPS", "ER_di", "ER_qi", "token_recall", "token_precision")
        write(" ".join(f"{figure(result[key]):>8}" for key in keys))
        if result.get("ER_unavailable"):
            write(f"\nNo ER: {result['ER_unavailable']}")
        if result["TPS"] is None:
            write("\nNo TPS: the embedder is unavailable.")
