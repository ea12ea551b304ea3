"""Plain records of a validated document, between parsing and storing."""

from dataclasses import dataclass, field


@dataclass
class MentionRecord:
    tab_mention_id: str
    tab_entity_id: str
    entity_type: str
    start_offset: int
    end_offset: int
    span_text: str
    identifier_type: str | None
    confidential_status: str | None
    edit_type: str | None
    related_mentions: list[str] | None  # None: the key was absent
    position: int
    extra: dict = field(default_factory=dict)


@dataclass
class LayerRecord:
    annotator: str
    mentions: list[MentionRecord]
    quality_checked: bool
    position: int
    extra: dict = field(default_factory=dict)


@dataclass
class DocumentRecord:
    doc_id: str
    text: str
    person_to_protect: str
    task: str
    meta: dict
    dataset_type: str
    layers: list[LayerRecord]
    position: int
    absent_keys: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @property
    def mention_count(self) -> int:
        return sum(len(layer.mentions) for layer in self.layers)
