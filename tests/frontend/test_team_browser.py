"""A manager runs a team from the browser, on real TAB documents whose original
annotators were imported as inactive accounts: activate two of them, create a new
account, assign 10 documents to the three with two annotators per document, hand over
a started layer, withdraw an unstarted one, pair two annotators, remove a member, who
is refused at once while their layer stays visible to the manager."""

from collections import Counter

import pytest
from django.contrib.auth import get_user_model

from annotation.enums import LayerStatus, Role
from annotation.models import AnnotationLayer, AuditEvent, Corpus, CorpusMembership, ReviewPair
from annotation.services.mentions import create_mention
from tests.conftest import REPO, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ARTIFACTS = REPO / "artifacts"
# Ten documents annotated by annotator1 alone in the TAB dev sample, and two more that
# bring in annotator10 and annotator2: the accounts the manager activates.
ASSIGNED = (
    "001-79436", "001-126979", "001-83617", "001-97110", "001-101444",
    "001-66723", "001-94737", "001-78431", "001-88502", "001-71938",
)  # fmt: skip
OTHERS = ("001-83927", "001-99929")
PASSWORD = "a-long-secret-for-tests"


@pytest.fixture
def project(pick, import_documents):
    corpus = Corpus.objects.create(name="TAB team")
    import_documents(corpus, pick(*ASSIGNED, *OTHERS))
    manager = make_user("mia")
    CorpusMembership.objects.create(corpus=corpus, user=manager, role=Role.MANAGER)
    return corpus


def member_row(page, username):
    return page.locator(f"#member-{username}")


def choose_password(browser, url: str, username: str):
    """Open a set-password link in a fresh browser, choose a password, log in."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(url)
    page.fill("#id_new_password1", PASSWORD)
    page.fill("#id_new_password2", PASSWORD)
    with page.expect_navigation():
        page.click("text=Set my password")
    base = url.split("/accounts/")[0]
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("button[type=submit]")
    return page


def test_manager_runs_the_team_from_the_browser(login, browser, live_server, project):
    corpus = project
    User = get_user_model()
    assert not User.objects.get(username="annotator10").is_active  # imported accounts start inactive
    page = login("mia")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/")
    with page.expect_navigation():
        page.click(".page-head a:text-is('Team')")
    assert "3 inactive accounts" in page.locator(".page-head").inner_text()

    # Activate two imported annotators, one at a time: each link is shown once.
    with page.expect_navigation():
        page.click("[aria-label='Activate annotator2']")
    assert page.locator("#links .link-owner").all_inner_texts() == ["annotator2"]
    page.click("#links button.copy")
    page.wait_for_selector("#links button.copy:text-is('Copied')")  # the copy is asynchronous
    with page.expect_navigation():
        page.click("[aria-label='Activate annotator10']")
    link10 = page.locator("[aria-label='Set-password link for annotator10']").input_value()
    assert "/accounts/set-password/" in link10
    page.reload()
    assert page.locator("#links").count() == 0  # shown once
    assert User.objects.get(username="annotator2").is_active and User.objects.get(username="annotator10").is_active

    # A new account, with its link shown once.
    page.fill("#id_username", "nina")
    page.fill("#id_first_name", "Nina")
    page.fill("#id_last_name", "Berg")
    page.fill("#id_email", "nina@example.org")
    with page.expect_navigation():
        page.click("#create button[type=submit]")
    assert "shown once" in page.locator("#links h2").inner_text()
    assert page.locator("#links .link-owner").all_inner_texts() == ["nina"]
    assert member_row(page, "nina").locator(".role").all_inner_texts() == ["annotator"]

    # Assign the ten documents to the three annotators, two per document.
    with page.expect_navigation():
        page.click(".manager-nav a:text-is('Assign')")
    for doc_id in ASSIGNED:
        page.check(f"#documents tr:has(label:text-is('{doc_id}')) input[name=documents]")
    for username in ("annotator10", "annotator2", "nina"):
        page.check(f"#annotators label:has-text('{username}') input")
    assert page.locator("#selected-count").inner_text() == "10 documents selected"
    page.check("input[name=strategy][value=balanced]")
    page.fill("#per-document", "2")
    with page.expect_navigation():
        page.click("#preview-button")
    assert page.locator("#preview-title").inner_text() == "Preview: 20 new layers on 10 documents"
    assert AnnotationLayer.objects.filter(status=LayerStatus.ASSIGNED).count() == 0  # a preview creates nothing
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "assign.png"), full_page=True)
    with page.expect_navigation():
        page.click("#apply")
    assert "20 layers assigned to annotator10, annotator2, nina." in page.locator(".messages").inner_text()
    new = AnnotationLayer.objects.filter(document__corpus=corpus, status=LayerStatus.ASSIGNED)
    loads = Counter(new.values_list("annotator__username", flat=True))
    assert sum(loads.values()) == 20 and set(loads) == {"annotator10", "annotator2", "nina"}
    assert max(loads.values()) - min(loads.values()) <= 1  # balanced: 7, 7, 6 in some order
    per_document = Counter(new.values_list("document__doc_id", flat=True))
    assert per_document == dict.fromkeys(ASSIGNED, 2)

    # annotator2 starts one layer; the manager hands it over to the third annotator.
    started = new.filter(annotator__username="annotator2").order_by("document__position").first()
    annotator2 = started.annotator
    create_mention(started, actor=annotator2, start_offset=0, end_offset=3, entity_type="MISC")
    holders = set(
        AnnotationLayer.objects.filter(document=started.document).values_list("annotator__username", flat=True)
    )
    (successor,) = {"annotator10", "annotator2", "nina"} - holders
    page.reload()
    row = page.locator(f"#layer-{started.pk}")
    assert row.locator(".status").inner_text() == "In progress"
    row.locator("select[name=annotator]").select_option(label=successor)
    with page.expect_navigation():
        row.locator("button:text-is('Hand over')").click()
    assert f"now {successor}'s, with its annotations and history" in page.locator(".messages").inner_text()
    started.refresh_from_db()
    assert started.annotator.username == successor and started.status == LayerStatus.IN_PROGRESS
    assert started.mentions.count() == 1
    assert AuditEvent.objects.filter(layer=started, action="layer.handover", changes__from="annotator2").exists()

    # Withdraw one unstarted layer: nobody worked on it, so it goes.
    unstarted = AnnotationLayer.objects.filter(
        document__corpus=corpus, status=LayerStatus.ASSIGNED, annotator__username="nina"
    ).first()
    row = page.locator(f"#layer-{unstarted.pk}")
    row.locator("summary").click()
    assert "If nobody has worked on it yet, it is removed" in row.locator("details[open] .pop-body").inner_text()
    with page.expect_navigation():
        row.locator("button:text-is('Withdraw the layer')").click()
    assert "nobody had started it, so it was removed" in page.locator(".messages").inner_text()
    assert not AnnotationLayer.objects.filter(pk=unstarted.pk).exists()

    # Pair two annotators on the team page.
    with page.expect_navigation():
        page.click(".manager-nav a:text-is('Team')")
    page.select_option("#pair-first", label="annotator2")
    page.select_option("#pair-second", label="nina")
    with page.expect_navigation():
        page.click("#pair-form button[type=submit]")
    assert "Paired annotator2 and nina." in page.locator(".messages").inner_text()
    assert ReviewPair.objects.filter(corpus=corpus).count() == 1
    row = member_row(page, "annotator10")
    assert row.locator("td.num").all_inner_texts()[0] in {"6", "7"}  # assigned, from the page
    page.screenshot(path=str(ARTIFACTS / "team.png"), full_page=True)

    # annotator10 chooses a password with the link and opens one of their layers.
    theirs = AnnotationLayer.objects.filter(annotator__username="annotator10", status=LayerStatus.ASSIGNED).first()
    member = choose_password(browser, link10, "annotator10")
    member.goto(f"{live_server.url}/layers/{theirs.pk}/")
    assert member.locator(".taskbox-person").count() == 1  # the workspace opens
    api = f"{live_server.url}/api/layers/{theirs.pk}/"
    assert member.context.request.get(api).status == 200

    # The manager removes annotator10, after the confirm step says what happens.
    row = member_row(page, "annotator10")
    row.locator("summary:has-text('Remove')").click()
    assert "Their layers stay, attributed to them" in row.locator("details[open] .pop-body").inner_text()
    with page.expect_navigation():
        row.locator("button:text-is('Remove annotator10')").click()
    assert "annotator10 is no longer a member of TAB team." in page.locator(".messages").inner_text()
    assert page.locator("#member-annotator10").count() == 0

    # Refused at once, on a page and on the API; the layer stays, shown to the manager.
    response = member.goto(f"{live_server.url}/layers/{theirs.pk}/")
    assert response.status == 404
    assert member.goto(f"{live_server.url}/corpora/{corpus.pk}/").status == 404
    assert member.context.request.get(api).status == 404
    member.context.close()
    theirs.refresh_from_db()
    assert theirs.annotator.username == "annotator10"
    page.goto(f"{live_server.url}/documents/{theirs.document_id}/?layer={theirs.pk}")
    assert "annotator10" in page.locator("main").inner_text()
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/assign/#open-layers")
    assert "(no longer an annotator here)" in page.locator(f"#layer-{theirs.pk}").inner_text()
