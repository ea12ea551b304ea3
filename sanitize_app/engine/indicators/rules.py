"""The fallback when no model-based indicator is available: the TAB guidelines as rules.

Every recognised entity is a quasi identifier except what names the respondent state
itself (the state, its government: public in any judgment against it). Privacy first:
this masks almost everything, as the guidelines ask when in doubt."""

import json
from functools import lru_cache
from pathlib import Path

from ..context import DocumentContext
from .base import IndicatorOutput, Judgement

STATES = Path(__file__).resolve().parent.parent / "data" / "respondent_states.json"


@lru_cache(maxsize=1)
def _states() -> dict:
    return json.loads(STATES.read_text(encoding="utf-8"))["states"]


def state_phrases(codes: list[str]) -> set[str]:
    """How a judgment names the respondent state and its government."""
    phrases = set()
    for code in codes:
        state = _states().get(code.strip().upper())
        if not state:
            continue
        adjective = state["adjective"]
        for name in state["names"]:
            phrases |= {name, f"the {name}", f"Government of {name}", f"{name} Government", f"State of {name}"}
        phrases |= {f"{adjective} Government", f"{adjective} State", f"{adjective} authorities"}
    return phrases


class GuidelineRules:
    name = "guideline rules"
    available = True
    unavailable_reason = ""

    def assess(self, context: DocumentContext) -> IndicatorOutput:
        safe = state_phrases(context.respondent_states)
        output = IndicatorOutput(self.name)
        for entity in context.entities:
            texts = set(entity.texts(context.text))
            if texts <= safe:
                output.entities[entity.index] = Judgement(0.0, False, "names the respondent state, public in the case")
            else:
                output.entities[entity.index] = Judgement(
                    1.0, True, f"{entity.label}: a quasi identifier by default (guidelines)"
                )
        return output
