"""The closed vocabularies of the TAB format and of the workflow.

Values are exactly the strings of the official TAB files, so they are stored, checked
in the database and exported unchanged.
"""

from django.db import models


class EntityType(models.TextChoices):
    PERSON = "PERSON", "Person"
    CODE = "CODE", "Code"
    LOC = "LOC", "Location"
    ORG = "ORG", "Organisation"
    DEM = "DEM", "Demographic attribute"
    DATETIME = "DATETIME", "Date / time"
    QUANTITY = "QUANTITY", "Quantity"
    MISC = "MISC", "Miscellaneous"


class IdentifierType(models.TextChoices):
    DIRECT = "DIRECT", "Direct identifier"
    QUASI = "QUASI", "Quasi identifier"
    NO_MASK = "NO_MASK", "No mask"


MASKED_IDENTIFIER_TYPES = (IdentifierType.DIRECT, IdentifierType.QUASI)


class ConfidentialStatus(models.TextChoices):
    NOT_CONFIDENTIAL = "NOT_CONFIDENTIAL", "Not confidential"
    BELIEF = "BELIEF", "Religious or philosophical belief"
    POLITICS = "POLITICS", "Political opinion or union membership"
    SEX = "SEX", "Sexual orientation or sex life"
    ETHNIC = "ETHNIC", "Racial or ethnic origin"
    HEALTH = "HEALTH", "Health, genetic or biometric data"


class EditType(models.TextChoices):
    """How a span relates to the pre-annotation: kept, corrected or newly inserted."""

    CHECK = "check", "Checked (kept as pre-annotated)"
    CORRECT = "correct", "Corrected"
    INSERT = "insert", "Inserted"


class Origin(models.TextChoices):
    PREANNOTATION = "preannotation", "Pre-annotation"
    MANUAL = "manual", "Manual"


class LayerStatus(models.TextChoices):
    ASSIGNED = "assigned", "Assigned"
    IN_PROGRESS = "in_progress", "In progress"
    CONFIRMED = "confirmed", "Confirmed"
    UNDER_REVIEW = "under_review", "Under review"
    REVIEWED = "reviewed", "Reviewed"
    # Closed by a manager before it was finished (its annotator left, or the document went
    # to someone else): kept read-only for its history; never counts as finished.
    WITHDRAWN = "withdrawn", "Withdrawn"


# A layer its annotator has handed on: it counts as an annotation of the corpus (export,
# evaluation, agreement, training) and has a masked review.
FINISHED_LAYER_STATUSES = (LayerStatus.CONFIRMED, LayerStatus.UNDER_REVIEW, LayerStatus.REVIEWED)


class Role(models.TextChoices):
    MANAGER = "manager", "Manager"
    ANNOTATOR = "annotator", "Annotator"
    REVIEWER = "reviewer", "Reviewer"


class DatasetType(models.TextChoices):
    TRAIN = "train", "Train"
    DEV = "dev", "Dev"
    TEST = "test", "Test"
