"""Numbered placeholders (``PERSON_1``, ``CODE_2``): one number per entity, the same for
every mention of it and for every entity of the document that is written the same way.

Numbers are given per type in order of first appearance, so ``PERSON_1`` is the first
person the reader meets. Two entities that an annotator left apart but that share a
mention text ("Mr Yılmaz" in two entities) get one number: a reader must not be told
that they are two people when the original does not say so."""

import re
from collections import defaultdict

from .types import ReleaseEntity

_SPACES = re.compile(r"\s+")


def _normalized(text: str) -> str:
    return _SPACES.sub(" ", text).strip().lower()


class PlaceholderNumbering:
    def __init__(self, entities: list[ReleaseEntity]):
        self._numbers: dict[str, int] = {}
        counters: dict[str, int] = defaultdict(int)
        by_text: dict[tuple[str, str], int] = {}
        for entity in sorted(entities, key=lambda e: (e.first.start, e.first.end)):
            keys = [(entity.entity_type, _normalized(m.text)) for m in entity.mentions]
            number = next((by_text[key] for key in keys if key in by_text), None)
            if number is None:
                counters[entity.entity_type] += 1
                number = counters[entity.entity_type]
            for key in keys:
                by_text.setdefault(key, number)
            self._numbers[entity.key] = number

    def number(self, entity: ReleaseEntity) -> int:
        return self._numbers[entity.key]

    def placeholder(self, entity: ReleaseEntity) -> str:
        return f"{entity.entity_type}_{self.number(entity)}"
