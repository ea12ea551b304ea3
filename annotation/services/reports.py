"""Heavy reports computed as jobs (models.ReportJob): the evaluation of a masking
source, the comparison of all sources and the inter-annotator agreement.

Placeholder until the reports work lands: ``run_report`` is what the worker runs."""


def run_report(job_id: int) -> dict:
    raise NotImplementedError("reports.run_report is being written")
