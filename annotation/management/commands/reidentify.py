import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.models import ReidentificationRun
from annotation.services.errors import DomainError
from annotation.services.reidentification import attack_file
from annotation.services.reidentification_files import protected_from_release_file, protected_from_wikiactors

from ._helpers import ProgressBar

# Which option a refused value came from.
OPTION_OF_FIELD = {
    "background": "--background",
    "background_collection": "--background",
    "attacker": "--attacker",
    "column": "--column",
}
GUESSES_SHOWN = 3


class StageBars:
    """One progress bar per stage of the attack (pretreating the background, attacking)."""

    def __init__(self, stream):
        self.stream = stream
        self.stage = None
        self.bar = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self.stage:
            self.close()
            self.stage = stage
            if not total:  # a stage without units (training): its name is enough
                self.stream.write(f"{stage}...")
                return
            self.bar = ProgressBar(self.stream, stage, total)
        if self.bar is not None and total:
            self.bar.total = total
            self.bar.to(done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class Command(BaseCommand):
    help = (
        "Measure the re-identification risk (TRI) of protected documents: an attacker trained on a background "
        "(a collection imported with import_background, or a background file) names the person behind each "
        "document; TRIR is the share it names first. The documents come from a release file (the TRI frame "
        "export, which names each person) or from a column of a WikiActors frame."
    )

    def add_arguments(self, parser):
        parser.add_argument("--background", required=True, metavar="COLLECTION_OR_FILE")
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--release", metavar="FILE", help="A release file: the TRI frame export.")
        source.add_argument("--wikiactors", metavar="FILE", help="A WikiActors frame (name + one column per method).")
        parser.add_argument("--column", help="With --wikiactors: the column to attack, e.g. manual_abstract.")
        parser.add_argument(
            "--attacker", default="", choices=ReidentificationRun.Attacker.values, help="Default: the configured one."
        )
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print the results as JSON.")
        parser.add_argument("--leaking-terms", type=int, default=None, help="Leaking terms kept per document.")
        parser.add_argument("--record", action="store_true", help="Keep the run in the database (source 'file').")

    def handle(
        self, *args, background, release, wikiactors, column, attacker, as_json, leaking_terms, record, **options
    ):
        protected = self._protected(release, wikiactors, column)
        bars = StageBars(self.stderr)
        try:
            result, description, run = attack_file(
                protected,
                background=background,
                attacker=attacker,
                leaking_terms=leaking_terms,
                progress=bars,
                record=record,
            )
        except DomainError as exc:
            raise CommandError(f"{OPTION_OF_FIELD.get(exc.field, '--background')}: {exc.message}") from None
        finally:
            bars.close()
        report = {
            **result.summary(),
            "background": description.get("background"),
            "collection": description.get("collection"),
            "seconds": {"fit": description.get("fit_seconds"), "attack": round(result.attack_seconds, 3)},
            "documents": [outcome.as_dict() for outcome in result.outcomes],
        }
        if run is not None:
            report["run"] = run.pk
        if as_json:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=1))
        else:
            self._table(report, protected.label)

    def _protected(self, release: str | None, wikiactors: str | None, column: str | None):
        path = Path(release or wikiactors)
        if not path.is_file():
            raise CommandError(f"{'--release' if release else '--wikiactors'}: {path} is not a file.")
        if wikiactors and not column:
            raise CommandError("--wikiactors needs --column (e.g. original_abstract, manual_abstract).")
        if release and column:
            raise CommandError("--column goes with --wikiactors; a release file has its own text column.")
        try:
            return protected_from_release_file(path) if release else protected_from_wikiactors(path, column)
        except DomainError as exc:
            raise CommandError(f"{'--release' if release else '--wikiactors'}: {exc.message}") from None

    def _table(self, report: dict, label: str) -> None:
        write = self.stdout.write
        write(f"Re-identification of {label} by {report['attacker']} (background {report['collection']}, "
              f"{report['people']} people)")  # fmt: skip
        write(f"  TRIR      {report['TRIR']:.3f}  ({report['n']} documents)")
        write(f"  top-5     {report['top5']:.3f}")
        write(f"  baseline  {report['random_baseline']:.3f}  (a random guess among {report['people']})")
        write(f"  seconds   fit {report['seconds']['fit']}, attack {report['seconds']['attack']}")
        write("")
        write(f"  {'document':<30} {'rank':>5}  top guesses")
        for outcome in report["documents"]:
            guesses = ", ".join(name for name, _ in outcome["guesses"][:GUESSES_SHOWN])
            write(f"  {outcome['doc_id'][:30]:<30} {outcome['rank']:>5}  {guesses}")
        for item in report["skipped"]:
            write(f"  {item['doc_id'][:30]:<30} {'—':>5}  left out: {item['reason']}")
