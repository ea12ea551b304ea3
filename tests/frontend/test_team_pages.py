"""The team page: managers of the corpus only; each form does what it says or shows the
service's refusal; set-password links are shown once."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.enums import Role
from annotation.models import AnnotationLayer, CorpusMembership, Document, ReviewPair
from annotation.services.layers import assign_layer
from tests.conftest import make_user

from .conftest import client_for

pytestmark = pytest.mark.django_db


def team_url(corpus, tail=""):
    return f"/corpora/{corpus.pk}/team/{tail}"


def roles_of(corpus, user) -> list[str]:
    return sorted(CorpusMembership.objects.filter(corpus=corpus, user=user).values_list("role", flat=True))


def member_cells(page: str, username: str) -> list[str]:
    """The number cells of a member's row: assigned, in progress, finished, in review, withdrawn."""
    row = re.search(rf'<tr id="member-{username}"[^>]*>(.*?)</tr>', page, re.S)
    assert row, f"no row for {username}"
    return re.findall(r'<td class="num">(\d+)</td>', row.group(1))


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]] if response.context else []


def follow_post(client, url, data):
    return client.post(url, data, follow=True)


# --- Who may see the pages --------------------------------------------------------------


PAGES = [
    ("get", ""),
    ("post", "add/"),
    ("post", "create/"),
    ("post", "activate/"),
    ("post", "{user}/activate/"),
    ("post", "{user}/roles/"),
    ("post", "{user}/deactivate/"),
    ("post", "{user}/remove/"),
    ("post", "pairs/"),
]


@pytest.mark.parametrize(("method", "tail"), PAGES)
def test_only_the_corpus_managers_reach_the_team_pages(scenario, method, tail):
    corpus = scenario["corpus"]
    url = team_url(corpus, tail.format(user=scenario["bob"].pk))
    call = lambda user: getattr(client_for(user), method)(url)  # noqa: E731
    assert call(scenario["outsider"]).status_code == 404  # manages another corpus only
    assert call(scenario["ann"]).status_code == 403  # a member, not a manager
    assert scenario["bob"].is_active and roles_of(corpus, scenario["bob"]) == ["annotator"]  # nothing changed


def test_anonymous_visitors_are_sent_to_the_login_page(scenario):
    from django.test import Client

    response = Client().get(team_url(scenario["corpus"]))
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_the_assign_pages_answer_non_members_404_and_members_403(scenario):
    corpus = scenario["corpus"]
    layer = scenario["bob_layer"]
    for url, method in (
        (f"/corpora/{corpus.pk}/assign/", "get"),
        (f"/corpora/{corpus.pk}/assign/preview/", "post"),
        (f"/corpora/{corpus.pk}/assign/apply/", "post"),
        (f"/corpora/{corpus.pk}/layers/{layer.pk}/withdraw/", "post"),
        (f"/corpora/{corpus.pk}/layers/{layer.pk}/hand-over/", "post"),
    ):
        assert getattr(client_for(scenario["outsider"]), method)(url).status_code == 404, url
        assert getattr(client_for(scenario["rita"]), method)(url).status_code == 403, url
    assert AnnotationLayer.objects.filter(pk=layer.pk, annotator=scenario["bob"]).exists()


# --- The members table --------------------------------------------------------------------


def test_members_table_shows_roles_state_and_layer_counts(scenario):
    page = client_for(scenario["manager"]).get(team_url(scenario["corpus"])).content.decode()
    # ann and bob each have one layer in progress (one mention each); annotator1's
    # imported layer is reviewed (finished); rita reviews ann's layer, still in progress
    # (not in review yet).
    assert member_cells(page, "ann_annotator") == ["0", "1", "0", "0", "0"]
    assert member_cells(page, "bob_annotator") == ["0", "1", "0", "0", "0"]
    assert member_cells(page, "annotator1") == ["0", "0", "1", "0", "0"]
    assert member_cells(page, "rita_reviewer") == ["0", "0", "0", "0", "0"]
    annotator1 = re.search(r'<tr id="member-annotator1".*?</tr>', page, re.S).group(0)
    assert "inactive</span>" in annotator1 and ">Activate</button>" in annotator1
    assert "oscar_outsider" not in page  # another corpus's manager is no member here
    assert "Activate the inactive account</button>" in page


# --- Adding an existing account ---------------------------------------------------------------


def test_search_finds_existing_accounts_not_yet_members_and_adds_one(scenario):
    corpus, manager = scenario["corpus"], scenario["manager"]
    client = client_for(manager)

    def found(text):
        page = client.get(team_url(corpus), {"find": text}).content.decode()
        listed = re.search(r'<ul class="plain found" id="found">(.*?)</ul>', page, re.S)
        return re.findall(r"<strong>(\w+)</strong>", listed.group(1)) if listed else None

    assert found("bob_") == []  # bob_annotator is a member already
    assert found("other_annotator1") == ["other_annotator1", "other_annotator10"]  # another corpus's imports
    assert found("osc") == ["oscar_outsider"]
    assert found("o") is None  # two letters at least
    outsider = scenario["outsider"]
    response = follow_post(client, team_url(corpus, "add/"), {"user": outsider.pk, "roles": ["annotator", "reviewer"]})
    assert "oscar_outsider joined the team as annotator, reviewer." in messages_of(response)
    assert roles_of(corpus, outsider) == ["annotator", "reviewer"]


def test_adding_without_a_role_is_refused_with_the_services_message(scenario):
    corpus, outsider = scenario["corpus"], scenario["outsider"]
    response = follow_post(client_for(scenario["manager"]), team_url(corpus, "add/"), {"user": outsider.pk})
    assert any("Choose at least one role" in message for message in messages_of(response))
    assert roles_of(corpus, outsider) == []


# --- Accounts ----------------------------------------------------------------------------------


def test_a_new_account_gets_a_set_password_link_shown_once_that_works(scenario):
    corpus, client = scenario["corpus"], client_for(scenario["manager"])
    response = client.post(
        team_url(corpus, "create/"),
        {
            "username": "nina",
            "first_name": "Nina",
            "last_name": "Berg",
            "email": "nina@example.org",
            "roles": "annotator",
        },
    )
    assert response.status_code == 302 and response["Location"].endswith("#links")
    nina = get_user_model().objects.get(username="nina")
    assert nina.is_active and not nina.has_usable_password() and nina.email == "nina@example.org"
    assert roles_of(corpus, nina) == ["annotator"]
    page = client.get(team_url(corpus)).content.decode()
    link = re.search(r'value="(http://testserver/accounts/set-password/[^"]+)"', page).group(1)
    assert "shown once" in page
    assert "/accounts/set-password/" not in client.get(team_url(corpus)).content.decode()  # gone on the next view
    # The link lets Nina choose a password, then log in.
    from django.test import Client

    visitor = Client()
    form_page = visitor.get(link.removeprefix("http://testserver"), follow=True)
    assert form_page.status_code == 200
    done = visitor.post(
        form_page.redirect_chain[-1][0], {"new_password1": "a-long-pass-42", "new_password2": "a-long-pass-42"}
    )
    assert done.status_code == 302
    # Through the login page (the throttled way in: django-axes needs the request).
    logged_in = Client().post("/login/", {"username": "nina", "password": "a-long-pass-42"})
    assert logged_in.status_code == 302
    assert logged_in.url == "/"


def test_a_taken_username_is_refused_and_the_form_keeps_what_was_typed(scenario):
    response = client_for(scenario["manager"]).post(
        team_url(scenario["corpus"], "create/"),
        {"username": "ann_annotator", "first_name": "Another", "roles": "annotator"},
    )
    page = response.content.decode()
    assert response.status_code == 422
    assert "The username &#x27;ann_annotator&#x27; is taken: choose another." in page
    assert 'value="Another"' in page
    assert get_user_model().objects.filter(username__iexact="ann_annotator").count() == 1


def test_activating_one_imported_account_shows_its_link_once(scenario):
    corpus, client = scenario["corpus"], client_for(scenario["manager"])
    annotator1 = get_user_model().objects.get(username="annotator1")
    assert not annotator1.is_active
    client.post(team_url(corpus, f"{annotator1.pk}/activate/"))
    annotator1.refresh_from_db()
    assert annotator1.is_active
    page = client.get(team_url(corpus)).content.decode()
    assert 'aria-label="Set-password link for annotator1"' in page


def test_activate_all_activates_every_inactive_member_and_lists_each_link(scenario):
    corpus, client = scenario["corpus"], client_for(scenario["manager"])
    second = make_user("annotator2", active=False)
    CorpusMembership.objects.create(corpus=corpus, user=second, role=Role.ANNOTATOR)
    response = follow_post(client, team_url(corpus, "activate/"), {})
    assert "2 accounts activated." in messages_of(response)
    page = response.content.decode()
    assert page.count('aria-label="Set-password link for ') == 2
    assert not get_user_model().objects.filter(corpus_memberships__corpus=corpus, is_active=False).exists()


def test_activating_someone_outside_the_corpus_answers_404(scenario):
    response = client_for(scenario["manager"]).post(
        team_url(scenario["corpus"], f"{scenario['outsider'].pk}/activate/")
    )
    assert response.status_code == 404


# --- Roles, deactivation, removal ------------------------------------------------------------------


def test_roles_are_replaced_by_the_boxes_ticked(scenario):
    corpus, bob = scenario["corpus"], scenario["bob"]
    response = follow_post(
        client_for(scenario["manager"]), team_url(corpus, f"{bob.pk}/roles/"), {"roles": ["reviewer", "manager"]}
    )
    assert roles_of(corpus, bob) == ["manager", "reviewer"]
    assert "bob_annotator is now reviewer, manager in ECHR test." in messages_of(response)


def test_the_last_manager_cannot_drop_their_own_manager_role(scenario):
    corpus, manager = scenario["corpus"], scenario["manager"]
    response = follow_post(client_for(manager), team_url(corpus, f"{manager.pk}/roles/"), {"roles": ["annotator"]})
    assert any("last active manager" in message for message in messages_of(response))
    assert roles_of(corpus, manager) == ["manager"]


def test_deactivating_shuts_the_account_and_oneself_is_refused(scenario):
    corpus, manager, bob = scenario["corpus"], scenario["manager"], scenario["bob"]
    client = client_for(manager)
    follow_post(client, team_url(corpus, f"{bob.pk}/deactivate/"), {})
    bob.refresh_from_db()
    assert not bob.is_active and roles_of(corpus, bob) == ["annotator"]  # roles kept for a later activation
    response = follow_post(client, team_url(corpus, f"{manager.pk}/deactivate/"), {})
    assert "You cannot deactivate your own account." in messages_of(response)
    manager.refresh_from_db()
    assert manager.is_active


def test_removing_a_member_keeps_their_layer_and_shuts_them_out(scenario):
    corpus, bob, layer = scenario["corpus"], scenario["bob"], scenario["bob_layer"]
    manager = client_for(scenario["manager"])
    page = manager.get(team_url(corpus)).content.decode()
    assert "Their layers stay, attributed to them" in page  # the confirm step says what happens
    response = follow_post(manager, team_url(corpus, f"{bob.pk}/remove/"), {})
    assert "bob_annotator is no longer a member of ECHR test. Their layers stay, attributed to them." in (
        messages_of(response)
    )
    assert roles_of(corpus, bob) == []
    assert AnnotationLayer.objects.get(pk=layer.pk).annotator == bob
    assert client_for(bob).get(f"/layers/{layer.pk}/").status_code == 404
    assert client_for(bob).get(f"/corpora/{corpus.pk}/").status_code == 404
    document_page = manager.get(f"/documents/{layer.document_id}/?layer={layer.pk}").content.decode()
    assert "bob_annotator" in document_page


def test_the_last_manager_cannot_remove_themselves(scenario):
    corpus, manager = scenario["corpus"], scenario["manager"]
    response = follow_post(client_for(manager), team_url(corpus, f"{manager.pk}/remove/"), {})
    assert any("last active manager" in message for message in messages_of(response))
    assert roles_of(corpus, manager) == ["manager"]


# --- Review pairs -----------------------------------------------------------------------------------


def test_pairs_are_chosen_from_annotators_with_inactive_ones_marked(scenario):
    corpus, ann, bob = scenario["corpus"], scenario["ann"], scenario["bob"]
    client = client_for(scenario["manager"])
    page = client.get(team_url(corpus)).content.decode()
    pair_form = re.search(r'<form[^>]*id="pair-form".*?</form>', page, re.S).group(0)
    assert "annotator1 (inactive)</option>" in pair_form and "rita_reviewer" not in pair_form
    response = follow_post(client, team_url(corpus, "pairs/"), {"first": ann.pk, "second": bob.pk})
    assert "Paired ann_annotator and bob_annotator." in messages_of(response)
    pair = ReviewPair.objects.get(corpus=corpus)
    follow_post(client, team_url(corpus, f"pairs/{pair.pk}/unpair/"), {})
    assert not ReviewPair.objects.filter(corpus=corpus).exists()


def test_pairing_someone_with_themselves_or_an_outsider_is_refused(scenario):
    corpus, ann = scenario["corpus"], scenario["ann"]
    client = client_for(scenario["manager"])
    response = follow_post(client, team_url(corpus, "pairs/"), {"first": ann.pk, "second": ann.pk})
    assert "An annotator cannot be paired with themselves." in messages_of(response)
    response = follow_post(client, team_url(corpus, "pairs/"), {"first": ann.pk, "second": scenario["outsider"].pk})
    assert "Choose two annotators of the team to pair." in messages_of(response)
    assert not ReviewPair.objects.exists()


def _join_with_work(corpus, manager, name: str, document_number: int):
    """A new annotator member with one assigned layer on a document of their own."""
    user = make_user(name)
    CorpusMembership.objects.create(corpus=corpus, user=user, role=Role.ANNOTATOR)
    document = Document.objects.create(corpus=corpus, doc_id=f"q{document_number}", text="Mr Smith.")
    assign_layer(document, user, actor=manager)
    return user


def test_the_team_page_reads_the_same_number_of_queries_for_two_members_or_twelve(corpus, people):
    client = client_for(people["manager"])
    first = [_join_with_work(corpus, people["manager"], f"early_{i}", i) for i in range(2)]
    ReviewPair.objects.create(corpus=corpus, first=first[0], second=first[1])
    with CaptureQueriesContext(connection) as few:
        assert client.get(team_url(corpus)).status_code == 200
    more = [_join_with_work(corpus, people["manager"], f"late_{i}", 10 + i) for i in range(10)]
    for one, other in zip(more[::2], more[1::2], strict=True):
        ReviewPair.objects.create(corpus=corpus, first=one, second=other)
    with CaptureQueriesContext(connection) as many:
        page = client.get(team_url(corpus)).content.decode()
    assert member_cells(page, "late_9")[0] == "1"  # the new members are listed, with their layer
    assert len(many) == len(few), [query["sql"] for query in many.captured_queries]


def test_a_forged_non_numeric_account_or_annotator_is_answered_like_a_missing_one(corpus, people):
    client = client_for(people["manager"])
    document = Document.objects.create(corpus=corpus, doc_id="d1", text="Mr Smith.")
    layer = assign_layer(document, people["ann"], actor=people["manager"])
    assert client.post(team_url(corpus, "add/"), {"user": "abc", "roles": ["annotator"]}).status_code == 404
    response = follow_post(client, team_url(corpus, "pairs/"), {"first": "x", "second": people["bob"].pk})
    assert "Choose two annotators of the team to pair." in messages_of(response)
    response = follow_post(client, f"/corpora/{corpus.pk}/layers/{layer.pk}/hand-over/", {"annotator": "zz"})
    assert "Choose whom to hand ann_annotator's layer on d1 over to." in messages_of(response)
    response = follow_post(client, f"/corpora/{corpus.pk}/reviews/", {"action": "pair", "first": "1e3", "second": "2"})
    assert "Choose two annotators to pair." in messages_of(response)
    assert not ReviewPair.objects.exists()
    assert AnnotationLayer.objects.get(pk=layer.pk).annotator == people["ann"]
