import subprocess
import sys

import pytest

from sanitize_app.engine.masking import MaskedReviewRenderer, MaskSpan, merge_intervals
from tests.conftest import REPO


def test_direct_and_quasi_are_masked_character_by_character():
    text = "Mr Galip Yalman, a Turkish national,\nborn in 1961, is Muslim."
    spans = [
        MaskSpan(3, 15, "DIRECT"),
        MaskSpan(19, 26, "QUASI"),
        MaskSpan(45, 49, "NO_MASK"),
        MaskSpan(54, 60, "NO_MASK", "BELIEF"),
    ]
    document = MaskedReviewRenderer().render(text, spans)
    assert document.text == "Mr ************, a ******* national,\nborn in 1961, is Muslim."
    assert len(document.text) == len(text)
    assert document.masked == [(3, 15), (19, 26)]
    assert document.confidential == [(54, 60, "BELIEF")]


def test_overlapping_spans_and_line_breaks():
    text = "Galip\nYalman lives here"
    document = MaskedReviewRenderer("#").render(text, [MaskSpan(0, 8, "QUASI"), MaskSpan(6, 12, "DIRECT")])
    assert document.text == "#####\n###### lives here"
    assert merge_intervals([(5, 7), (0, 3), (2, 4), (7, 9)]) == [(0, 4), (5, 9)]


def test_the_engine_imports_nothing_from_django():
    code = (
        "import sys, sanitize_app.engine.masking; "
        "sys.exit(1 if any(m.startswith('django') for m in sys.modules) else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0


def test_label_style_replaces_each_masked_stretch_by_its_entity_type():
    text = "Mr John Smith, born 1970, is a Catholic from Oslo."
    #       0123456789012345678901234567890123456789012345678
    spans = [
        MaskSpan(3, 13, "DIRECT", None, "PERSON"),
        MaskSpan(20, 24, "QUASI", None, "DATETIME"),
        MaskSpan(31, 39, "NO_MASK", "BELIEF", "DEM"),
        MaskSpan(45, 49, "QUASI", None, "LOC"),
    ]
    document = MaskedReviewRenderer(style="labels").render(text, spans)
    assert document.text == "Mr [PERSON], born [DATETIME], is a Catholic from [LOC]."
    # "[PERSON]" is 8 characters for 10 ("John Smith"): -2; "[DATETIME]" 10 for 4: +6
    assert document.masked == [(3, 11), (18, 28), (49, 54)]
    assert document.confidential == [(35, 43, "BELIEF")]
    assert document.text[35:43] == "Catholic"


def test_a_confidential_span_partly_masked_keeps_only_its_readable_part():
    text = "He has HIV since 2001."
    spans = [MaskSpan(7, 21, "NO_MASK", "HEALTH", "MISC"), MaskSpan(17, 21, "QUASI", None, "DATETIME")]
    stars = MaskedReviewRenderer().render(text, spans)
    assert stars.text == "He has HIV since ****."
    assert stars.confidential == [(7, 17, "HEALTH")]
    labels = MaskedReviewRenderer(style="labels").render(text, spans)
    assert labels.text == "He has HIV since [DATETIME]."
    assert labels.confidential == [(7, 17, "HEALTH")]
    fully = MaskedReviewRenderer().render(text, [MaskSpan(7, 10, "QUASI", "HEALTH", "MISC")])
    assert fully.confidential == []


def test_an_unknown_style_is_refused():
    with pytest.raises(ValueError, match="style"):
        MaskedReviewRenderer(style="blur")
