"""The workspace's view of a layer, built from one query over its mentions."""

from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass, field

from annotation.models import AnnotationLayer

MENTION_FIELDS = (
    "id",
    "entity_id",
    "start_offset",
    "end_offset",
    "span_text",
    "entity_type",
    "identifier_type",
    "confidential_status",
    "origin",
    "edit_type",
    "prediction__identifier_type",
    "prediction__confidential_status",
)


@dataclass(slots=True)
class MentionView:
    id: int
    entity_id: int
    start_offset: int
    end_offset: int
    text: str
    entity_type: str
    identifier_type: str | None
    confidential_status: str | None
    origin: str
    edit_type: str | None
    suggested: str | None  # the pre-annotation engine's proposed identifier type
    suggested_confidential: str | None = None  # and its proposed confidential status


@dataclass
class EntityView:
    id: int
    mentions: list[MentionView] = field(default_factory=list)

    @property
    def first(self) -> MentionView:
        return self.mentions[0]

    @property
    def identifier_type(self) -> str | None:
        """The decision when all mentions share it; None when undecided or mixed."""
        kinds = {m.identifier_type for m in self.mentions}
        return kinds.pop() if len(kinds) == 1 else None

    @property
    def suggested(self) -> str | None:
        return next((m.suggested for m in self.mentions if m.suggested), None)

    @property
    def suggested_confidential(self) -> str | None:
        """The engine's confidential category for this entity, if it proposed one."""
        proposed = (m.suggested_confidential for m in self.mentions)
        return next((p for p in proposed if p and p != "NOT_CONFIDENTIAL"), None)

    @property
    def decided(self) -> bool:
        return all(m.identifier_type is not None for m in self.mentions)

    @property
    def mixed(self) -> bool:
        return len({m.identifier_type for m in self.mentions}) > 1

    @property
    def confidential_status(self) -> str | None:
        kinds = {m.confidential_status for m in self.mentions}
        return kinds.pop() if len(kinds) == 1 else None

    @property
    def confidential_mixed(self) -> bool:
        return len({m.confidential_status for m in self.mentions}) > 1

    @property
    def inconsistent(self) -> bool:
        return any(
            len({getattr(m, name) for m in self.mentions}) > 1
            for name in ("entity_type", "identifier_type", "confidential_status")
        )


@dataclass
class Block:
    """A line of the document (the text between two line breaks)."""

    index: int
    start: int
    end: int


class LayerView:
    """Mentions, entities (in document order) and line blocks of one layer."""

    def __init__(self, layer: AnnotationLayer, text: str | None = None):
        self.layer = layer
        self.text = layer.document.text if text is None else text
        rows = layer.mentions.order_by("start_offset", "end_offset", "id").values_list(*MENTION_FIELDS)
        self.mentions = [MentionView(*row) for row in rows]
        grouped: dict[int, EntityView] = {}
        for mention in self.mentions:
            grouped.setdefault(mention.entity_id, EntityView(mention.entity_id)).mentions.append(mention)
        self.entities = list(grouped.values())  # ordered by first mention
        self.blocks = self.line_blocks(self.text)
        self._block_starts = [block.start for block in self.blocks]

    @staticmethod
    def line_blocks(text: str) -> list[Block]:
        blocks, start = [], 0
        while True:
            end = text.find("\n", start)
            if end < 0:
                blocks.append(Block(len(blocks), start, len(text)))
                return blocks
            blocks.append(Block(len(blocks), start, end))
            start = end + 1

    @property
    def decided_count(self) -> int:
        return sum(1 for entity in self.entities if entity.decided)

    def entity(self, entity_id: int) -> EntityView | None:
        return next((entity for entity in self.entities if entity.id == entity_id), None)

    def block_index(self, offset: int) -> int:
        return max(0, bisect_right(self._block_starts, offset) - 1)

    def blocks_touching(self, ranges) -> list[Block]:
        """The blocks that the character ranges [start, end) overlap."""
        indexes = set()
        for start, end in ranges:
            indexes.update(range(self.block_index(start), self.block_index(max(start, end - 1)) + 1))
        return [self.blocks[i] for i in sorted(indexes)]

    def mentions_by_block(self, blocks: list[Block] | None = None) -> dict[int, list[MentionView]]:
        """Mentions per block index, for all blocks or only the given ones."""
        wanted = None if blocks is None else (blocks[0].start, blocks[-1].end, {block.index for block in blocks})
        by_block = defaultdict(list)
        for mention in self.mentions:
            if wanted and (mention.end_offset <= wanted[0] or mention.start_offset > wanted[1]):
                continue
            for index in range(self.block_index(mention.start_offset), self.block_index(mention.end_offset - 1) + 1):
                if wanted is None or index in wanted[2]:
                    by_block[index].append(mention)
        return by_block
