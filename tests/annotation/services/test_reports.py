"""Reports as jobs (services.reports): keyed by what was asked and the data read, one
unfinished job per key, computed by run_report into JSON that reads back as the same
figures (on PostgreSQL too, whose jsonb does not keep a mapping's order)."""

import pytest
from django.test import TestCase

from annotation.enums import EntityType
from annotation.models import ReportJob
from annotation.services import reports
from annotation.services.agreement import agreement_from_data, corpus_agreement
from annotation.services.evaluation import compare_sources, evaluate_source
from annotation.services.evaluation_dashboard import comparison_from_data, evaluation_from_data
from annotation.services.layers import assign_layer
from tests.frontend.evaluation.conftest import DOCUMENT, preannotate

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

EVALUATION = {"source": "annotator:a", "annotators": [], "finished_only": True}


@pytest.fixture
def corpus_ab(corpus, import_documents):
    import_documents(corpus, [DOCUMENT])
    return corpus


def test_the_key_changes_with_the_params_the_layers_and_the_pre_annotations(corpus_ab, people):
    key = reports.data_key(corpus_ab, "evaluation", EVALUATION)
    agreement = reports.data_key(corpus_ab, "agreement", {})
    assert key == reports.data_key(corpus_ab, "evaluation", dict(reversed(EVALUATION.items())))
    assert key != reports.data_key(corpus_ab, "evaluation", {**EVALUATION, "finished_only": False})
    assert key != reports.data_key(corpus_ab, "comparison", EVALUATION)
    preannotate(corpus_ab.documents.get(), [("Anna Berg", EntityType.PERSON)])
    after_run = reports.data_key(corpus_ab, "evaluation", EVALUATION)
    assert after_run != key
    assert reports.data_key(corpus_ab, "agreement", {}) == agreement  # agreement reads layers only
    assign_layer(corpus_ab.documents.get(), people["ann"], actor=people["manager"])
    assert reports.data_key(corpus_ab, "evaluation", EVALUATION) != after_run
    assert reports.data_key(corpus_ab, "agreement", {}) != agreement


def test_one_unfinished_job_per_key_sent_once(corpus_ab, people):
    with TestCase.captureOnCommitCallbacks() as sent:
        first = reports.start_report(corpus_ab, "evaluation", EVALUATION, people["manager"])
        second = reports.start_report(corpus_ab, "evaluation", EVALUATION, people["manager"])
        other = reports.start_report(corpus_ab, "evaluation", {**EVALUATION, "annotators": ["b"]})
    assert first.pk == second.pk != other.pk and len(sent) == 2
    assert (first.status, first.result, first.created_by) == ("pending", {}, people["manager"])
    assert reports.current_report(corpus_ab, "evaluation", EVALUATION) is None  # not computed yet


def test_run_report_stores_an_evaluation_that_reads_back_as_computed(corpus_ab):
    job = reports.start_report(corpus_ab, "evaluation", EVALUATION)
    assert reports.run_report(job.pk) == {"report": job.pk, "status": "succeeded"}
    job.refresh_from_db()  # read back from the database's JSON
    assert (job.status, job.attempts, job.error) == ("succeeded", 1, "")
    assert reports.current_report(corpus_ab, "evaluation", EVALUATION) == job
    stored = evaluation_from_data(job.result["evaluation"])
    direct = evaluate_source(corpus_ab, "annotator:a")
    assert stored == direct
    # The types in the engine's order (DATETIME, LOC, PERSON), not jsonb's.
    assert list(stored.report.recall_by_type) == ["DATETIME", "LOC", "PERSON"]
    assert (stored.report.ER_qi, stored.report.token_precision) == (0.5, 0.6)  # as hand-computed in the page tests
    assert reports.run_report(job.pk) == {"report": job.pk, "status": "not taken"}  # a redelivery does nothing


def test_run_report_stores_the_comparison_with_its_progress_and_the_agreement(corpus_ab):
    comparison = reports.start_report(corpus_ab, "comparison", {"finished_only": True})
    reports.run_report(comparison.pk)
    comparison.refresh_from_db()
    rows = comparison_from_data(comparison.result["rows"])
    assert rows == compare_sources(corpus_ab) and [row.source for row in rows] == ["annotator:a", "annotator:b"]
    assert (comparison.done, comparison.total) == (2, 2)
    agreement = reports.start_report(corpus_ab, "agreement", {})
    reports.run_report(agreement.pk)
    agreement.refresh_from_db()
    stored = agreement_from_data(agreement.result["agreement"])
    assert stored == corpus_agreement(corpus_ab) and stored.documents == 1
    assert list(stored.table) == ["entity_type", "identifier_type", "confidential_status"]


def test_a_refusal_is_the_reports_answer_and_a_crash_fails_the_job(corpus_ab, monkeypatch):
    refused = reports.start_report(corpus_ab, "evaluation", {**EVALUATION, "source": "annotator:nobody"})
    reports.run_report(refused.pk)
    refused.refresh_from_db()
    assert refused.status == "succeeded" and refused.result == {"error": "nobody has no layer in corpus ECHR test."}

    def broken(corpus):
        raise RuntimeError("out of luck")

    monkeypatch.setattr(reports, "corpus_agreement", broken)
    crashed = reports.start_report(corpus_ab, "agreement", {})
    assert reports.run_report(crashed.pk) == {"report": crashed.pk, "status": "failed"}
    crashed.refresh_from_db()
    assert (crashed.status, crashed.error, crashed.result) == ("failed", "RuntimeError: out of luck", {})
    # The page shows the failure rather than starting the same report at every visit ...
    assert reports.report_for_page(corpus_ab, "agreement", {}) == crashed
    # ... until asked to start it again.
    again = reports.report_for_page(corpus_ab, "agreement", {}, retry=True)
    assert again.pk != crashed.pk and ReportJob.objects.filter(kind="agreement").count() == 2


def test_a_new_report_replaces_the_older_ones_of_the_same_question(corpus_ab, people):
    old = reports.start_report(corpus_ab, "evaluation", EVALUATION)
    reports.run_report(old.pk)
    other = reports.start_report(corpus_ab, "evaluation", {**EVALUATION, "annotators": ["b"]})
    reports.run_report(other.pk)
    assign_layer(corpus_ab.documents.get(), people["ann"], actor=people["manager"])  # the data changed
    assert reports.current_report(corpus_ab, "evaluation", EVALUATION) is None
    new = reports.start_report(corpus_ab, "evaluation", EVALUATION)
    reports.run_report(new.pk)
    # The stale report (and the mention texts it held) is gone; another question's is kept.
    assert set(ReportJob.objects.values_list("pk", flat=True)) == {other.pk, new.pk}
