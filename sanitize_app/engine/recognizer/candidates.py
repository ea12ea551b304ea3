"""A proposed span: where, which TAB type, and which part of the recognizer found it."""

from dataclasses import dataclass

# When two candidates overlap and have the same length, the more reliable source wins.
SOURCE_PRIORITY = {"person": 6, "pattern": 5, "title": 4, "ner": 3, "org": 2, "gazetteer": 2, "place": 1, "shape": 0}


@dataclass(frozen=True)
class Candidate:
    start: int
    end: int
    label: str  # one of the 8 TAB entity types
    source: str  # e.g. "pattern:date", "ner:GPE", "gazetteer:demonyms"

    @property
    def length(self) -> int:
        return self.end - self.start

    @property
    def priority(self) -> int:
        return SOURCE_PRIORITY.get(self.source.split(":", 1)[0], 0)

    def overlaps(self, other: "Candidate") -> bool:
        return self.start < other.end and other.start < self.end
