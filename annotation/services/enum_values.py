"""Checking enum inputs with messages that list what is allowed."""

from django.db.models import TextChoices

from .errors import InvalidAnnotation


def checked_choice(value, choices: type[TextChoices], field: str, *, nullable: bool = False):
    if value is None and nullable:
        return None
    if value not in choices.values:
        allowed = ", ".join(choices.values)
        raise InvalidAnnotation(f"{field} {value!r} is not one of {allowed}.", field=field)
    return value
