import json as jsonlib

from django.core.management.base import BaseCommand, CommandError

from annotation.services.errors import DomainError
from annotation.services.evaluation import evaluate_source
from sanitize_app.engine.evaluation import WordListTokenFilter

from ._helpers import get_corpus

TYPES = ["PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC"]


class Command(BaseCommand):
    help = (
        "Evaluate a masking source against the corpus's human layers with the TAB metrics (ER_di, ER_qi, token "
        "recall and precision, WP), as the official evaluation script computes them. --source: 'preannotation', "
        "'annotator:NAME' (one annotator against the others) or a masked-output file {doc_id: [[start, end]]}."
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--source", required=True)
        parser.add_argument("--annotators", nargs="+", help="Gold layers of these annotators only.")
        parser.add_argument(
            "--all-layers", action="store_true", help="Also layers not yet confirmed (default: finished ones)."
        )
        parser.add_argument(
            "--token-filter",
            choices=["spacy", "words"],
            default="spacy",
            help="spacy: the official part-of-speech filter (default, when installed); words: a word list.",
        )
        parser.add_argument("--json", action="store_true", help="Print one JSON object instead of the table.")

    def handle(self, *args, corpus, source, annotators, all_layers, token_filter, json: bool, **options):
        try:
            result = evaluate_source(
                get_corpus(corpus),
                source,
                annotators=annotators,
                finished_only=not all_layers,
                token_filter=WordListTokenFilter() if token_filter == "words" else None,
            )
        except DomainError as exc:
            raise CommandError(exc.message) from None
        if json:
            self._json(result)
        else:
            self._table(result)

    def _json(self, result) -> None:
        self.stdout.write(_dumps(result.as_dict()))

    def _table(self, result) -> None:
        report = result.report
        write = self.stdout.write
        write(f"Source: {result.source}")
        write(
            f"Gold: {len(result.annotators)} annotators ({', '.join(result.annotators)}), "
            f"{report.documents} documents, {report.direct_entities} direct and "
            f"{report.quasi_entities} quasi identifiers"
        )
        write(f"Token filter: {report.token_filter}; WP weights: uniform" + (", and LM" if result.lm_report else ""))
        write("")
        write(
            f"{'ER_di':>8} {'ER_qi':>8} {'recall':>8} {'prec.':>8} {'WP':>8}"
            + (f" {'WP(LM)':>8}" if result.lm_report else "")
        )
        values = (report.ER_di, report.ER_qi, report.token_recall, report.token_precision, report.WP)
        line = " ".join(f"{value:8.3f}" for value in values)
        write(line + (f" {result.lm_report.WP:8.3f}" if result.lm_report else ""))
        write("")
        write("False negatives per entity type (tokens left readable; recall):")
        for kind in TYPES:
            if kind in report.recall_by_type:
                write(f"  {kind:<9} {report.false_negatives_by_type[kind]:6d}  {report.recall_by_type[kind]:.3f}")
        if report.missed:
            write(f"\nMissed entities: {len(report.missed)} (first 10)")
            for missed in report.missed[:10]:
                texts = ", ".join(f"“{text}”" for _, _, text in missed.mentions[:3])
                kind = "direct" if missed.is_direct else "quasi"
                write(f"  {missed.doc_id} {missed.annotator} {missed.entity_type} ({kind}): {texts}")


def _dumps(data: dict) -> str:
    return jsonlib.dumps(data, ensure_ascii=False)
