import json
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotation.corpus_io.records import DocumentRecord
from annotation.enums import LayerStatus, Role
from annotation.models import AnnotationLayer, Corpus, Document
from annotation.services.background import import_background
from annotation.services.corpora import add_member, create_corpus, set_background_collection
from annotation.services.corpus_import import import_records, import_tab
from annotation.services.layers import add_reviewer, assign_layer
from annotation.services.preannotation import run_counts, start_run
from annotation.tasks import enqueue_preannotation

DEMO_FILE = Path(settings.BASE_DIR) / "data" / "tab" / "tab_dev_sample.json"
DEMO_CORPUS = "TAB demo (dev sample)"
ACCOUNTS = (
    ("manager", "demo-manager", Role.MANAGER),
    ("annotator", "demo-annotator", Role.ANNOTATOR),
    ("reviewer", "demo-reviewer", Role.REVIEWER),
)
ASSIGNED_DOCUMENTS = 5
REVIEWED_LAYERS = 3
# The risk meter's demo: actors' Wikipedia abstracts to protect, and the bodies of the same
# 50 actors' articles as the attacker's background (data/wikiactors, CC BY-SA).
WIKIACTORS_FILE = Path(settings.BASE_DIR) / "data" / "wikiactors" / "WikiActors_50_eval.json"
WIKIACTORS_COLLECTION = "wikiactors-50"
WIKIACTORS_CORPUS = "WikiActors demo (actors' abstracts)"
WIKIACTORS_PEOPLE = ("Bruce Willis", "Hugh Jackman", "Martin Freeman", "Orlando Bloom", "Peter Dinklage", "Zoe Saldana")


class Command(BaseCommand):
    help = (
        "Load the demo corpora (41 real TAB documents; six WikiActors abstracts with the re-identification "
        "risk meter and its background) and demo accounts. Development only."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--no-preannotate", action="store_true", help="Do not run the engine over the annotator's documents."
        )

    def handle(self, *args, no_preannotate: bool = False, **options):
        if not settings.DEBUG:
            raise CommandError("load_demo creates accounts with published passwords: it runs only with DEBUG on.")
        with transaction.atomic():
            corpus = self._corpus()
            users = self._accounts(corpus)
            self._assignments(corpus, users)
            actors = self._wikiactors(users)
        for demo in (corpus, actors):
            if not no_preannotate and not demo.preannotation_runs.exists():
                self._preannotate(demo, users[Role.ANNOTATOR])
            self.stdout.write(
                self.style.SUCCESS(
                    f"Demo corpus '{demo.name}': {demo.documents.count()} documents, "
                    f"{AnnotationLayer.objects.filter(document__corpus=demo).count()} layers."
                )
            )
        # After pre-annotating: the web-search indicator searches every background document,
        # and 50 long articles make it slow on PostgreSQL (a minute for these 11 documents).
        self._background(actors)
        self.stdout.write("Demo logins (username / password):")
        for username, password, role in ACCOUNTS:
            self.stdout.write(f"  {username:<10} / {password:<15} {role}")

    def _corpus(self) -> Corpus:
        corpus = Corpus.objects.filter(name=DEMO_CORPUS).first()
        if corpus is None:
            corpus = create_corpus(
                DEMO_CORPUS,
                actor=None,
                description=("41 court cases of the TAB dev split with the layers of their original annotators."),
            )
        if not corpus.documents.exists():
            with DEMO_FILE.open("rb") as stream:
                summary = import_tab(stream, corpus, actor=None, source=DEMO_FILE.name)
            self.stdout.write(f"Imported {DEMO_FILE.name}: {summary}.")
        return corpus

    def _accounts(self, corpus: Corpus) -> dict:
        User = get_user_model()
        users = {}
        for username, password, role in ACCOUNTS:
            user, _ = User.objects.get_or_create(username=username)
            user.set_password(password)
            user.is_active = True
            user.save()
            add_member(corpus, user, role, actor=None)
            users[role] = user
        users[Role.MANAGER].user_permissions.add(Permission.objects.get(codename="add_corpus"))
        return users

    def _preannotate(self, corpus: Corpus, annotator) -> None:
        """The demo annotator's documents start from the engine's proposals."""
        documents = list(annotator.layers.filter(document__corpus=corpus).values_list("document__doc_id", flat=True))
        run = start_run(corpus, documents=documents)
        enqueue_preannotation(run)  # in-process on the embedded default
        counts = run_counts(run)
        self.stdout.write(f"Pre-annotated {counts['done']} documents (run {run.pk}; {counts['pending']} still queued).")

    def _assignments(self, corpus: Corpus, users: dict) -> None:
        annotator, reviewer = users[Role.ANNOTATOR], users[Role.REVIEWER]
        if not annotator.layers.filter(document__corpus=corpus).exists():
            for document in corpus.documents.order_by("position")[:ASSIGNED_DOCUMENTS]:
                assign_layer(document, annotator, actor=None)
        if not reviewer.review_assignments.exists():
            confirmed = (
                AnnotationLayer.objects.filter(document__corpus=corpus, status=LayerStatus.CONFIRMED)
                .exclude(annotator=annotator)
                .order_by("document__position", "position")[:REVIEWED_LAYERS]
            )
            for layer in confirmed:
                add_reviewer(layer, reviewer, actor=None)

    def _wikiactors(self, users: dict) -> Corpus:
        """Six actors' abstracts to protect, assigned to the demo annotator."""
        corpus = Corpus.objects.filter(name=WIKIACTORS_CORPUS).first()
        if corpus is None:
            corpus = create_corpus(
                WIKIACTORS_CORPUS,
                actor=None,
                description=(
                    "Six actors' Wikipedia abstracts (WikiActors, CC BY-SA): the workspace's risk meter shows "
                    f"how well an attacker trained on the articles of {WIKIACTORS_COLLECTION} names each actor."
                ),
            )
        for role in (Role.MANAGER, Role.ANNOTATOR):
            add_member(corpus, users[role], role, actor=None)
        if not corpus.documents.exists():
            rows = {row["name"]: row for row in json.loads(WIKIACTORS_FILE.read_text(encoding="utf-8"))}
            records = [(_abstract(rows[name], position), []) for position, name in enumerate(WIKIACTORS_PEOPLE)]
            import_records(records, corpus, actor=None, source=WIKIACTORS_FILE.name)
        annotator = users[Role.ANNOTATOR]
        if not annotator.layers.filter(document__corpus=corpus).exists():
            for document in corpus.documents.order_by("position"):
                assign_layer(document, annotator, actor=None)
        return corpus

    def _background(self, actors: Corpus) -> None:
        """The background of the workspace's risk meter: the 50 actors' article bodies."""
        added = import_background(WIKIACTORS_FILE, WIKIACTORS_COLLECTION)
        if added:
            self.stdout.write(f"Imported {added} background documents into '{WIKIACTORS_COLLECTION}'.")
        set_background_collection(actors, WIKIACTORS_COLLECTION, actor=None)


def _abstract(row: dict, position: int) -> DocumentRecord:
    name = row["name"]
    return DocumentRecord(
        doc_id=f"wikiactors-{name.lower().replace(' ', '-')}",
        text=row["original_abstract"],
        person_to_protect=name,
        task=Document.task_for(name),
        meta={"source": "WikiActors (English Wikipedia, CC BY-SA)"},
        dataset_type="",
        layers=[],
        position=position,
    )
