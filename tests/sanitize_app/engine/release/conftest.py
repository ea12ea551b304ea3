"""Documents to release built from the repository's real TAB documents."""

import json
from collections import defaultdict
from pathlib import Path

import pytest

from sanitize_app.engine.release.types import Mention, ReleaseEntity, ReleaseInput

SAMPLE = Path(__file__).resolve().parents[4] / "data" / "tab" / "tab_dev_sample.json"


def release_input(document: dict, annotator: str) -> ReleaseInput:
    """The DIRECT and QUASI entities of one annotator's layer, mentions in text order."""
    grouped = defaultdict(list)
    types = {}
    for mention in document["annotations"][annotator]["entity_mentions"]:
        if mention["identifier_type"] not in ("DIRECT", "QUASI"):
            continue
        grouped[mention["entity_id"]].append(
            Mention(mention["start_offset"], mention["end_offset"], mention["span_text"])
        )
        types[mention["entity_id"]] = (mention["entity_type"], mention["identifier_type"])
    entities = [
        ReleaseEntity(key, types[key][0], types[key][1], sorted(mentions, key=lambda m: m.start))
        for key, mentions in grouped.items()
    ]
    entities.sort(key=lambda e: e.first.start)
    return ReleaseInput(document["doc_id"], document["text"], entities)


@pytest.fixture(scope="session")
def tab_documents() -> list[dict]:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def first_document(tab_documents) -> ReleaseInput:
    """001-83927, annotator1: 38 mentions (an application number, the applicant Mr
    Cengiz Polat, his lawyer Mr E. Kanar, dates, a prison, an organisation...)."""
    document = next(d for d in tab_documents if d["doc_id"] == "001-83927")
    return release_input(document, "annotator1")
