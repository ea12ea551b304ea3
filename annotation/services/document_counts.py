"""How far a job over documents has got: its per-document rows (a pre-annotation run's
``RunDocument``, a release's ``ReleaseDocument``) counted by status, with the percent
finished. Both kinds of row share the statuses pending / done / failed."""

from django.db.models import Count, Q

COUNTED = ("total", "done", "failed", "pending")


def count_expressions(prefix: str = "") -> dict:
    """Aggregates of the rows by status; ``prefix`` reaches them through a relation
    ("documents__") to count inside a query over their parents."""
    return {
        "total": Count(f"{prefix}id"),
        "done": Count(f"{prefix}id", filter=Q(**{f"{prefix}status": "done"})),
        "failed": Count(f"{prefix}id", filter=Q(**{f"{prefix}status": "failed"})),
        "pending": Count(f"{prefix}id", filter=Q(**{f"{prefix}status": "pending"})),
    }


def with_percent(counts: dict) -> dict:
    counts["percent"] = round(100 * (counts["done"] + counts["failed"]) / counts["total"]) if counts["total"] else 100
    return counts


def document_counts(rows) -> dict:
    """``rows`` (a queryset of per-document rows) counted by status, with the percent."""
    return with_percent(rows.aggregate(**count_expressions()))
