"""The release engine: one strategy applied to one document at a time.

``build_release_engine`` puts the parts together from plain settings: the rule ladders
always; with an LLM (an OpenAI-compatible endpoint), LLM hypernyms for DEM/ORG/MISC and
the LLM as the attacker; without one, the offline attacker."""

from collections.abc import Iterable

from .placeholders import PlaceholderNumbering
from .rendering import render, replacements_for
from .selection import select_by_attack
from .strategies import STRATEGIES, fixed_decisions, rule_decisions, stars
from .types import (
    ENTITY_TYPES,
    PLACEHOLDER_TYPES,
    Attacker,
    CandidateSource,
    Decision,
    ReleasedSpan,
    ReleaseInput,
    SanitizedDocument,
)

# Types whose generalizations come from the LLM when one is configured (the others have
# rules that are truthful by construction).
LLM_TYPES = ("DEM", "ORG", "MISC")
MASKED_IDENTIFIER_TYPES = ("DIRECT", "QUASI")


class ReleaseInputError(ValueError):
    """A document cannot be released as given; the message names the document and the
    mention."""


class ReleaseEngine:
    def __init__(
        self,
        strategy: str,
        *,
        rules: CandidateSource | None = None,
        llm_candidates: CandidateSource | None = None,
        attacker: Attacker | None = None,
        description: dict | None = None,
    ):
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown release strategy {strategy!r} (one of {', '.join(STRATEGIES)})")
        if strategy in ("rules", "intact") and rules is None:
            raise ValueError(f"the {strategy} strategy needs rule candidates")
        if strategy == "intact" and attacker is None:
            raise ValueError("the intact strategy needs an attacker")
        self.strategy = strategy
        self.rules = rules
        self.llm_candidates = llm_candidates
        self.attacker = attacker
        self._description = description or {}

    def settings(self) -> dict:
        """What this engine uses, for the release's record (never a secret)."""
        described = {"strategy": self.strategy}
        if self.strategy in ("rules", "intact"):
            described["candidates"] = self.rules.name
        if self.strategy == "intact":
            described["attacker"] = self.attacker.name
            described["llm_candidates"] = self.llm_candidates.name if self.llm_candidates else ""
        described.update(self._description)
        return described

    def sanitize(self, document: ReleaseInput) -> SanitizedDocument:
        validate(document)
        numbering = PlaceholderNumbering(document.entities)
        decisions = self._decisions(document, numbering)
        chosen = {decision.entity.key: decision.replacement for decision in decisions}
        if self.strategy == "stars":
            # One star per character of each mention: every offset of the original survives.
            chosen = {key: (lambda mention: stars(mention.text)) for key in chosen}
        replacements = replacements_for(document.entities, chosen)
        by_key = {decision.entity.key: decision for decision in decisions}
        spans = [
            ReleasedSpan(
                r.start,
                r.end,
                r.replacement,
                by_key[r.entity_key].entity.entity_type,
                by_key[r.entity_key].entity.identifier_type,
                by_key[r.entity_key].reason,
                r.entity_key,
            )
            for r in replacements
        ]
        return SanitizedDocument(document.doc_id, render(document.text, replacements), spans, decisions)

    def _decisions(self, document: ReleaseInput, numbering: PlaceholderNumbering) -> list[Decision]:
        if self.strategy == "rules":
            return rule_decisions(document, self.rules, numbering)
        if self.strategy == "intact":
            candidates = {e.key: self._candidates(e, document.text, numbering) for e in document.entities}
            return select_by_attack(document, candidates, self.attacker, numbering)
        return fixed_decisions(document, self.strategy, numbering)

    def _candidates(self, entity, text: str, numbering: PlaceholderNumbering) -> tuple[str, list[str]]:
        if entity.entity_type in PLACEHOLDER_TYPES:
            return "placeholder", [numbering.placeholder(entity)]
        if self.llm_candidates is not None and entity.entity_type in LLM_TYPES:
            proposed = self.llm_candidates.candidates(entity, text)
            if proposed:
                return self.llm_candidates.name, proposed
            # The LLM failed or refused: the curated tables still apply.
            return f"{self.rules.name} (the LLM gave none)", self.rules.candidates(entity, text)
        return self.rules.name, self.rules.candidates(entity, text)


def validate(document: ReleaseInput) -> None:
    """Every mention inside the text, with the text it claims, of a known type, and
    entity keys unique: a release never writes a replacement at the wrong place."""
    problems, keys = [], set()
    for entity in document.entities:
        if entity.key in keys:
            problems.append(f"entity {entity.key} appears twice")
        keys.add(entity.key)
        if entity.entity_type not in ENTITY_TYPES:
            problems.append(f"entity {entity.key} has unknown type {entity.entity_type!r}")
        if entity.identifier_type not in MASKED_IDENTIFIER_TYPES:
            problems.append(f"entity {entity.key} is {entity.identifier_type!r}, not DIRECT or QUASI")
        if not entity.mentions:
            problems.append(f"entity {entity.key} has no mention")
        for mention in entity.mentions:
            where = f"mention {mention.start}-{mention.end} of entity {entity.key}"
            if not 0 <= mention.start < mention.end <= len(document.text):
                problems.append(f"{where} is outside the text ({len(document.text)} characters)")
            elif document.text[mention.start : mention.end] != mention.text:
                found = document.text[mention.start : mention.end]
                problems.append(f"{where} reads {found!r} in the text, not {mention.text!r}")
    if problems:
        shown = "; ".join(problems[:5]) + ("; ..." if len(problems) > 5 else "")
        raise ReleaseInputError(f"document {document.doc_id}: {shown}")


def build_release_engine(
    strategy: str,
    *,
    llm_config=None,
    min_place_set: int = 5,
    cache=None,
    frequent_lemmas: Iterable[str] = (),
) -> ReleaseEngine:
    """The engine for ``strategy``. ``llm_config`` (``llm.LLMConfig``) enables the LLM
    hypernyms and attacker; ``cache`` (get/set) shares LLM answers between processes;
    ``frequent_lemmas`` are the corpus's most frequent lemmas, which never count as a
    leak when a guess shares them with the original."""
    if strategy not in ("rules", "intact"):
        return ReleaseEngine(strategy)
    from .attackers import LLMAttacker, OfflineAttacker
    from .generalization.rules import RuleCandidates
    from .matching import Matcher

    rules = RuleCandidates()
    if strategy == "rules":
        return ReleaseEngine(strategy, rules=rules)
    matcher = Matcher(frozenset(frequent_lemmas))
    offline = OfflineAttacker(matcher, min_place_set=min_place_set)
    if llm_config is None:
        return ReleaseEngine(strategy, rules=rules, attacker=offline, description={"llm": ""})
    from .llm import build_llm_client
    from .llm_candidates import LLMCandidates

    loaded = build_llm_client(llm_config, cache=cache)
    if loaded.client is None:
        # Configured but unusable (no model, not an URL): say why in the release's record.
        return ReleaseEngine(
            strategy, rules=rules, attacker=offline, description={"llm": "", "llm_unavailable": loaded.reason}
        )
    return ReleaseEngine(
        strategy,
        rules=rules,
        llm_candidates=LLMCandidates(loaded.client),
        attacker=LLMAttacker(loaded.client, matcher),
        description={"llm": loaded.client.describe()},
    )
