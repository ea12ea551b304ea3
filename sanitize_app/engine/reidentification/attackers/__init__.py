"""The pluggable re-identification attackers, by the name every figure records."""

import inspect

from ..types import ReidentificationAttacker
from .encoder_lr import EncoderLrAttacker
from .tfidf_svc import TfidfSvcAttacker
from .transformer_ft import TransformerFtAttacker

ATTACKERS = {
    TfidfSvcAttacker.name: TfidfSvcAttacker,  # the default: seconds on a CPU
    EncoderLrAttacker.name: EncoderLrAttacker,
    TransformerFtAttacker.name: TransformerFtAttacker,
}
DEFAULT_ATTACKER = TfidfSvcAttacker.name


def build_attacker(name: str, **settings) -> ReidentificationAttacker:
    """A new, unfitted attacker; ``ValueError`` names an unknown attacker or setting."""
    try:
        kind = ATTACKERS[name]
    except KeyError:
        raise ValueError(f"unknown attacker {name!r}; choose one of: {', '.join(ATTACKERS)}") from None
    accepted = set(inspect.signature(kind).parameters)
    unknown = sorted(set(settings) - accepted)
    if unknown:
        names = ", ".join(map(repr, unknown))
        raise ValueError(f"attacker {name!r} has no setting {names}; its settings: {', '.join(sorted(accepted))}")
    return kind(**settings)


__all__ = ["ATTACKERS", "DEFAULT_ATTACKER", "build_attacker"]
