"""Storing validated documents with a handful of bulk INSERTs per batch.

Annotator names become user accounts (the parser has checked them against the username
rule: no name such as ``../x`` or ``<script>`` becomes an account). A name that is not
an account yet becomes a new inactive account (it cannot log in until a manager
activates it) and joins the corpus as an annotator. A name that is an account already is
accepted only when that account is a member of this corpus (in any role; it gains the
annotator role): an import never enrols an existing account of another corpus, since
that would give an outsider access to this corpus. Such a name is refused naming the
annotator and the document; the manager adds the account on the corpus's Team page first
if it is the same person, or renames the annotator in the file.
"""

from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.utils import timezone

from ..enums import EditType, LayerStatus, Origin, Role
from ..models import AnnotationLayer, Corpus, CorpusMembership, Document, Entity, Mention, MentionLink
from .errors import Problem, TabImportError
from .fast_insert import db_value, insert_rows
from .records import DocumentRecord, MentionRecord

BATCH_SIZE = 2000


@dataclass
class ImportSummary:
    documents: int = 0
    layers: int = 0
    entities: int = 0
    mentions: int = 0
    links: int = 0
    created_annotators: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return dict(self.__dict__)

    def __str__(self) -> str:
        created = (
            f", {len(self.created_annotators)} new (inactive) annotator accounts" if self.created_annotators else ""
        )
        return (
            f"{self.documents} documents, {self.layers} layers, {self.entities} entities, "
            f"{self.mentions} mentions, {self.links} related-mention links{created}"
        )


def _origin(record: MentionRecord) -> str:
    """A span the annotator inserted is manual; a checked or corrected one came from the
    pre-annotation."""
    return Origin.MANUAL if record.edit_type == EditType.INSERT else Origin.PREANNOTATION


MENTION_COLUMNS = (
    "layer_id",
    "entity_id",
    "tab_mention_id",
    "start_offset",
    "end_offset",
    "span_text",
    "entity_type",
    "identifier_type",
    "confidential_status",
    "edit_type",
    "origin",
    "original_start",
    "original_end",
    "original_entity_type",
    "related_mentions_present",
    "position",
    "tab_extra",
)


def _mention_row(record: MentionRecord, layer_id: int, entity_id: int) -> tuple:
    # A checked span is, by definition, the proposal itself: remember it as such so that
    # a later edit turns it into "correct".
    checked = record.edit_type == EditType.CHECK
    return (
        layer_id,
        entity_id,
        record.tab_mention_id,
        record.start_offset,
        record.end_offset,
        record.span_text,
        record.entity_type,
        record.identifier_type,
        record.confidential_status,
        record.edit_type,
        _origin(record),
        record.start_offset if checked else None,
        record.end_offset if checked else None,
        record.entity_type if checked else None,
        record.related_mentions is not None,
        record.position,
        db_value(Mention, "tab_extra", record.extra),
    )


class CorpusBuilder:
    """Buffers documents and writes them in batches of about ``BATCH_SIZE`` mentions."""

    def __init__(self, corpus: Corpus, *, first_position: int = 0):
        self.corpus = corpus
        self.first_position = first_position
        self.summary = ImportSummary()
        self._pending: list[DocumentRecord] = []
        self._pending_mentions = 0
        self._users: dict[str, object] = {}
        self._now = timezone.now()

    def add(self, record: DocumentRecord) -> None:
        self._pending.append(record)
        self._pending_mentions += record.mention_count
        if self._pending_mentions >= BATCH_SIZE or len(self._pending) >= 200:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        batch, self._pending, self._pending_mentions = self._pending, [], 0
        self._ensure_annotators(batch)
        documents = Document.objects.bulk_create([self._document(record) for record in batch], batch_size=BATCH_SIZE)
        layer_pairs = [
            (
                layer_record,
                AnnotationLayer(
                    document=document,
                    annotator=self._users[layer_record.annotator],
                    status=LayerStatus.REVIEWED if layer_record.quality_checked else LayerStatus.CONFIRMED,
                    position=layer_record.position,
                    tab_extra=layer_record.extra,
                    confirmed_at=self._now,
                    reviewed_at=self._now if layer_record.quality_checked else None,
                ),
            )
            for record, document in zip(batch, documents, strict=True)
            for layer_record in record.layers
        ]
        AnnotationLayer.objects.bulk_create([layer for _, layer in layer_pairs], batch_size=BATCH_SIZE)
        self._write_annotations(layer_pairs)
        self.summary.documents += len(documents)
        self.summary.layers += len(layer_pairs)

    def _write_annotations(self, layer_pairs) -> None:
        """Entities, mentions and links of freshly created layers, by plain INSERTs;
        generated keys are read back by their TAB ids."""
        layer_ids = [layer.pk for _, layer in layer_pairs]
        entity_keys = list(
            dict.fromkeys(
                (layer.pk, record.tab_entity_id)
                for layer_record, layer in layer_pairs
                for record in layer_record.mentions
            )
        )
        insert_rows(Entity, ("layer_id", "tab_entity_id"), entity_keys)
        entity_ids = {
            (layer_id, tab_id): pk
            for pk, layer_id, tab_id in Entity.objects.filter(layer_id__in=layer_ids).values_list(
                "id", "layer_id", "tab_entity_id"
            )
        }
        mentions = [(layer.pk, record) for layer_record, layer in layer_pairs for record in layer_record.mentions]
        insert_rows(
            Mention,
            MENTION_COLUMNS,
            (
                _mention_row(record, layer_id, entity_ids[(layer_id, record.tab_entity_id)])
                for layer_id, record in mentions
            ),
        )
        links = self._links([(layer_id, record) for layer_id, record in mentions if record.related_mentions])
        insert_rows(MentionLink, ("source_id", "target_id", "position"), links)
        self.summary.entities += len(entity_keys)
        self.summary.mentions += len(mentions)
        self.summary.links += len(links)

    @staticmethod
    def _links(linked: list[tuple[int, MentionRecord]]) -> list[tuple[int, int, int]]:
        if not linked:
            return []
        mention_ids = {
            (layer_id, tab_id): pk
            for pk, layer_id, tab_id in Mention.objects.filter(
                layer_id__in={layer_id for layer_id, _ in linked}
            ).values_list("id", "layer_id", "tab_mention_id")
        }
        return [
            (mention_ids[(layer_id, record.tab_mention_id)], mention_ids[(layer_id, target)], position)
            for layer_id, record in linked
            for position, target in enumerate(record.related_mentions)
        ]

    def _document(self, record: DocumentRecord) -> Document:
        return Document(
            corpus=self.corpus,
            doc_id=record.doc_id,
            text=record.text,
            person_to_protect=record.person_to_protect,
            task=record.task,
            meta=record.meta,
            dataset_type=record.dataset_type,
            position=self.first_position + record.position,
            tab_absent_keys=record.absent_keys,
            tab_extra=record.extra,
        )

    def _ensure_annotators(self, batch: list[DocumentRecord]) -> None:
        names = {layer.annotator for record in batch for layer in record.layers}
        missing = names - self._users.keys()
        if not missing:
            return
        User = get_user_model()
        existing = {user.username: user for user in User.objects.filter(username__in=missing)}
        self._refuse_outsiders(batch, existing)
        new_names = sorted(missing - existing.keys())
        for name in new_names:
            user = User(username=name, is_active=False)
            user.set_unusable_password()
            existing[name] = user
        User.objects.bulk_create([existing[name] for name in new_names])
        if new_names:
            # bulk_create does not return primary keys on every backend for this model.
            existing.update({user.username: user for user in User.objects.filter(username__in=new_names)})
        self.summary.created_annotators += new_names
        CorpusMembership.objects.bulk_create(
            [CorpusMembership(corpus=self.corpus, user=existing[name], role=Role.ANNOTATOR) for name in missing],
            ignore_conflicts=True,
        )
        self._users.update(existing)

    def _refuse_outsiders(self, batch: list[DocumentRecord], existing: dict[str, object]) -> None:
        """Refuse existing accounts that are not members of this corpus, each named with
        the first document of the batch where it annotates."""
        members = set(
            CorpusMembership.objects.filter(corpus=self.corpus, user__in=list(existing.values())).values_list(
                "user__username", flat=True
            )
        )
        outsiders = set(existing) - members
        if not outsiders:
            return
        first_document: dict[str, str] = {}
        for record in batch:
            for layer in record.layers:
                if layer.annotator in outsiders:
                    first_document.setdefault(layer.annotator, record.doc_id)
        raise TabImportError(
            [
                Problem(
                    f"{name} is an existing account that is not a member of corpus {self.corpus.name}; an import "
                    "never enrols another corpus's account. If it is the same person, add them to this corpus "
                    "(Team page) and import again; otherwise rename the annotator in the file.",
                    document=first_document[name],
                    annotator=name,
                )
                for name in sorted(outsiders, key=lambda name: (first_document[name], name))
            ]
        )
