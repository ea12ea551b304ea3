"""Re-identification runs of a release: what starting one refuses, the attack on the
five-person fixture (TRIR 0.8), leaking terms placed in the original text, failures that
store nothing, redelivery, and the background's pretreatment cached in the database."""

import pytest

from annotation.models import BackgroundDocument, Document, ReidentificationRun, Release
from annotation.services import reidentification_attackers
from annotation.services.errors import DomainError
from annotation.services.reidentification import original_offsets, run_attack, start_release_attack
from annotation.services.reidentification_attackers import forget_fitted, pretreatment
from tests.support.five_people import EXPECTED_RE_IDENTIFIED, EXPECTED_TRIR, PROTECTED
from tests.support.five_people_corpus import COLLECTION, background_release, import_five_people, released_five_people


@pytest.fixture
def release(corpus, people):
    return background_release(corpus)


def refused_field(call) -> str:
    with pytest.raises(DomainError) as refused:
        call()
    return refused.value.field


def test_starting_is_refused_for_a_release_that_has_not_succeeded(corpus, people):
    import_five_people()
    corpus.background_collection = COLLECTION
    corpus.save()
    release = released_five_people(corpus, status=Release.Status.RUNNING)
    assert refused_field(lambda: start_release_attack(release, user=people["manager"])) == "release"


def test_starting_is_refused_without_a_background_collection_or_with_an_empty_one(release, people):
    release.corpus.background_collection = ""
    release.corpus.save()
    assert refused_field(lambda: start_release_attack(release, user=people["manager"])) == "background_collection"
    release.corpus.background_collection = "nobody-imported-this"
    release.corpus.save()
    assert refused_field(lambda: start_release_attack(release, user=people["manager"])) == "background_collection"
    assert not ReidentificationRun.objects.exists()


def test_starting_is_refused_for_an_unknown_attacker(release, people):
    assert refused_field(lambda: start_release_attack(release, attacker="oracle", user=people["manager"])) == "attacker"


def test_a_release_of_the_five_people_is_re_identified_four_times_in_five(release, people):
    run = start_release_attack(release, attacker="tfidf-svc", user=people["manager"])
    assert run.status == ReidentificationRun.Status.PENDING and run.background_collection == COLLECTION
    run_attack(run.pk)
    run.refresh_from_db()
    assert run.status == ReidentificationRun.Status.SUCCEEDED, run.error
    assert run.results["TRIR"] == pytest.approx(EXPECTED_TRIR)
    assert run.results["n"] == 5 and run.results["people"] == 5
    assert run.results["random_baseline"] == pytest.approx(1 / 5)
    assert run.results["attacker"] == "tfidf-svc" and run.results["collection"] == COLLECTION
    outcomes = {outcome.doc_id: outcome for outcome in run.outcomes.all()}
    assert {doc_id for doc_id, outcome in outcomes.items() if outcome.rank == 1} == EXPECTED_RE_IDENTIFIED
    assert outcomes["doc-dora"].rank > 1 and outcomes["doc-dora"].leaking_terms == []
    assert outcomes["doc-ada"].document == Document.objects.get(doc_id="doc-ada")
    assert outcomes["doc-ada"].guesses[0][0] == "Ada Quist"


def test_leaking_terms_are_placed_in_the_original_text_through_the_release_spans(release, people):
    run = start_release_attack(release, user=people["manager"])
    run_attack(run.pk)
    ada = ReidentificationRun.objects.get(pk=run.pk).outcomes.get(doc_id="doc-ada")
    original = Document.objects.get(doc_id="doc-ada").text
    released = PROTECTED[0]["text"]
    words = {term["text"] for term in ada.leaking_terms}
    assert "glassblower" in words
    for term in ada.leaking_terms:
        assert released[term["start"] : term["end"]] == term["text"]
        # "Ms Ada Quist" (12) stood where the release wrote "The applicant" (13).
        assert term["original_start"] == term["start"] - 1
        assert original[term["original_start"] : term["original_end"]] == term["text"]


def test_original_offsets_are_null_inside_a_replacement_and_shifted_after_it():
    # original "Ms Ada Quist, a glassblower": [0, 12) replaced by "The applicant" (13 characters)
    spans = [{"start": 0, "end": 12, "replacement": "The applicant"}]
    assert original_offsets(spans, 4, 13) == (None, None)  # "applicant"
    assert original_offsets(spans, 17, 28) == (16, 27)  # "glassblower"
    suppressed = [{"start": 3, "end": 7, "replacement": ""}]  # "ab [xyz ]cd" -> "ab cd"
    assert original_offsets(suppressed, 3, 5) == (7, 9)
    assert original_offsets(suppressed, 0, 2) == (0, 2)
    assert original_offsets(suppressed, 1, 4) == (None, None)  # across the removed words


def test_a_document_without_a_person_is_left_out_with_the_reason(release, people):
    Document.objects.filter(doc_id="doc-bruno").update(person_to_protect="", task="")
    run = start_release_attack(release, user=people["manager"])
    run_attack(run.pk)
    run.refresh_from_db()
    assert run.results["n"] == 4
    assert run.results["skipped"] == [{"doc_id": "doc-bruno", "reason": "the document names no person to protect"}]
    assert not run.outcomes.filter(doc_id="doc-bruno").exists()


def test_a_run_whose_background_disappeared_fails_naming_it_and_stores_no_outcome(release, people):
    run = start_release_attack(release, user=people["manager"])
    BackgroundDocument.objects.filter(collection=COLLECTION).delete()
    run_attack(run.pk)
    run.refresh_from_db()
    assert run.status == ReidentificationRun.Status.FAILED
    assert COLLECTION in run.error and run.finished_at is not None
    assert run.results == {} and not run.outcomes.exists()


def test_a_redelivered_run_is_left_as_it_finished(release, people):
    run = start_release_attack(release, user=people["manager"])
    run_attack(run.pk)
    finished = ReidentificationRun.objects.get(pk=run.pk)
    assert run_attack(run.pk) == {"run": run.pk, "status": "succeeded"}
    again = ReidentificationRun.objects.get(pk=run.pk)
    assert again.outcomes.count() == 5 and again.finished_at == finished.finished_at


def test_a_worker_declared_lost_stores_nothing_over_the_attempt_that_took_its_run_over(release, people, monkeypatch):
    """This worker went silent after taking the run up and another took it over: its
    attack, finished all the same, writes no outcome, result or status."""
    from datetime import timedelta

    from annotation.services import jobs

    real_claim = jobs.claim

    def claim_then_lose(model, pk):
        mine = real_claim(model, pk)
        model.objects.filter(pk=pk).update(heartbeat_at=jobs.stall_cutoff() - timedelta(seconds=1))
        assert real_claim(model, pk).attempts == 2  # the other worker
        return mine

    monkeypatch.setattr(jobs, "claim", claim_then_lose)
    run = start_release_attack(release, user=people["manager"])
    assert run_attack(run.pk) == {"run": run.pk, "status": "running", "lost": True}
    run.refresh_from_db()
    assert (run.status, run.attempts, run.results, run.finished_at) == ("running", 2, {}, None)
    assert not run.outcomes.exists()


def test_the_background_is_pretreated_once_and_read_back_by_the_next_fit(release, people, monkeypatch):
    parsed = []
    treat = pretreatment()
    original = type(treat).background

    def counting(self, texts, *args, **kwargs):
        texts = list(texts)
        parsed.extend(texts)
        return original(self, texts, *args, **kwargs)

    monkeypatch.setattr(type(treat), "background", counting)
    first = start_release_attack(release, user=people["manager"])
    run_attack(first.pk)
    assert len(parsed) == 5
    assert set(BackgroundDocument.objects.values_list("pretreatment", flat=True)) == {treat.key}
    assert "glassblower" in BackgroundDocument.objects.get(title="Ada Quist").pretreated.split(" ")
    forget_fitted()  # another process: it has no fitted attacker but reads the database
    second = start_release_attack(release, user=people["manager"])
    run_attack(second.pk)
    assert len(parsed) == 5
    assert ReidentificationRun.objects.get(pk=second.pk).results["TRIR"] == pytest.approx(EXPECTED_TRIR)


def test_a_fitted_attacker_is_kept_until_the_background_changes(release):
    first = reidentification_attackers.fitted_attacker(COLLECTION)
    assert reidentification_attackers.fitted_attacker(COLLECTION) is first
    assert first.description["background"] == 5 and first.people[0] == "Ada Quist"
    BackgroundDocument.objects.create(collection=COLLECTION, url="extra", title="Fay Moss", text="Fay Moss knits.")
    refitted = reidentification_attackers.fitted_attacker(COLLECTION)
    assert refitted is not first and "Fay Moss" in refitted.people


def test_one_run_per_release_at_a_time_and_one_whose_thread_died_is_failed_when_the_next_starts(
    release, people, eager_tasks
):
    """A second run is refused while one is under way (naming the field), however old it
    is; once it is silent for ``stall_s`` (embedded: its thread died with its process),
    starting the next fails it, and the next starts."""
    from datetime import timedelta

    from django.utils import timezone

    from annotation.services import jobs

    first = start_release_attack(release, attacker="tfidf-svc", user=people["manager"])
    jobs.claim(ReidentificationRun, first.pk)  # a worker takes it up ...
    ReidentificationRun.objects.filter(pk=first.pk).update(created_at=timezone.now() - timedelta(hours=2))
    with pytest.raises(DomainError) as refused:
        start_release_attack(release, attacker="tfidf-svc", user=people["manager"])
    assert refused.value.field == "release" and f"Run {first.pk}" in refused.value.message
    # ... and goes silent: its heartbeat is older than stall_s.
    ReidentificationRun.objects.filter(pk=first.pk).update(heartbeat_at=jobs.stall_cutoff() - timedelta(seconds=1))
    second = start_release_attack(release, attacker="tfidf-svc", user=people["manager"])
    assert second.status == ReidentificationRun.Status.PENDING
    first.refresh_from_db()  # embedded, starting the next failed the run whose thread died
    assert first.status == ReidentificationRun.Status.FAILED and "The process running it stopped" in first.error
