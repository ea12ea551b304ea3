"""Validating one raw TAB document into records, collecting every problem it has.

The rules are those of the official files (``../shared/DESIGN.md`` §3): offsets are code
point indices with ``text[start:end] == span_text``; enum values are the TAB strings;
mention ids are unique in a layer; ``related_mentions`` point at mentions of the same
layer; ``quality_checked`` names annotators of the document. Keys this application does
not model are kept verbatim, and optional keys that were absent stay absent on export.
"""

import re

from django.contrib.auth import get_user_model

from sanitize_app.engine import tab_document

from ..enums import ConfidentialStatus, DatasetType, EditType, EntityType, IdentifierType
from .errors import Problem, quote
from .limits import MAX_ID_LENGTH
from .records import DocumentRecord, LayerRecord, MentionRecord
from .tab_reader import Unreadable

DOCUMENT_KEYS = ("doc_id", "text", "dataset_type", "task", "meta", "quality_checked", "annotations")
OPTIONAL_DOCUMENT_KEYS = ("dataset_type", "task", "meta", "quality_checked", "annotations")
MENTION_KEYS = (
    "entity_mention_id",
    "entity_id",
    "entity_type",
    "start_offset",
    "end_offset",
    "span_text",
    "identifier_type",
    "confidential_status",
    "edit_type",
    "related_mentions",
)
# Frozen sets: ``TextChoices.values`` builds a new list on every access, and the
# parser checks hundreds of thousands of values on a full corpus.
ENTITY_TYPES = frozenset(EntityType.values)
OPTIONAL_ENUMS = (
    ("identifier_type", frozenset(IdentifierType.values)),
    ("confidential_status", frozenset(ConfidentialStatus.values)),
    ("edit_type", frozenset(EditType.values)),
)
DATASET_TYPES = frozenset([*DatasetType.values, ""])
# Ids appear in URLs, file names and messages: no control characters (tab, newline, ...).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _one_of(value, allowed: frozenset) -> bool:
    return isinstance(value, str) and value in allowed  # a list or object is not hashable


def _id_problem(value, name: str) -> str | None:
    if not isinstance(value, str) or not value:
        return f"{name} must be a non-empty string, got {quote(value)}"
    if len(value) > MAX_ID_LENGTH:
        return f"{name} is longer than {MAX_ID_LENGTH} characters"
    if _CONTROL.search(value):
        return f"{name} {quote(value)} holds a control character"
    return None


def _annotator_problem(name: str) -> str | None:
    """Annotator names become account names: the same rule as any username (letters,
    digits and @ . + - _, at most 150 characters), so that a name like
    ``../../etc/passwd`` or ``<script>`` never becomes an account."""
    User = get_user_model()
    max_length = User._meta.get_field(User.USERNAME_FIELD).max_length
    if not name or len(name) > max_length or not _USERNAME.match(name):
        return (
            f"the annotator name {quote(name)} is not a valid account name: 1 to {max_length} letters, "
            "digits and @ . + - _"
        )
    return None


# django.contrib.auth.validators.UnicodeUsernameValidator, without building a validator
# (and its translated message) for each of the layers of a corpus.
_USERNAME = re.compile(r"[\w.@+-]+\Z")


class ProblemList:
    """The problems of one document; each names the document it belongs to."""

    def __init__(self, document: str):
        self.document = document
        self.items: list[Problem] = []

    def __call__(self, message: str, **where) -> None:
        self.items.append(Problem(message, document=self.document, **where))

    def __len__(self) -> int:
        return len(self.items)


class DocumentParser:
    """Parses the documents of one file, remembering doc_ids already seen."""

    def __init__(self, existing_doc_ids: set[str] | None = None):
        self.seen_doc_ids: set[str] = set()
        self.existing_doc_ids = existing_doc_ids or set()

    def parse(self, raw: object, index: int) -> tuple[DocumentRecord | None, list[Problem]]:
        """Return the record (None if invalid) and the problems found."""
        if isinstance(raw, Unreadable):
            return None, raw.problems
        if not isinstance(raw, dict):
            return None, [
                Problem(f"is a {type(raw).__name__}, not a JSON object", document=f"#{index + 1} in the file")
            ]
        doc_id = raw.get("doc_id")
        problem = ProblemList(doc_id if _id_problem(doc_id, "doc_id") is None else f"#{index + 1} in the file")
        self._check_doc_id(doc_id, problem)
        text = raw.get("text")
        if not isinstance(text, str) or not text:
            problem(f"text must be a non-empty string, got {type(text).__name__}", field="text")
            return None, problem.items
        header = self._parse_header(raw, problem)
        annotations = raw.get("annotations", {})
        if not isinstance(annotations, dict):
            problem("annotations must be an object mapping annotator names to layers", field="annotations")
            return None, problem.items
        quality_checked = header.pop("quality_checked")
        for name in quality_checked:
            if name not in annotations:
                problem(
                    f"quality_checked names {quote(name)}, who has no layer in this document", field="quality_checked"
                )
        layers = [
            self._parse_layer(name, layer, text, position, name in quality_checked, problem)
            for position, (name, layer) in enumerate(annotations.items())
        ]
        if problem:
            return None, problem.items
        return DocumentRecord(doc_id=doc_id, text=text, layers=layers, position=index, **header), []

    def _check_doc_id(self, doc_id, problem) -> None:
        message = _id_problem(doc_id, "doc_id")
        if message:
            problem(message, field="doc_id")
        elif doc_id in self.seen_doc_ids:
            problem("doc_id appears twice in the file", field="doc_id")
        elif doc_id in self.existing_doc_ids:
            problem("a document with this doc_id is already in the corpus", field="doc_id")
        else:
            self.seen_doc_ids.add(doc_id)

    def _parse_header(self, raw: dict, problem) -> dict:
        absent = [key for key in OPTIONAL_DOCUMENT_KEYS if key not in raw]
        dataset_type = raw.get("dataset_type", "")
        if not _one_of(dataset_type, DATASET_TYPES):
            problem(f"dataset_type {quote(dataset_type)} is not one of train, dev, test", field="dataset_type")
        task = raw.get("task", "")
        if not isinstance(task, str):
            problem("task must be a string", field="task")
            task = ""
        meta = raw.get("meta", {})
        if not isinstance(meta, dict):
            problem("meta must be an object", field="meta")
            meta = {}
        quality_checked = raw.get("quality_checked", [])
        if not isinstance(quality_checked, list) or not all(isinstance(name, str) for name in quality_checked):
            problem("quality_checked must be a list of annotator names", field="quality_checked")
            quality_checked = []
        elif len(set(quality_checked)) != len(quality_checked):
            problem("quality_checked names an annotator twice", field="quality_checked")
        person = tab_document.person_to_protect({"task": task, "meta": meta})
        return {
            "dataset_type": dataset_type if isinstance(dataset_type, str) else "",
            "task": task,
            "meta": meta,
            "person_to_protect": person[:300],
            "quality_checked": quality_checked,
            "absent_keys": absent,
            "extra": {key: value for key, value in raw.items() if key not in DOCUMENT_KEYS},
        }

    def _parse_layer(self, name: str, layer, text: str, position: int, quality_checked: bool, problem) -> LayerRecord:
        record = LayerRecord(annotator=name, mentions=[], quality_checked=quality_checked, position=position)
        message = _annotator_problem(name)
        if message:
            problem(message, annotator=quote(name))
            return record
        if not isinstance(layer, dict) or not isinstance(layer.get("entity_mentions"), list):
            problem("a layer must be an object with an entity_mentions list", annotator=name, field="entity_mentions")
            return record
        record.extra = {key: value for key, value in layer.items() if key != "entity_mentions"}
        ids = set()
        for index, raw in enumerate(layer["entity_mentions"]):
            mention = _parse_mention(raw, index, text, name, problem)
            if mention is None:
                continue
            if mention.tab_mention_id in ids:
                problem("entity_mention_id is used twice in this layer", annotator=name, mention=mention.tab_mention_id)
            ids.add(mention.tab_mention_id)
            record.mentions.append(mention)
        for mention in record.mentions:
            _check_related(mention, ids, name, problem)
        return record


def _parse_mention(raw, index: int, text: str, annotator: str, problem: ProblemList) -> MentionRecord | None:
    if not isinstance(raw, dict):
        problem(f"entity_mentions[{index}] is not a JSON object", annotator=annotator)
        return None
    mention_id = raw.get("entity_mention_id")
    label = mention_id if _id_problem(mention_id, "") is None else f"entity_mentions[{index}]"

    def bad(message: str, field: str) -> None:
        problem(message, annotator=annotator, mention=label, field=field)

    count_before = len(problem)
    for name in ("entity_mention_id", "entity_id"):
        message = _id_problem(raw.get(name), name)
        if message:
            bad(message, name)
    entity_type = raw.get("entity_type")
    if not _one_of(entity_type, ENTITY_TYPES):
        bad(f"{quote(entity_type)} is not one of {', '.join(EntityType.values)}", "entity_type")
    for name, allowed in OPTIONAL_ENUMS:
        if name in raw and not _one_of(raw[name], allowed):
            bad(f"{quote(raw[name])} is not one of {', '.join(sorted(allowed))}", name)
    start, end, span_text = raw.get("start_offset"), raw.get("end_offset"), raw.get("span_text")
    _check_offsets(start, end, span_text, text, bad)
    related = raw.get("related_mentions")
    if "related_mentions" in raw and (not isinstance(related, list) or not all(isinstance(r, str) for r in related)):
        bad("related_mentions must be a list of mention ids", "related_mentions")
    if len(problem) > count_before:
        return None
    return MentionRecord(
        tab_mention_id=mention_id,
        tab_entity_id=raw["entity_id"],
        entity_type=entity_type,
        start_offset=start,
        end_offset=end,
        span_text=span_text,
        identifier_type=raw.get("identifier_type"),
        confidential_status=raw.get("confidential_status"),
        edit_type=raw.get("edit_type"),
        related_mentions=list(related) if "related_mentions" in raw else None,
        position=index,
        extra={key: value for key, value in raw.items() if key not in MENTION_KEYS},
    )


def _check_offsets(start, end, span_text, text: str, bad) -> None:
    if not _is_int(start) or not _is_int(end):
        bad(f"offsets must be integers, got start_offset={quote(start)}, end_offset={quote(end)}", "start_offset")
        return
    if not 0 <= start < end <= len(text):
        bad(f"offsets {start}:{end} are outside the text (0:{len(text)}) or empty", "start_offset")
        return
    if not isinstance(span_text, str):
        bad("span_text must be a string", "span_text")
    elif text[start:end] != span_text:
        bad(
            f"span_text {quote(span_text)} does not match the text at {start}:{end} ({quote(text[start:end])})",
            "span_text",
        )


def _check_related(mention: MentionRecord, ids: set[str], annotator: str, problem) -> None:
    if not mention.related_mentions:
        return
    where = {"annotator": annotator, "mention": mention.tab_mention_id, "field": "related_mentions"}
    for target in mention.related_mentions:
        if target == mention.tab_mention_id:
            problem("a mention cannot be related to itself", **where)
        elif target not in ids:
            problem(f"{quote(target)} is not a mention of this layer", **where)
    if len(set(mention.related_mentions)) != len(mention.related_mentions):
        problem("names a related mention twice", **where)
