"""Evaluating masking sources against a corpus's layers: the TAB paper's worked example
(§6.4) stored through the real importer, evaluated from a masked-output file, from one
annotator against the other, and through the ``evaluate`` command."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.services.errors import DomainError
from annotation.services.evaluation import evaluate_source
from sanitize_app.engine.evaluation import WordListTokenFilter

pytestmark = pytest.mark.django_db

TEXT = (
    "The applicant, John Doe, lodged application no. 12345/67. He is British and a researcher "
    "from the Kingdom of Sweden. On 1 October 2021 Doe was heard."
)


def span(text: str, occurrence: int = 0) -> list[int]:
    start = -1
    for _ in range(occurrence + 1):
        start = TEXT.index(text, start + 1)
    return [start, start + len(text)]


def layer(prefix: str, decisions: dict[str, str]) -> dict:
    rows = [
        ("e1", "John Doe", 0, "PERSON", "DIRECT"),
        ("e2", "12345/67", 0, "CODE", "DIRECT"),
        ("e3", "British", 0, "DEM", decisions["British"]),
        ("e4", "researcher", 0, "DEM", decisions["researcher"]),
        ("e5", "Kingdom of Sweden", 0, "LOC", decisions["Kingdom of Sweden"]),
        ("e6", "1 October 2021", 0, "DATETIME", "QUASI"),
        ("e1", "Doe", 1, "PERSON", "DIRECT"),
    ]
    mentions = []
    for number, (entity, text, occurrence, kind, identifier) in enumerate(rows, start=1):
        start, end = span(text, occurrence)
        mentions.append(
            {
                "entity_type": kind,
                "entity_mention_id": f"we_{prefix}_em{number}",
                "start_offset": start,
                "end_offset": end,
                "span_text": text,
                "edit_type": "check",
                "identifier_type": identifier,
                "entity_id": f"we_{prefix}_{entity}",
                "confidential_status": "NOT_CONFIDENTIAL",
            }
        )
    return {"entity_mentions": mentions}


WORKED_EXAMPLE = {
    "doc_id": "worked-example",
    "text": TEXT,
    "task": "Task: Annotate the document to anonymise the following person: John Doe",
    "annotations": {
        "annotator1": layer("a1", {"British": "QUASI", "researcher": "NO_MASK", "Kingdom of Sweden": "NO_MASK"}),
        "annotator2": layer("a2", {"British": "NO_MASK", "researcher": "QUASI", "Kingdom of Sweden": "QUASI"}),
    },
    "quality_checked": ["annotator1", "annotator2"],
}
SYSTEM_A = [span("12345/67"), span("John Doe"), span("Doe", 1), span("1 October 2021")]
SYSTEM_B = [span("John Doe"), span("Doe", 1), span("Kingdom of Sweden"), span("1 October 2021")]


@pytest.fixture
def worked(corpus, import_documents):
    import_documents(corpus, [WORKED_EXAMPLE])
    return corpus


@pytest.fixture
def masked_file(tmp_path):
    def write(spans, name="system.json"):
        path = tmp_path / name
        path.write_text(json.dumps(spans), encoding="utf-8")
        return str(path)

    return write


def test_the_worked_example_gives_the_papers_figures(worked, masked_file):
    words = WordListTokenFilter()
    a = evaluate_source(worked, masked_file({"worked-example": SYSTEM_A}), token_filter=words).report
    assert (a.ER_di, a.ER_qi, a.WP) == (1.0, pytest.approx(0.4), 1.0)  # (2+2)/(2+2), (1+1)/(2+3), (8+8)/(8+8)
    b = evaluate_source(worked, masked_file({"worked-example": SYSTEM_B}), token_filter=words).report
    assert b.ER_di == 0.5  # (2+0)/(2+2): the application number is readable
    assert b.ER_qi == pytest.approx(0.6)  # (1+2)/(2+3)
    # 9 system tokens (John Doe Doe Kingdom of Sweden 1 October 2021); annotator 1 masked
    # 6 of them (not Kingdom of Sweden), annotator 2 all 9 ("of" inside its span).
    assert b.WP == pytest.approx((6 + 9) / (9 + 9))


def test_one_annotator_against_the_other(worked):
    result = evaluate_source(worked, "annotator:annotator1", token_filter=WordListTokenFilter())
    assert result.annotators == ["annotator2"]
    # annotator1 masks both direct entities of annotator2 and the date, not "researcher"
    # nor "Kingdom of Sweden": ER_qi = 1/3.
    assert result.report.ER_di == 1.0 and result.report.ER_qi == pytest.approx(1 / 3)


def test_bad_sources_are_named(worked, masked_file):
    with pytest.raises(DomainError, match="document nope is not in the corpus"):
        evaluate_source(worked, masked_file({"nope": []}))
    with pytest.raises(DomainError, match=r"span \[5, 500\] is not \[start, end\] inside its text"):
        evaluate_source(worked, masked_file({"worked-example": [[5, 500]]}))
    with pytest.raises(DomainError, match="has been pre-annotated"):
        evaluate_source(worked, "preannotation")
    with pytest.raises(DomainError, match="nobody has no layer"):
        evaluate_source(worked, "annotator:nobody")
    with pytest.raises(DomainError, match="No finished layer of annotator9"):
        evaluate_source(worked, masked_file({"worked-example": SYSTEM_A}), annotators=["annotator9"])


def test_the_evaluate_command_prints_a_table_or_json(worked, masked_file):
    path = masked_file({"worked-example": SYSTEM_B})
    out = io.StringIO()
    call_command("evaluate", corpus=worked.name, source=path, token_filter="words", json=True, stdout=out)
    data = json.loads(out.getvalue())
    assert {key: data[key] for key in ("ER_di", "ER_qi")} == {"ER_di": 0.5, "ER_qi": pytest.approx(0.6)}
    assert set(data) >= {"ER_di", "ER_qi", "token_recall", "token_precision", "WP"}
    out = io.StringIO()
    call_command("evaluate", corpus=worked.name, source=path, token_filter="words", stdout=out)
    table = out.getvalue()
    assert "   0.500    0.600" in table and "CODE" in table and "worked-example annotator1 CODE (direct)" in table
    with pytest.raises(CommandError, match="is not a readable JSON file"):
        call_command("evaluate", corpus=worked.name, source=path + ".missing")
