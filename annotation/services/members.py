"""Who belongs to a corpus: the accounts holding any role in it. One definition for the
team page, the team API and the services that act on a member, so "member" cannot
drift between them (the team service still carries its own copy: see team.py)."""

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from ..models import Corpus


def corpus_members(corpus: Corpus) -> QuerySet:
    """Accounts with at least one role in ``corpus``, each once (a member holding two
    roles has two memberships)."""
    return get_user_model().objects.filter(corpus_memberships__corpus=corpus).distinct()
