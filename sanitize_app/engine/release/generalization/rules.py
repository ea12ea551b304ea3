"""The rule ladders as a candidate source: each entity is generalized from its first
mention by the rules of its type. PERSON and CODE get none (the coordinator numbers
them as placeholders); a type whose rules do not know the mention gets [] and the
caller falls back."""

from ..types import CANDIDATES_PER_ENTITY, ReleaseEntity
from .dates import datetime_candidates
from .hypernyms import HYPERNYM_TYPES, hypernym_candidates
from .places import location_candidates
from .quantities import quantity_candidates


class RuleCandidates:
    """A ``CandidateSource`` built from the date, quantity, place and hypernym rules."""

    name = "rules"

    def candidates(self, entity: ReleaseEntity, text: str) -> list[str]:
        if not entity.mentions:
            raise ValueError(f"entity {entity.key!r} has no mention to generalize")
        original = entity.first.text
        kind = entity.entity_type
        if kind == "DATETIME":
            ladder = datetime_candidates(original)
        elif kind == "QUANTITY":
            ladder = quantity_candidates(original)
        elif kind == "LOC":
            ladder = location_candidates(original, context=text)
        elif kind in HYPERNYM_TYPES:
            ladder = hypernym_candidates(kind, original)
        else:  # PERSON, CODE: numbered placeholders, not generalizations
            ladder = []
        return ladder[:CANDIDATES_PER_ENTITY]
