"""The team of a corpus: its members, their accounts and roles.

Rules kept here (the pages and the API call these functions and check nothing else):

- every corpus keeps at least one **active manager**: nobody removes or demotes the
  last one, themselves included (an inactive manager does not count: they cannot act);
- a manager acts on the memberships of the corpora they manage only; deactivating an
  account (which shuts it out of every corpus) or activating one needs the actor to
  manage every corpus the account belongs to;
- removing a member deletes their roles in this corpus: their layers stay, attributed
  to them and visible to the managers; their open review assignments (on layers not yet
  reviewed) and their review pairs in this corpus end; a finished review stays (it is
  the record behind ``quality_checked``).

Access follows at once: ``annotation.permissions`` grants nothing without a membership
of the corpus and an active account.
"""

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.tokens import default_token_generator
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from .. import permissions as policy
from ..enums import LayerStatus, Role
from ..models import Corpus, CorpusMembership, ReviewAssignment, ReviewPair
from ..selectors import MemberRow, members_overview, natural_key
from . import corpora
from .audit import record_event
from .errors import DomainError

# The team's overview is a read-side query (``selectors``), offered here with the changes.
__all__ = [
    "MemberRow",
    "activate_accounts",
    "add_member",
    "create_account",
    "deactivate_account",
    "members_overview",
    "remove_member",
    "remove_role",
    "set_password_path",
    "set_roles",
]

LAST_MANAGER = (
    "{name} is the last active manager of corpus {corpus}: a corpus keeps at least one manager. "
    "Make another member manager first."
)
# --- Checks ------------------------------------------------------------------------


def _checked_roles(roles: Iterable[str]) -> list[str]:
    chosen = list(dict.fromkeys(roles))
    if not chosen:
        raise DomainError("Choose at least one role (manager, annotator or reviewer).", field="roles")
    unknown = [role for role in chosen if role not in Role.values]
    if unknown:
        raise DomainError(
            f"Unknown role {unknown[0]!r}: a role is one of {', '.join(Role.values)}.", field="roles"
        )
    return chosen


def _manages(actor: AbstractBaseUser | None, corpus: Corpus) -> bool:
    # ``None`` is a script or a task acting for the system; a person follows the policy.
    return actor is None or policy.is_manager(actor, corpus)


def _require_manager(corpus: Corpus, actor: AbstractBaseUser | None) -> None:
    if not _manages(actor, corpus):
        raise DomainError(f"Only a manager of corpus {corpus.name} may change its team.", field="actor")


def _require_member(corpus: Corpus, user: AbstractBaseUser) -> None:
    if not CorpusMembership.objects.filter(corpus=corpus, user=user).exists():
        raise DomainError(f"{user.username} is not a member of corpus {corpus.name}.", field="user")


def _refuse_last_manager(corpus: Corpus, user: AbstractBaseUser) -> None:
    """Refuse a change that would leave ``corpus`` without an active manager, ``user``
    being a manager who loses the role (rows locked so two managers demoting each other
    at once cannot both succeed)."""
    managers = list(
        CorpusMembership.objects.select_for_update()
        .filter(corpus=corpus, role=Role.MANAGER, user__is_active=True)
        .values_list("user_id", flat=True)
    )
    if user.pk in managers and len(managers) == 1:
        raise DomainError(LAST_MANAGER.format(name=user.username, corpus=corpus.name), field="roles")


def _corpora_not_managed(users: list[AbstractBaseUser], actor: AbstractBaseUser | None) -> dict[int, list[str]]:
    """For each of ``users`` who belongs to a corpus that ``actor`` does not manage, the
    names of those corpora (one query for all of them)."""
    if actor is None or actor.is_superuser:
        return {}
    rows = (
        CorpusMembership.objects.filter(user__in=[user.pk for user in users])
        .exclude(corpus__in=policy.managed_corpora(actor))
        .values_list("user_id", "corpus__name")
    )
    names: dict[int, set[str]] = {}
    for user_id, name in rows:
        names.setdefault(user_id, set()).add(name)
    return {user_id: sorted(corpora) for user_id, corpora in names.items()}


def set_password_path(user: AbstractBaseUser) -> str:
    """A one-time link (path) at which ``user`` chooses their password: Django's password
    reset confirmation, valid until used or ``PASSWORD_RESET_TIMEOUT`` has passed."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": default_token_generator.make_token(user)})


# --- Changes -----------------------------------------------------------------------


@transaction.atomic
def add_member(corpus: Corpus, user: AbstractBaseUser, roles: Iterable[str], *, actor: AbstractBaseUser | None) -> None:
    """Give an existing account ``roles`` in ``corpus`` (roles it already has are kept;
    adding the same roles again changes nothing)."""
    _require_manager(corpus, actor)
    for role in _checked_roles(roles):
        corpora.add_member(corpus, user, role, actor=actor)


@transaction.atomic
def create_account(
    corpus: Corpus,
    *,
    username: str,
    first_name: str = "",
    last_name: str = "",
    email: str = "",
    roles: Iterable[str],
    actor: AbstractBaseUser | None,
) -> tuple[AbstractBaseUser, str]:
    """Create an active account with no password yet, member of ``corpus`` in ``roles``;
    returns it with the one-time link at which its owner sets a password (shown once to
    the manager, who passes it on)."""
    _require_manager(corpus, actor)
    User = get_user_model()
    username = (username or "").strip()
    if not username:
        raise DomainError("An account needs a username.", field="username")
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        raise DomainError(
            f"The username {username!r} may contain only letters, digits and @ . + - _ (no spaces).", field="username"
        ) from None
    if len(username) > 150:
        raise DomainError("A username has at most 150 characters.", field="username")
    if User.objects.filter(username__iexact=username).exists():
        raise DomainError(f"The username {username!r} is taken: choose another.", field="username")
    email = (email or "").strip()
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise DomainError(f"{email!r} is not an e-mail address.", field="email") from None
    chosen = _checked_roles(roles)
    user = User(username=username, first_name=first_name.strip(), last_name=last_name.strip(), email=email)
    user.set_unusable_password()
    user.save()
    record_event("account.create", actor=actor, corpus=corpus, target=username)
    add_member(corpus, user, chosen, actor=actor)
    return user, set_password_path(user)


@transaction.atomic
def activate_accounts(
    corpus: Corpus, users: Iterable[AbstractBaseUser] | None, *, actor: AbstractBaseUser | None
) -> list[tuple[AbstractBaseUser, str]]:
    """Activate accounts of members of ``corpus`` (``None``: every inactive member), each
    returned with its one-time set-password link. An account that belongs to a corpus
    the actor does not manage is refused (activating it would open that corpus too)."""
    _require_manager(corpus, actor)
    members = get_user_model().objects.filter(corpus_memberships__corpus=corpus).distinct()
    if users is None:
        chosen = list(members.filter(is_active=False))
    else:
        chosen = list(dict.fromkeys(users))
        member_ids = set(members.filter(pk__in=[user.pk for user in chosen]).values_list("pk", flat=True))
        outsiders = [user.username for user in chosen if user.pk not in member_ids]
        if outsiders:
            raise DomainError(
                f"{', '.join(outsiders)} is not a member of corpus {corpus.name}: add them before activating.",
                field="users",
            )
    not_managed = _corpora_not_managed(chosen, actor)
    for user in chosen:
        elsewhere = not_managed.get(user.pk)
        if elsewhere:
            raise DomainError(
                f"{user.username} also belongs to {', '.join(elsewhere)}, which you do not manage: "
                "ask a manager of every corpus they belong to.",
                field="users",
            )
    result = []
    for user in sorted(chosen, key=lambda user: natural_key(user.username)):
        if not user.is_active:
            user.is_active = True
            user.save(update_fields=["is_active"])
            record_event("account.activate", actor=actor, corpus=corpus, target=user.username)
        result.append((user, set_password_path(user)))
    return result


@transaction.atomic
def set_roles(corpus: Corpus, user: AbstractBaseUser, roles: Iterable[str], *, actor: AbstractBaseUser | None) -> None:
    """Replace ``user``'s roles in ``corpus`` by ``roles`` (at least one: to take every
    role away, remove the member). The last active manager keeps the manager role."""
    _require_manager(corpus, actor)
    chosen = _checked_roles(roles)
    _require_member(corpus, user)
    before = sorted(CorpusMembership.objects.filter(corpus=corpus, user=user).values_list("role", flat=True))
    if Role.MANAGER in before and Role.MANAGER not in chosen:
        _refuse_last_manager(corpus, user)
    CorpusMembership.objects.filter(corpus=corpus, user=user).exclude(role__in=chosen).delete()
    for role in chosen:
        CorpusMembership.objects.get_or_create(corpus=corpus, user=user, role=role)
    after = sorted(chosen)
    if after != before:
        # Pairs are of annotators who review: they end when either role goes, and the
        # open reviews with the reviewer role (pairing would otherwise re-assign them).
        ended = _end_reviews(
            corpus, user, reviews=Role.REVIEWER not in chosen, pairs=not {Role.ANNOTATOR, Role.REVIEWER} <= set(chosen)
        )
        record_event(
            "membership.roles",
            actor=actor,
            corpus=corpus,
            target=user.username,
            changes={"before": before, "after": after, **ended},
        )


def _end_reviews(corpus: Corpus, user: AbstractBaseUser, *, reviews: bool, pairs: bool) -> dict:
    """End ``user``'s open review assignments (on layers not yet reviewed: a finished
    review stays as the record behind ``quality_checked``) and review pairs in ``corpus``;
    returns what ended, for the audit trail."""
    ended: dict[str, list] = {}
    if reviews:
        open_reviews = ReviewAssignment.objects.filter(layer__document__corpus=corpus, reviewer=user).exclude(
            layer__status=LayerStatus.REVIEWED
        )
        ended["review_layers_ended"] = sorted(open_reviews.values_list("layer_id", flat=True))
        open_reviews.delete()
    if pairs:
        held = ReviewPair.objects.filter(Q(first=user) | Q(second=user), corpus=corpus)
        held = held.select_related("first", "second")
        ended["pairs_ended"] = [f"{pair.first.username} ⇄ {pair.second.username}" for pair in held]
        held.delete()
    return {key: value for key, value in ended.items() if value}


@transaction.atomic
def remove_member(corpus: Corpus, user: AbstractBaseUser, *, actor: AbstractBaseUser | None) -> None:
    """Take every role in ``corpus`` away from ``user``: their access ends at once. Their
    layers stay (attributed to them; a manager hands over or withdraws the open ones);
    their open review assignments and their review pairs in this corpus end."""
    _require_manager(corpus, actor)
    _require_member(corpus, user)
    roles = sorted(CorpusMembership.objects.filter(corpus=corpus, user=user).values_list("role", flat=True))
    if Role.MANAGER in roles:
        _refuse_last_manager(corpus, user)
    CorpusMembership.objects.filter(corpus=corpus, user=user).delete()
    ended = _end_reviews(corpus, user, reviews=True, pairs=True)
    changes = {"roles": roles, **ended}
    record_event("membership.remove", actor=actor, corpus=corpus, target=user.username, changes=changes)


def remove_role(corpus: Corpus, user: AbstractBaseUser, role: str, *, actor: AbstractBaseUser | None) -> None:
    """Take one role away, under the same rules: the last manager keeps theirs, and
    losing the last role removes the member (their open reviews and pairs end)."""
    remaining = set(CorpusMembership.objects.filter(corpus=corpus, user=user).values_list("role", flat=True)) - {role}
    if remaining:
        set_roles(corpus, user, sorted(remaining), actor=actor)
    else:
        remove_member(corpus, user, actor=actor)


@transaction.atomic
def deactivate_account(corpus: Corpus, user: AbstractBaseUser, *, actor: AbstractBaseUser | None) -> None:
    """Shut ``user`` out of the application (every corpus), keeping their memberships so
    that activating the account again restores them. Only for a manager of every corpus
    the account belongs to; otherwise remove the member from this corpus instead."""
    _require_manager(corpus, actor)
    _require_member(corpus, user)
    if actor is not None and actor.pk == user.pk:
        raise DomainError("You cannot deactivate your own account.", field="user")
    if user.is_superuser and not (actor is None or actor.is_superuser):
        raise DomainError(f"{user.username} is a site administrator: only another administrator may deactivate them.")
    elsewhere = _corpora_not_managed([user], actor).get(user.pk)
    if elsewhere:
        raise DomainError(
            f"{user.username} also works on {', '.join(elsewhere)}, which you do not manage: "
            f"remove them from {corpus.name} instead.",
            field="user",
        )
    for managed in Corpus.objects.filter(memberships__user=user, memberships__role=Role.MANAGER).distinct():
        _refuse_last_manager(managed, user)
    if user.is_active:
        user.is_active = False
        user.save(update_fields=["is_active"])
        for member_of in Corpus.objects.filter(memberships__user=user).distinct():
            record_event("account.deactivate", actor=actor, corpus=member_of, target=user.username)
