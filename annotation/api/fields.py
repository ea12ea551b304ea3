"""Text the API accepts is checked before it reaches the database.

DRF's ``CharField`` refuses NUL and lone surrogate characters, but a username looked up
through a ``SlugRelatedField``, a query parameter read by hand or a path segment goes to
the database as sent: PostgreSQL refuses a NUL in a string with a DataError (a 500) and
cannot encode a lone surrogate. Every such entry point uses these helpers instead, so the
answer is a 400 naming the field."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import ProhibitNullCharactersValidator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import ProhibitSurrogateCharactersValidator

TEXT_VALIDATORS = (ProhibitNullCharactersValidator(), ProhibitSurrogateCharactersValidator())


def text_problems(value: str) -> list[str]:
    """Why ``value`` cannot be stored or looked up as text (empty: it can)."""
    problems = []
    for validator in TEXT_VALIDATORS:
        try:
            validator(value)
        except (DjangoValidationError, serializers.ValidationError) as error:
            problems += [str(message) for message in getattr(error, "messages", None) or error.detail]
    return problems


def checked_text(value: str, field: str) -> str:
    """``value`` if it is storable text, else a 400 naming ``field``."""
    problems = text_problems(value)
    if problems:
        raise serializers.ValidationError({field: problems})
    return value


def text_param(request, name: str, default: str | None = None) -> str | None:
    """A query parameter, checked like a text field."""
    value = request.query_params.get(name, default)
    return None if value is None else checked_text(value, name)


def text_params(request, name: str) -> list[str]:
    """Every value of a repeatable query parameter, checked like a text field."""
    return [checked_text(value, name) for value in request.query_params.getlist(name)]


class UsernameField(serializers.SlugRelatedField):
    """An account named by its username; malformed text is refused before the lookup."""

    def __init__(self, **kwargs):
        if not kwargs.get("read_only"):
            kwargs.setdefault("queryset", get_user_model().objects.all())
        super().__init__(slug_field="username", **kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        problems = text_problems(data)
        if problems:
            raise serializers.ValidationError(problems)
        return super().to_internal_value(data)


# The largest id the databases store (a signed 64-bit integer): a larger number in a
# lookup is an OverflowError on SQLite, not a missing object.
MAX_ID = 2**63 - 1


class IdField(serializers.IntegerField):
    """An object's id in a command: a positive number the database can compare."""

    def __init__(self, **kwargs):
        super().__init__(min_value=1, max_value=MAX_ID, **kwargs)


@extend_schema_field(OpenApiTypes.INT)
class VisibleCorpusField(serializers.PrimaryKeyRelatedField):
    """A corpus the requesting user can see (the serializer needs the request in its
    context): one they cannot see is refused exactly like one that does not exist, not
    with a 403 that would confirm it exists."""

    def get_queryset(self):
        from .. import permissions as policy
        from ..models import Corpus

        request = self.context.get("request")
        return policy.visible_corpora(request.user) if request is not None else Corpus.objects.none()
