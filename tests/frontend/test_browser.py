"""A manager logs in with a real Chromium and finds the imported documents.

The browser is the system Chromium (Playwright cannot download one here); a
screenshot of the document page is kept in artifacts/ for people to look at."""

import pytest
from django.contrib.auth.models import Permission

from annotation.enums import Role
from annotation.models import Corpus, CorpusMembership
from tests.conftest import REPO, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ARTIFACTS = REPO / "artifacts"


def test_manager_logs_in_and_reads_an_imported_document(browser, live_server, pick, import_documents):
    corpus = Corpus.objects.create(name="Browser corpus")
    import_documents(corpus, pick("001-83927", "001-79436"))
    manager = make_user("maria")
    CorpusMembership.objects.create(corpus=corpus, user=manager, role=Role.MANAGER)
    manager.user_permissions.add(Permission.objects.get(codename="add_corpus"))

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(f"{live_server.url}/")
    page.fill("#id_username", "maria")
    page.fill("#id_password", "pw-maria")
    page.click("button[type=submit]")
    page.click("text=Browser corpus")
    rows = page.locator("#documents tbody tr")
    assert rows.count() == 2
    assert "Cengiz Polat" in rows.nth(0).inner_text()
    page.click("text=annotator10")
    assert page.locator(".taskbox-person").inner_text() == "Cengiz Polat"
    marks = page.locator("mark[data-m]")
    assert marks.count() == 38
    first = page.locator("mark[data-m]").first
    assert first.inner_text().startswith("40593/04")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "document-page.png"))
    page.close()
