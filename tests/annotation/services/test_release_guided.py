"""Attack-guided masking as a release option, on the five-person fixture as a corpus
(tests/support/guided_corpus.py): the strategy masks nothing, guided masking does it all."""

import re

import pytest

from annotation.models import Release, ReleaseDecision, ReleaseDocument
from annotation.services.errors import DomainError
from annotation.services.release_guided import ranks_summary
from annotation.services.releases import run_batch, start_release
from tests.support.five_people import EXPECTED_RE_IDENTIFIED, MASKABLE, PROTECTED
from tests.support.guided_corpus import COLLECTION, five_people_corpus

pytestmark = pytest.mark.django_db

REASON = re.compile(r"^added because it re-identified (.+) \(rank (\d+) → (\d+)\)")


@pytest.fixture
def five_people(corpus, people):
    return five_people_corpus(corpus, people["ann"])


@pytest.fixture
def without_tps(settings):
    """No encoder, so no TPS: these tests are about what is masked (TPS has its own)."""
    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "encoder": ""}


def released(corpus, manager, top_k: int) -> Release:
    release = start_release(corpus, source="reviewed", strategy="label", actor=manager, attack_guided_top_k=top_k)
    run_batch(release.pk, list(corpus.documents.values_list("pk", flat=True)))
    release.refresh_from_db()
    return release


def test_a_release_with_attack_guided_masking_masks_what_re_identified_each_person(five_people, people, without_tps):
    release = released(five_people, people["manager"], top_k=1)

    assert release.status == Release.Status.SUCCEEDED, release.error
    guided = release.settings["attack_guided"]
    assert (guided["top_k"], guided["background"], guided["attacker"]) == (1, COLLECTION, "tfidf-svc")
    assert guided["attacker_description"]["people"] == 5 and guided["attacker_description"]["collection"] == COLLECTION
    decisions = ReleaseDecision.objects.filter(release_document__release=release)
    assert set(decisions.values_list("path", flat=True)) == {"attack"}  # the empty layers gave the strategy nothing
    by_doc = {}
    for decision in decisions.select_related("release_document__document"):
        by_doc.setdefault(decision.release_document.document.doc_id, []).append(decision)
    assert set(by_doc) == EXPECTED_RE_IDENTIFIED  # Dora was not named first: nothing to add
    for doc_id, found in by_doc.items():
        person = next(row["person"] for row in PROTECTED if row["doc_id"] == doc_id)
        first = REASON.match(found[0].reason) if found else None
        assert all(REASON.match(d.reason) and REASON.match(d.reason).group(1) == person for d in found), doc_id
        assert first is not None
        item = ReleaseDocument.objects.get(release=release, document__doc_id=doc_id)
        assert all(span["reason"].startswith("added because") for span in item.spans)
        assert {tuple(m) for d in found for m in d.mentions} == {(s["start"], s["end"]) for s in item.spans}
        assert release.metrics["attack_ranks"][doc_id]["rank_before"] == 1
        assert release.metrics["attack_ranks"][doc_id]["rank_after"] > 1
    ada = ReleaseDocument.objects.get(release=release, document__doc_id="doc-ada").sanitized_text
    assert not any(word.lower() in ada.lower() for word in MASKABLE["doc-ada"]), ada
    summary = release.metrics["attack_guided"]
    assert (summary["documents"], summary["in_top_k_before"], summary["in_top_k_after"]) == (5, 0.8, 0.0)
    assert release.metrics["paths"]["attack"] == decisions.count()


def test_starting_without_a_background_is_refused_naming_the_field(five_people, people):
    five_people.background_collection = ""
    five_people.save(update_fields=["background_collection"])
    with pytest.raises(DomainError, match="needs a background collection .*corpus ECHR test has none") as refused:
        start_release(five_people, source="reviewed", strategy="label", actor=people["manager"], attack_guided_top_k=2)
    assert refused.value.field == "attack_guided_top_k"

    five_people.background_collection = "nobody-imported-this"
    five_people.save(update_fields=["background_collection"])
    with pytest.raises(DomainError, match="'nobody-imported-this' of corpus ECHR test has no document") as empty:
        start_release(five_people, source="reviewed", strategy="label", actor=people["manager"], attack_guided_top_k=2)
    assert empty.value.field == "attack_guided_top_k"
    assert not Release.objects.exists()


@pytest.mark.parametrize("top_k", [0, -1, 101, "3", True])
def test_a_k_that_is_not_a_whole_number_from_1_to_100_is_refused(five_people, people, top_k):
    with pytest.raises(DomainError, match="needs k, a whole number from 1 to 100") as refused:
        start_release(
            five_people, source="reviewed", strategy="label", actor=people["manager"], attack_guided_top_k=top_k
        )
    assert refused.value.field == "attack_guided_top_k"


def test_a_release_without_the_option_records_nothing_of_it(five_people, people):
    release = start_release(five_people, source="reviewed", strategy="label", actor=people["manager"])
    assert release.attack_guided_top_k is None and "attack_guided" not in release.settings


def test_ranks_summary_counts_the_attacked_documents_and_lists_the_skipped():
    ranks = {
        "a": {"rank_before": 1, "rank_after": 3, "steps": 2},
        "b": {"rank_before": 2, "rank_after": 2, "steps": 0},
        "c": {"skipped": "the document names no person to protect"},
    }
    assert ranks_summary(ranks, 2) == {
        "top_k": 2,
        "documents": 2,
        "skipped": [{"doc_id": "c", "reason": "the document names no person to protect"}],
        "mean_rank_before": 1.5,
        "mean_rank_after": 2.5,
        "in_top_k_before": 1.0,
        "in_top_k_after": 0.5,
        "steps": 2,
    }
