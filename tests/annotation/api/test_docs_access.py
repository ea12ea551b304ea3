"""The API schema and its documentation pages are for logged-in users unless
SANITIZE_API_DOCS_PUBLIC says otherwise (read at each request); the pages carry no
inline script, so that the Content-Security-Policy's script-src 'self' holds."""

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

PAGES = ["/api/docs/"]
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)


@pytest.fixture
def logged_in(people):
    client = Client()
    client.force_login(people["ann"])
    return client


def test_an_anonymous_visitor_cannot_read_the_schema(db, settings):
    settings.SANITIZE_API_DOCS_PUBLIC = False
    response = Client().get("/api/schema/")
    assert response.status_code in (401, 403)
    assert "paths" not in response.content.decode()
    assert "Log in to read the API schema and its documentation." in response.content.decode()


@pytest.mark.parametrize("page", PAGES)
def test_an_anonymous_visitor_of_a_docs_page_is_sent_to_the_login_page(db, settings, page):
    settings.SANITIZE_API_DOCS_PUBLIC = False
    response = Client().get(page)
    assert response.status_code == 302
    assert response["Location"] == f"/login/?next={page}"


def test_the_swagger_script_is_not_served_to_an_anonymous_visitor(db, settings):
    settings.SANITIZE_API_DOCS_PUBLIC = False
    assert Client().get("/api/docs/?script=").status_code == 302


def test_a_logged_in_user_reads_the_schema(logged_in, settings):
    settings.SANITIZE_API_DOCS_PUBLIC = False
    response = logged_in.get("/api/schema/?format=json")
    assert response.status_code == 200
    assert "/api/entities/{id}/merge/" in response.json()["paths"]
    # The job counts' old names are still answered, and documented as deprecated.
    components = response.json()["components"]["schemas"]
    for name, field in (
        ("ImportJob", "documents_done"),
        ("PreannotationRun", "documents_total"),
        ("Release", "documents_total"),
    ):
        assert components[name]["properties"][field]["deprecated"] is True, (name, field)


@pytest.mark.parametrize("page", PAGES)
def test_a_logged_in_user_reads_a_docs_page_without_inline_script(logged_in, settings, page):
    settings.SANITIZE_API_DOCS_PUBLIC = False
    response = logged_in.get(page)
    assert response.status_code == 200
    html = response.content.decode()
    assert INLINE_SCRIPT.findall(html) == []
    assert "/api/schema/" in html or 'src="/api/docs/?script=' in html


def test_the_swagger_page_loads_its_start_up_script_from_its_own_url(logged_in):
    html = logged_in.get("/api/docs/").content.decode()
    assert '<script src="/api/docs/?script="></script>' in html
    script = logged_in.get("/api/docs/?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode() and "/api/schema/" in script.content.decode()


def test_public_docs_are_readable_anonymously_when_the_setting_says_so(db, settings):
    settings.SANITIZE_API_DOCS_PUBLIC = True
    client = Client()
    assert client.get("/api/schema/").status_code == 200
    for page in PAGES:
        assert client.get(page).status_code == 200


def test_the_docs_pages_run_no_script_but_this_sites_files(logged_in):
    """Content-Security-Policy of the page: script-src 'self' only, no inline style."""
    policies = {page: logged_in.get(page)["Content-Security-Policy"] for page in PAGES}
    for policy in policies.values():
        directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
        assert directives["script-src"] == "'self'"
    assert "'unsafe-inline'" not in policies["/api/docs/"]
