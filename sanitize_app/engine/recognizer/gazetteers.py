"""The word lists of ``data/gazetteers`` (see its README for what each holds)."""

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .candidates import Candidate

DATA = Path(__file__).resolve().parent.parent / "data" / "gazetteers"


def read_list(name: str) -> list[str]:
    lines = (DATA / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


@dataclass(frozen=True)
class Gazetteers:
    countries: frozenset[str]
    demonyms: frozenset[str]
    occupations: frozenset[str]
    family: frozenset[str]
    religions: frozenset[str]
    health: frozenset[str]
    offences: frozenset[str]
    org_keywords: frozenset[str]
    boilerplate: frozenset[str]
    cities: frozenset[str]
    law_heads: frozenset[str]
    institution_heads: frozenset[str]

    # Which TAB type each list proposes (and whether case matters when matching).
    LISTS = (
        ("demonyms", "DEM", True),
        ("religions", "DEM", True),
        ("occupations", "DEM", False),
        ("family", "DEM", False),
        ("health", "DEM", False),
        ("offences", "MISC", False),
    )


@lru_cache(maxsize=1)
def load_gazetteers() -> Gazetteers:
    return Gazetteers(**{name: frozenset(read_list(name)) for name in Gazetteers.__dataclass_fields__})


@lru_cache(maxsize=1)
def _list_patterns() -> list[tuple[str, str, re.Pattern]]:
    gazetteers = load_gazetteers()
    patterns = []
    for name, label, case_sensitive in Gazetteers.LISTS:
        entries = sorted(getattr(gazetteers, name), key=len, reverse=True)
        alternation = "|".join(re.escape(entry) for entry in entries)
        flags = 0 if case_sensitive else re.IGNORECASE
        suffix = NATIONAL_SUFFIX if name == "demonyms" else ""
        patterns.append((name, label, re.compile(rf"(?<![\w-])(?:{alternation}){suffix}(?![\w-])", flags)))
    return patterns


def gazetteer_candidates(text: str) -> list[Candidate]:
    """Whole-word matches of the DEM and MISC lists."""
    return [
        Candidate(match.start(), match.end(), label, f"gazetteer:{name}")
        for name, label, pattern in _list_patterns()
        for match in pattern.finditer(text)
    ]


# "British national", "Turkish citizens": the status word belongs to the demonym.
NATIONAL_SUFFIX = r"(?:\s+(?:national|nationals|citizen|citizens|origin|descent|passport holder|resident))?"
