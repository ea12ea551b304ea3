"""Gold annotations as the official TAB script reads them: entities per annotator."""

from collections.abc import Iterable
from dataclasses import dataclass, field

MASKED = ("DIRECT", "QUASI")


@dataclass
class GoldEntity:
    """One entity of one annotator. It needs masking if any of its mentions does; it
    counts as a direct identifier if its first mention (in file order) is DIRECT."""

    entity_id: str
    annotator: str
    entity_type: str
    mentions: list[tuple[int, int]] = field(default_factory=list)
    mention_masking: list[bool] = field(default_factory=list)
    is_direct: bool = False

    @property
    def need_masking(self) -> bool:
        return any(self.mention_masking)


@dataclass
class GoldDocument:
    doc_id: str
    text: str
    entities: list[GoldEntity]

    @property
    def annotators(self) -> set[str]:
        return {entity.annotator for entity in self.entities}

    def entities_to_mask(self, include_direct: bool = True, include_quasi: bool = True) -> list[GoldEntity]:
        return [
            entity
            for entity in self.entities
            if entity.need_masking and (include_direct if entity.is_direct else include_quasi)
        ]

    @classmethod
    def from_tab(cls, document: dict, annotators: Iterable[str] | None = None) -> "GoldDocument":
        """From a TAB document dict, keeping only the given annotators' layers."""
        wanted = None if annotators is None else set(annotators)
        entities = []
        for annotator, layer in document.get("annotations", {}).items():
            if wanted is not None and annotator not in wanted:
                continue
            by_id: dict[str, GoldEntity] = {}
            for mention in layer["entity_mentions"]:
                masked = mention.get("identifier_type") in MASKED
                entity = by_id.get(mention["entity_id"])
                if entity is None:
                    entity = GoldEntity(
                        mention["entity_id"],
                        annotator,
                        mention.get("entity_type", ""),
                        is_direct=mention.get("identifier_type") == "DIRECT",
                    )
                    by_id[mention["entity_id"]] = entity
                entity.mentions.append((mention["start_offset"], mention["end_offset"]))
                entity.mention_masking.append(masked)
            entities.extend(by_id.values())
        return cls(document["doc_id"], document["text"], entities)


@dataclass
class GoldCorpus:
    documents: dict[str, GoldDocument]

    @classmethod
    def from_tab(cls, documents: Iterable[dict], annotators: Iterable[str] | None = None) -> "GoldCorpus":
        annotators = None if annotators is None else list(annotators)
        parsed = (GoldDocument.from_tab(document, annotators) for document in documents)
        return cls({document.doc_id: document for document in parsed})
