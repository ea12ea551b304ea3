"""A document to annotate, with the one person it must protect."""

from django.db import models
from django.db.models.functions import Length

from sanitize_app.engine import tab_document

from ..enums import DatasetType
from .corpus import Corpus

TASK_PREFIX = "Task: Annotate the document to anonymise the following person: "


class Document(models.Model):
    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="documents")
    doc_id = models.CharField(max_length=200, help_text="Identifier of the document, unique within its corpus.")
    text = models.TextField(help_text="Offsets of mentions are Python code-point indices into this text.")
    # Computed by the database (code points, as Python counts them); the mention
    # triggers check offsets against it without reading the text itself.
    text_length = models.GeneratedField(
        expression=Length("text"), output_field=models.PositiveIntegerField(), db_persist=True
    )
    person_to_protect = models.CharField(max_length=300, blank=True)
    task = models.TextField(blank=True, help_text="The TAB task string shown to annotators.")
    meta = models.JSONField(default=dict, blank=True)
    dataset_type = models.CharField(max_length=10, choices=DatasetType.choices, blank=True)
    # Order of the document in the file it came from, so an export follows the import.
    position = models.PositiveIntegerField(default=0)
    # Round-trip bookkeeping for the TAB format: optional top-level keys the source
    # file did not have, and keys this application does not model (kept verbatim).
    tab_absent_keys = models.JSONField(default=list, blank=True)
    tab_extra = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["corpus", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["corpus", "doc_id"], name="document_doc_id_unique_in_corpus"),
            models.CheckConstraint(
                condition=models.Q(dataset_type__in=[*DatasetType.values, ""]), name="document_dataset_type_valid"
            ),
            models.CheckConstraint(condition=~models.Q(doc_id=""), name="document_doc_id_not_empty"),
        ]

    def __str__(self) -> str:
        return self.doc_id

    @staticmethod
    def task_for(person: str) -> str:
        return f"{TASK_PREFIX}{person}"

    @property
    def protected_person(self) -> str:
        """Who the document protects: ``person_to_protect``, else the person its TAB task
        string names ("" when neither says)."""
        return self.person_to_protect.strip() or self.person_from_task(self.task).strip()

    @staticmethod
    def person_from_task(task: str) -> str:
        """The person named by a TAB task string ('' when the string has another shape)."""
        return tab_document.person_from_task(task)
