import subprocess
import sys

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
