"""The team of a corpus: overview, accounts, roles, the last-manager rule, removal and
deactivation."""

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from annotation.enums import LayerStatus, Role
from annotation.models import AnnotationLayer, AuditEvent, CorpusMembership, Document, ReviewAssignment, ReviewPair
from annotation.services import team
from annotation.services.errors import DomainError
from annotation.services.layers import add_reviewer, assign_layer
from annotation.services.review import assign_due_reviews, pair_annotators
from tests.conftest import make_user


def roles_of(corpus, user) -> set[str]:
    return set(CorpusMembership.objects.filter(corpus=corpus, user=user).values_list("role", flat=True))


def documents(corpus, count: int) -> list[Document]:
    return [Document.objects.create(corpus=corpus, doc_id=f"doc-{i}", text=f"Text {i}.") for i in range(count)]


# --- Overview --------------------------------------------------------------------------


def test_overview_counts_each_members_layers_and_open_reviews(corpus, people, django_assert_max_num_queries):
    manager, ann, bob, rita = people["manager"], people["ann"], people["bob"], people["rita"]
    docs = documents(corpus, 4)
    assign_layer(docs[0], ann, actor=manager)  # assigned
    started = assign_layer(docs[1], ann, actor=manager)
    AnnotationLayer.objects.filter(pk=started.pk).update(status=LayerStatus.IN_PROGRESS)
    confirmed = assign_layer(docs[2], bob, actor=manager)
    AnnotationLayer.objects.filter(pk=confirmed.pk).update(status=LayerStatus.CONFIRMED)
    reviewed = assign_layer(docs[3], bob, actor=manager)
    AnnotationLayer.objects.filter(pk=reviewed.pk).update(status=LayerStatus.REVIEWED)
    add_reviewer(confirmed, rita, actor=manager)  # open review work for rita
    ReviewAssignment.objects.create(layer=reviewed, reviewer=rita)  # done: not counted
    people["outsider"].is_active = False
    people["outsider"].save()
    with django_assert_max_num_queries(4):
        rows = {row.user.username: row for row in team.members_overview(corpus)}
    assert list(rows) == ["ann_annotator", "bob_annotator", "mia_manager", "rita_reviewer"]
    ann_row, bob_row, rita_row = rows["ann_annotator"], rows["bob_annotator"], rows["rita_reviewer"]
    assert (ann_row.assigned, ann_row.in_progress, ann_row.finished, ann_row.in_review) == (1, 1, 0, 0)
    assert (bob_row.assigned, bob_row.in_progress, bob_row.finished, bob_row.in_review) == (0, 0, 2, 0)
    assert (rita_row.assigned, rita_row.finished, rita_row.in_review) == (0, 0, 1)
    assert rows["mia_manager"].roles == ["manager"] and rows["mia_manager"].last_activity is not None
    assert ann_row.last_activity is None  # the manager assigned; ann did nothing yet


def test_overview_lists_roles_in_order_and_inactive_accounts(corpus, people):
    sleeper = make_user("zed_imported", active=False)
    CorpusMembership.objects.create(corpus=corpus, user=sleeper, role=Role.REVIEWER)
    CorpusMembership.objects.create(corpus=corpus, user=sleeper, role=Role.ANNOTATOR)
    row = team.members_overview(corpus)[-1]
    assert (row.user.username, row.roles, row.is_active) == ("zed_imported", ["annotator", "reviewer"], False)


# --- Accounts ---------------------------------------------------------------------------


def test_create_account_makes_an_active_member_without_password_and_a_set_password_link(corpus, people, client):
    user, link = team.create_account(
        corpus,
        username="nora",
        first_name="Nora",
        last_name="Berg",
        email="nora@example.org",
        roles=[Role.ANNOTATOR, Role.REVIEWER],
        actor=people["manager"],
    )
    assert user.is_active and not user.has_usable_password()
    assert (user.first_name, user.last_name, user.email) == ("Nora", "Berg", "nora@example.org")
    assert roles_of(corpus, user) == {Role.ANNOTATOR, Role.REVIEWER}
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    assert link.startswith(f"/accounts/set-password/{uid}/")
    # The link works once: Django redirects to the form, which sets the password.
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200 and b"Choose your password" in form_page.content
    done = client.post(
        form_page.redirect_chain[-1][0], {"new_password1": "tab-Anon-2024!", "new_password2": "tab-Anon-2024!"}
    )
    assert done.status_code == 302
    user.refresh_from_db()
    assert user.check_password("tab-Anon-2024!")
    assert b"no longer valid" in client.get(link, follow=True).content
    assert AuditEvent.objects.filter(action="account.create", target="nora", corpus=corpus).exists()


@pytest.mark.parametrize(
    ("username", "message"),
    [
        ("ann_annotator", "'ann_annotator' is taken"),
        ("ANN_annotator", "'ANN_annotator' is taken"),
        ("two words", "may contain only letters"),
        ("", "needs a username"),
    ],
)
def test_create_account_refuses_a_bad_or_taken_username_naming_it(corpus, people, username, message):
    with pytest.raises(DomainError, match=message) as refused:
        team.create_account(corpus, username=username, roles=[Role.ANNOTATOR], actor=people["manager"])
    assert refused.value.field == "username"


def test_create_account_refuses_an_unknown_role_and_a_bad_email(corpus, people):
    with pytest.raises(DomainError, match="Unknown role 'boss'"):
        team.create_account(corpus, username="x1", roles=["boss"], actor=people["manager"])
    with pytest.raises(DomainError, match="'not-an-address' is not an e-mail address"):
        team.create_account(corpus, username="x2", email="not-an-address", roles=["annotator"], actor=people["manager"])
    assert not get_user_model().objects.filter(username__in=["x1", "x2"]).exists()


def test_a_manager_of_another_corpus_cannot_change_this_team(corpus, people):
    with pytest.raises(DomainError, match="Only a manager of corpus ECHR test"):
        team.add_member(corpus, people["outsider"], [Role.ANNOTATOR], actor=people["outsider"])
    with pytest.raises(DomainError, match="Only a manager of corpus ECHR test"):
        team.remove_member(corpus, people["ann"], actor=people["ann"])


def test_add_member_is_idempotent_and_keeps_other_roles(corpus, people):
    manager, outsider = people["manager"], people["outsider"]
    team.add_member(corpus, outsider, [Role.REVIEWER], actor=manager)
    team.add_member(corpus, outsider, [Role.REVIEWER, Role.ANNOTATOR], actor=manager)
    team.add_member(corpus, outsider, [Role.REVIEWER], actor=manager)
    assert roles_of(corpus, outsider) == {Role.REVIEWER, Role.ANNOTATOR}
    assert AuditEvent.objects.filter(action="membership.add", target__startswith="oscar_outsider").count() == 2


def test_activate_all_activates_the_inactive_members_only_with_a_link_each(corpus, people):
    first, second = make_user("annotator2", active=False), make_user("annotator10", active=False)
    elsewhere = make_user("annotator3", active=False)
    for user in (first, second):
        CorpusMembership.objects.create(corpus=corpus, user=user, role=Role.ANNOTATOR)
    CorpusMembership.objects.create(corpus=people["other_corpus"], user=elsewhere, role=Role.ANNOTATOR)
    activated = team.activate_accounts(corpus, None, actor=people["manager"])
    assert [user.username for user, _ in activated] == ["annotator2", "annotator10"]
    assert all(link.startswith("/accounts/set-password/") for _, link in activated)
    assert get_user_model().objects.filter(username__in=["annotator2", "annotator10"], is_active=True).count() == 2
    elsewhere.refresh_from_db()
    assert not elsewhere.is_active


def test_activate_refuses_a_non_member_and_an_account_of_a_corpus_the_actor_does_not_manage(corpus, people):
    stranger = make_user("stranger", active=False)
    with pytest.raises(DomainError, match="stranger is not a member of corpus ECHR test"):
        team.activate_accounts(corpus, [stranger], actor=people["manager"])
    shared = make_user("shared", active=False)
    CorpusMembership.objects.create(corpus=corpus, user=shared, role=Role.ANNOTATOR)
    CorpusMembership.objects.create(corpus=people["other_corpus"], user=shared, role=Role.ANNOTATOR)
    with pytest.raises(DomainError, match="shared also belongs to Other corpus"):
        team.activate_accounts(corpus, [shared], actor=people["manager"])
    shared.refresh_from_db()
    assert not shared.is_active


def _queries_to_activate_all(corpus, manager, count: int, prefix: str) -> int:
    for index in range(count):
        user = make_user(f"{prefix}{index}", active=False)
        CorpusMembership.objects.create(corpus=corpus, user=user, role=Role.ANNOTATOR)
    with CaptureQueriesContext(connection) as queries:
        assert len(team.activate_accounts(corpus, None, actor=manager)) == count
    return len(queries)


def test_activating_more_accounts_costs_only_their_own_writes(corpus, people):
    # The checks (membership, the corpora the manager does not manage) are one query each
    # for all the accounts; each account adds only its save and its audit event.
    two = _queries_to_activate_all(corpus, people["manager"], 2, "first")
    five = _queries_to_activate_all(corpus, people["manager"], 5, "second")
    assert five - two == 3 * 2


# --- Roles and the last-manager rule ------------------------------------------------------


def test_set_roles_replaces_the_roles_and_records_before_and_after(corpus, people):
    team.set_roles(corpus, people["ann"], [Role.REVIEWER], actor=people["manager"])
    assert roles_of(corpus, people["ann"]) == {Role.REVIEWER}
    event = AuditEvent.objects.get(action="membership.roles")
    assert event.changes == {"before": ["annotator"], "after": ["reviewer"]}


def test_taking_the_reviewer_role_ends_the_pair_and_the_open_reviews(corpus, people):
    ann, bob = people["ann"], people["bob"]
    pair_annotators(corpus, ann, bob, actor=people["manager"])  # both become reviewers too
    layer = assign_layer(documents(corpus, 1)[0], ann, actor=people["manager"])
    AnnotationLayer.objects.filter(pk=layer.pk).update(status=LayerStatus.CONFIRMED)
    assign_due_reviews(corpus)
    assert ReviewAssignment.objects.filter(layer=layer, reviewer=bob).exists()
    team.set_roles(corpus, bob, [Role.ANNOTATOR], actor=people["manager"])
    assert not ReviewPair.objects.exists() and not ReviewAssignment.objects.exists()
    event = AuditEvent.objects.get(action="membership.roles")
    assert event.changes == {
        "before": ["annotator", "reviewer"],
        "after": ["annotator"],
        "review_layers_ended": [layer.pk],
        "pairs_ended": ["ann_annotator ⇄ bob_annotator"],
    }
    assert assign_due_reviews(corpus) == 0  # no pair left to re-assign bob


def test_the_last_manager_cannot_demote_themselves(corpus, people):
    with pytest.raises(DomainError, match="mia_manager is the last active manager of corpus ECHR test") as refused:
        team.set_roles(corpus, people["manager"], [Role.ANNOTATOR], actor=people["manager"])
    assert refused.value.field == "roles"
    assert roles_of(corpus, people["manager"]) == {Role.MANAGER}


def test_the_last_manager_cannot_remove_themselves(corpus, people):
    with pytest.raises(DomainError, match="last active manager"):
        team.remove_member(corpus, people["manager"], actor=people["manager"])
    assert roles_of(corpus, people["manager"]) == {Role.MANAGER}


def test_nobody_removes_or_demotes_the_last_manager_not_even_an_administrator(corpus, people):
    admin = get_user_model().objects.create_superuser("root", password="pw")
    with pytest.raises(DomainError, match="last active manager"):
        team.remove_member(corpus, people["manager"], actor=admin)
    with pytest.raises(DomainError, match="last active manager"):
        team.set_roles(corpus, people["manager"], [Role.REVIEWER], actor=admin)
    assert roles_of(corpus, people["manager"]) == {Role.MANAGER}


def test_an_inactive_second_manager_does_not_count(corpus, people):
    dormant = make_user("dormant_manager", active=False)
    CorpusMembership.objects.create(corpus=corpus, user=dormant, role=Role.MANAGER)
    with pytest.raises(DomainError, match="last active manager"):
        team.set_roles(corpus, people["manager"], [Role.ANNOTATOR], actor=people["manager"])


def test_with_a_second_manager_one_may_step_down_or_remove_the_other(corpus, people):
    second = make_user("max_manager")
    CorpusMembership.objects.create(corpus=corpus, user=second, role=Role.MANAGER)
    team.set_roles(corpus, people["manager"], [Role.MANAGER, Role.ANNOTATOR], actor=people["manager"])
    team.remove_member(corpus, second, actor=people["manager"])  # mia stays manager
    assert roles_of(corpus, second) == set()
    # Now mia is the last one again: removing the last *other* manager left her alone.
    with pytest.raises(DomainError, match="last active manager"):
        team.set_roles(corpus, people["manager"], [Role.ANNOTATOR], actor=people["manager"])


def test_set_roles_refuses_no_role_and_a_non_member(corpus, people):
    with pytest.raises(DomainError, match="Choose at least one role"):
        team.set_roles(corpus, people["ann"], [], actor=people["manager"])
    with pytest.raises(DomainError, match="oscar_outsider is not a member of corpus ECHR test"):
        team.set_roles(corpus, people["outsider"], [Role.ANNOTATOR], actor=people["manager"])


# --- Removal ------------------------------------------------------------------------------


def test_removal_keeps_the_layers_and_ends_open_reviews_and_pairs(corpus, people):
    manager, ann, bob = people["manager"], people["ann"], people["bob"]
    CorpusMembership.objects.create(corpus=corpus, user=bob, role=Role.REVIEWER)
    CorpusMembership.objects.create(corpus=corpus, user=ann, role=Role.REVIEWER)
    docs = documents(corpus, 2)
    ann_layer = assign_layer(docs[0], ann, actor=manager)
    done_layer = assign_layer(docs[1], ann, actor=manager)
    AnnotationLayer.objects.filter(pk__in=[ann_layer.pk, done_layer.pk]).update(status=LayerStatus.CONFIRMED)
    AnnotationLayer.objects.filter(pk=done_layer.pk).update(status=LayerStatus.REVIEWED)
    ReviewAssignment.objects.create(layer=ann_layer, reviewer=bob)
    ReviewAssignment.objects.create(layer=done_layer, reviewer=bob)
    ReviewPair.objects.create(corpus=corpus, first=ann, second=bob)
    team.remove_member(corpus, bob, actor=manager)
    assert roles_of(corpus, bob) == set()
    # bob's open review ends; the finished one stays (the record behind quality_checked).
    assert list(ReviewAssignment.objects.values_list("layer_id", flat=True)) == [done_layer.pk]
    assert not ReviewPair.objects.exists()
    event = AuditEvent.objects.get(action="membership.remove")
    assert event.target == "bob_annotator"
    assert event.changes == {
        "roles": ["annotator", "reviewer"],
        "review_layers_ended": [ann_layer.pk],
        "pairs_ended": ["ann_annotator ⇄ bob_annotator"],
    }


def test_a_removed_annotators_layer_stays_attributed_to_them(corpus, people):
    layer = assign_layer(documents(corpus, 1)[0], people["ann"], actor=people["manager"])
    team.remove_member(corpus, people["ann"], actor=people["manager"])
    layer.refresh_from_db()
    assert layer.annotator == people["ann"] and layer.status == LayerStatus.ASSIGNED


# --- Deactivation -------------------------------------------------------------------------


def test_deactivation_keeps_memberships_and_is_recorded(corpus, people):
    team.deactivate_account(corpus, people["ann"], actor=people["manager"])
    people["ann"].refresh_from_db()
    assert not people["ann"].is_active
    assert roles_of(corpus, people["ann"]) == {Role.ANNOTATOR}
    assert AuditEvent.objects.filter(action="account.deactivate", target="ann_annotator").count() == 1


def test_deactivation_of_oneself_is_refused(corpus, people):
    with pytest.raises(DomainError, match="cannot deactivate your own account"):
        team.deactivate_account(corpus, people["manager"], actor=people["manager"])


def test_deactivation_is_refused_when_the_account_works_on_a_corpus_the_actor_does_not_manage(corpus, people):
    CorpusMembership.objects.create(corpus=people["other_corpus"], user=people["ann"], role=Role.ANNOTATOR)
    with pytest.raises(DomainError, match="also works on Other corpus.*remove them from ECHR test instead"):
        team.deactivate_account(corpus, people["ann"], actor=people["manager"])
    people["ann"].refresh_from_db()
    assert people["ann"].is_active


def test_deactivation_is_allowed_when_the_actor_manages_every_corpus_of_the_account(corpus, people):
    CorpusMembership.objects.create(corpus=people["other_corpus"], user=people["ann"], role=Role.ANNOTATOR)
    CorpusMembership.objects.create(corpus=people["other_corpus"], user=people["manager"], role=Role.MANAGER)
    team.deactivate_account(corpus, people["ann"], actor=people["manager"])
    people["ann"].refresh_from_db()
    assert not people["ann"].is_active
    assert AuditEvent.objects.filter(action="account.deactivate").count() == 2  # one per corpus


def test_deactivating_the_last_manager_of_a_corpus_is_refused(corpus, people):
    admin = get_user_model().objects.create_superuser("root", password="pw")
    with pytest.raises(DomainError, match="last active manager"):
        team.deactivate_account(corpus, people["manager"], actor=admin)

