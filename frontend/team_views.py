"""The team page of a corpus: members and their workload, accounts, roles, review
pairs. Managers of the corpus only (404 for others, 403 for members who are not
managers). Every change is one call to ``annotation.services.team`` (or ``review`` for
pairs); its refusals are shown as messages."""

from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotation.enums import Role
from annotation.models import ReviewPair
from annotation.services import review as review_service
from annotation.services import team
from annotation.services.errors import DomainError
from annotation.services.members import corpus_members

from .access import managed_corpus, posted_id
from .team_forms import AccountForm, AccountSearchForm, RolesForm

REFUSAL = "Only managers of this corpus see and change its team."
FOUND = 10  # accounts listed for one search


def _links_key(corpus) -> str:
    return f"team-links-{corpus.pk}"


def _keep_links(request: HttpRequest, corpus, issued) -> None:
    """Keep the set-password links for the next page view only: the page shows them
    once, then they are gone (the manager copies them then)."""
    links = [(user.username, request.build_absolute_uri(path)) for user, path in issued]
    request.session[_links_key(corpus)] = request.session.get(_links_key(corpus), []) + links


def _found_accounts(form: AccountSearchForm, corpus):
    """Existing accounts that are not members yet, by part of the username or the whole
    e-mail address (an e-mail is not guessed from a fragment: other corpora's members
    are not listed to anyone who types a letter)."""
    if not form.is_valid():
        return None
    text = form.cleaned_data["find"].strip()
    if len(text) < AccountSearchForm.MIN_LENGTH:
        return None
    return (
        get_user_model()
        .objects.filter(Q(username__icontains=text) | Q(email__iexact=text))
        .exclude(corpus_memberships__corpus=corpus)
        .order_by("username")[:FOUND]
    )


@login_required
@require_GET
def team_page(request: HttpRequest, pk: int) -> HttpResponse:
    return _render(request, managed_corpus(request, pk, REFUSAL))


def _render(request: HttpRequest, corpus, *, account_form: AccountForm | None = None, status: int = 200):
    rows = team.members_overview(corpus)
    search = AccountSearchForm(request.GET or None)
    annotators = [row for row in rows if Role.ANNOTATOR in row.roles]
    return render(
        request,
        "frontend/team/team.html",
        {
            "corpus": corpus,
            "rows": rows,
            "roles": Role.choices,
            "inactive": [row for row in rows if not row.is_active],
            "search": search,
            "found": _found_accounts(search, corpus),
            "account_form": account_form or AccountForm(initial={"roles": [Role.ANNOTATOR]}),
            "links": request.session.pop(_links_key(corpus), []),
            "link_days": round(settings.PASSWORD_RESET_TIMEOUT / 86400),
            "annotators": annotators,
            "pairs": ReviewPair.objects.filter(corpus=corpus).select_related("first", "second").order_by("id"),
        },
        status=status,
    )


def team_action(handler):
    """POST, managers only; a refusal becomes an error message; back to the team page
    (at the anchor the handler names), unless the handler answers itself."""

    @login_required
    @require_POST
    @wraps(handler)
    def action(request: HttpRequest, pk: int, **kwargs) -> HttpResponse:
        corpus = managed_corpus(request, pk, REFUSAL)
        anchor = "members"
        try:
            answer = handler(request, corpus, **kwargs)
        except DomainError as exc:
            messages.error(request, exc.message)
            answer = None
        if isinstance(answer, HttpResponse):
            return answer
        return redirect(f"{reverse('corpus-team', args=[corpus.pk])}#{answer or anchor}")

    return action


def _member(corpus, user_id: int):
    """A member of ``corpus`` (404 for anyone else: the page acts on its own team only)."""
    return get_object_or_404(corpus_members(corpus), pk=user_id)


def _roles(request: HttpRequest) -> list[str]:
    form = RolesForm(request.POST)
    form.is_valid()
    # An unknown value is dropped by the form; the service names "no role" itself.
    return form.cleaned_data.get("roles", [])


@team_action
def add_member(request, corpus):
    user = get_object_or_404(get_user_model(), pk=posted_id(request, "user"))
    roles = _roles(request)
    team.add_member(corpus, user, roles, actor=request.user)
    messages.success(request, f"{user.username} joined the team as {', '.join(roles)}.")


@team_action
def create_account(request, corpus):
    form = AccountForm(request.POST)
    form.is_valid()
    data = form.cleaned_data
    try:
        user, path = team.create_account(
            corpus,
            username=data.get("username", ""),
            first_name=data.get("first_name", ""),
            last_name=data.get("last_name", ""),
            email=data.get("email", ""),
            roles=data.get("roles", []),
            actor=request.user,
        )
    except DomainError as exc:
        # The page again with what was typed, the refusal next to the form.
        form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        return _render(request, corpus, account_form=form, status=422)
    _keep_links(request, corpus, [(user, path)])
    messages.success(request, f"Account {user.username} created.")
    return "links"


@team_action
def activate(request, corpus, user_id: int):
    issued = team.activate_accounts(corpus, [_member(corpus, user_id)], actor=request.user)
    _keep_links(request, corpus, issued)
    messages.success(request, f"{issued[0][0].username} is active.")
    return "links"


@team_action
def activate_all(request, corpus):
    issued = team.activate_accounts(corpus, None, actor=request.user)
    if not issued:
        messages.info(request, "Every member's account is already active.")
        return None
    _keep_links(request, corpus, issued)
    messages.success(request, f"{len(issued)} account{'s' if len(issued) != 1 else ''} activated.")
    return "links"


@team_action
def set_roles(request, corpus, user_id: int):
    user = _member(corpus, user_id)
    roles = _roles(request)
    team.set_roles(corpus, user, roles, actor=request.user)
    messages.success(request, f"{user.username} is now {', '.join(roles)} in {corpus.name}.")


@team_action
def deactivate(request, corpus, user_id: int):
    user = _member(corpus, user_id)
    team.deactivate_account(corpus, user, actor=request.user)
    messages.success(request, f"{user.username}'s account is deactivated: they can no longer log in.")


@team_action
def remove(request, corpus, user_id: int):
    user = _member(corpus, user_id)
    team.remove_member(corpus, user, actor=request.user)
    messages.success(
        request, f"{user.username} is no longer a member of {corpus.name}. Their layers stay, attributed to them."
    )


@team_action
def pair(request, corpus):
    members = corpus_members(corpus)
    chosen = [members.filter(pk=posted_id(request, key)).first() for key in ("first", "second")]
    if None in chosen:
        raise DomainError("Choose two annotators of the team to pair.", field="first")
    made = review_service.pair_annotators(corpus, *chosen, actor=request.user)
    messages.success(request, f"Paired {made.first.username} and {made.second.username}.")
    return "pairs"


@team_action
def unpair(request, corpus, pair_id: int):
    found = get_object_or_404(ReviewPair.objects.select_related("first", "second"), pk=pair_id, corpus=corpus)
    review_service.unpair(found, actor=request.user)
    messages.success(request, f"{found.first.username} and {found.second.username} are no longer paired.")
    return "pairs"
