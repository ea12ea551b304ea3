"""Release strategies: how each entity of a document is replaced.

Every strategy decides per entity (all its mentions get one replacement) and returns
the decisions in document order:

- ``suppress``: the mention is removed;
- ``stars``: one ``*`` per character (line breaks kept: the layout and every offset of
  the original survive);
- ``label``: the entity type (``[PERSON]``);
- ``placeholder``: the numbered type (``PERSON_1``), one number per entity;
- ``rules``: the most specific rule generalization (dates, quantities, places, curated
  hypernyms), numbered placeholders for names and codes, the numbered type otherwise;
- ``intact``: candidates from specific to general, the first one an inference attack
  cannot invert (``selection``)."""

from .placeholders import PlaceholderNumbering
from .types import PATH_FALLBACK, PATH_FIXED, PLACEHOLDER_TYPES, CandidateSource, Decision, ReleaseInput

STRATEGIES = ("suppress", "stars", "label", "placeholder", "rules", "intact")


def stars(text: str) -> str:
    return "".join("\n" if char == "\n" else "*" for char in text)


def fixed_decisions(document: ReleaseInput, strategy: str, numbering: PlaceholderNumbering) -> list[Decision]:
    """The strategies without a choice: one replacement per entity by construction."""
    decisions = []
    for entity in document.entities:
        if strategy == "suppress":
            replacement, reason = "", "suppressed"
        elif strategy == "stars":
            # The first mention's stars; the engine writes each mention's own.
            replacement, reason = stars(entity.original), "masked with stars"
        elif strategy == "label":
            replacement, reason = f"[{entity.entity_type}]", "replaced by its entity type"
        elif strategy == "placeholder":
            replacement, reason = numbering.placeholder(entity), "replaced by a numbered placeholder"
        else:
            raise ValueError(f"{strategy!r} is not a strategy without a choice")
        decisions.append(Decision(entity, replacement, PATH_FIXED, reason))
    return decisions


def rule_decisions(document: ReleaseInput, rules: CandidateSource, numbering: PlaceholderNumbering) -> list[Decision]:
    """Each entity at its most specific rule generalization (no attack: the utility
    ceiling of truthful generalization, INTACT's "most specific")."""
    decisions = []
    for entity in document.entities:
        placeholder = numbering.placeholder(entity)
        if entity.entity_type in PLACEHOLDER_TYPES:
            decisions.append(
                Decision(entity, placeholder, PATH_FIXED, "a numbered placeholder", [placeholder], "placeholder")
            )
            continue
        candidates = rules.candidates(entity, document.text)
        if candidates:
            reason = "the most specific rule generalization"
            decisions.append(Decision(entity, candidates[0], PATH_FIXED, reason, candidates, rules.name))
        else:
            reason = f"no rule generalizes this {entity.entity_type}: the numbered type"
            decisions.append(Decision(entity, placeholder, PATH_FALLBACK, reason, [], rules.name))
    return decisions
