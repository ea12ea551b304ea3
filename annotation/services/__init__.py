"""Domain services: the only code that changes annotation state.

The REST API, the HTML views, the management commands and the Celery tasks all call
these functions; each records who made the change in the audit trail.
"""
