"""Documents to release built from the repository's real TAB documents."""

import json
from pathlib import Path

import pytest

from sanitize_app.engine.release.inputs import tab_layer_input
from sanitize_app.engine.release.types import ReleaseInput

SAMPLE = Path(__file__).resolve().parents[4] / "data" / "tab" / "tab_dev_sample.json"


@pytest.fixture(scope="session")
def tab_documents() -> list[dict]:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def first_document(tab_documents) -> ReleaseInput:
    """001-83927, annotator1: 38 mentions (an application number, the applicant Mr
    Cengiz Polat, his lawyer Mr E. Kanar, dates, a prison, an organisation...)."""
    document = next(d for d in tab_documents if d["doc_id"] == "001-83927")
    return tab_layer_input(document, "annotator1")
