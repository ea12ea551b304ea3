"""What the risk indicators and the optimizer see of a document."""

from dataclasses import dataclass, field

Span = tuple[int, int]


@dataclass
class EntityView:
    index: int
    label: str  # TAB entity type
    mentions: list[Span]
    protected: bool = False  # a form of the person to protect's name

    def texts(self, text: str) -> list[str]:
        return [text[start:end] for start, end in self.mentions]

    def first_text(self, text: str) -> str:
        start, end = self.mentions[0]
        return text[start:end]


@dataclass
class DocumentContext:
    text: str
    person: str
    entities: list[EntityView]
    respondent_states: list[str] = field(default_factory=list)  # ISO 3166 alpha-3 codes
