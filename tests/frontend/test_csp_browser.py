"""The Content-Security-Policy in a real Chromium: a walk over every kind of page, as
manager, annotator and reviewer (and logged out), with a decision made in the workspace
and the dialogs htmx loads; the browser reports no violation of the policy and logs no
error. Screenshots of a few pages go to artifacts/ (inline styles were replaced by
classes and <progress> elements: they show whether anything looks broken)."""

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from annotation.enums import LayerStatus
from annotation.models import AnnotationLayer
from annotation.services.releases import run_batch, start_release
from tests.conftest import REPO

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ARTIFACTS = REPO / "artifacts"
READY = "#workspace[aria-busy='false']"

# Runs before any script of every page: remembers each violation the browser reports.
LISTEN = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(
  `${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber} ${e.sample}`));
"""


class Walker:
    """One role's browser page; ``visit`` opens a path and records what went wrong."""

    def __init__(self, page, base_url: str, role: str):
        self.page, self.base_url, self.role, self.problems = page, base_url, role, []
        page.context.add_init_script(LISTEN)
        page.on("console", lambda message: message.type == "error" and self.note("console", message.text))
        # The admin's pages name no icon (ours say href="data:,"): Chromium's own request
        # for /favicon.ico would log a 404 that has nothing to do with the policy.
        page.context.route("**/favicon.ico", lambda route: route.fulfill(status=204))

    def note(self, kind: str, text: str) -> None:
        self.problems.append(f"{self.role} {self.page.url} {kind}: {text}")

    def check(self) -> None:
        for violation in self.page.evaluate("window.__violations || []"):
            self.note("csp", violation)

    def visit(self, path: str, ready: str = "main", screenshot: str = "") -> None:
        response = self.page.goto(self.base_url + path)
        assert response.status < 400, f"{self.role} {path}: {response.status}"
        assert "Content-Security-Policy" in response.headers or "content-security-policy" in response.headers
        try:  # a page whose script the policy blocked never gets ready: say so, with the violations
            self.page.wait_for_selector(ready, timeout=15_000)
        except PlaywrightTimeout:
            self.note("never ready", ready)
        self.page.wait_for_load_state("networkidle")
        if screenshot:
            self.page.screenshot(path=str(ARTIFACTS / f"csp-{screenshot}.png"), full_page=False)
        self.check()


@pytest.fixture
def walk(scenario, browser, live_server, login):
    """The scenario with ann's layer confirmed (rita reviews it), the manager staff."""
    AnnotationLayer.objects.filter(pk=scenario["ann_layer"].pk).update(status=LayerStatus.CONFIRMED)
    manager = scenario["manager"]
    manager.is_staff = manager.is_superuser = True
    manager.save()
    ARTIFACTS.mkdir(exist_ok=True)

    def as_role(username: str, role: str) -> Walker:
        return Walker(login(username), live_server.url, role)

    return scenario, as_role


def test_no_page_violates_the_content_security_policy(walk, live_server, browser, settings, eager_tasks):
    scenario, as_role = walk
    # Reports (agreement, evaluation) computed in a thread as embedded: the agreement page
    # shows its progress, then its section reloads with the heatmap, all under the policy.
    settings.SANITIZE_REPORTS = {"in_thread": True}
    corpus, document = scenario["corpus"].pk, scenario["document"].pk
    ann_layer, bob_layer = scenario["ann_layer"].pk, scenario["bob_layer"].pk

    manager = as_role("mia_manager", "manager")
    # The listener hears a violation: an inline style attribute set by a script is refused.
    manager.visit("/")
    manager.page.evaluate("document.body.setAttribute('style', 'color: red')")
    assert manager.page.evaluate("window.__violations.length") == 1
    assert manager.page.evaluate("getComputedStyle(document.body).color") != "rgb(255, 0, 0)"
    manager.problems.clear()
    for path, ready, shot in [
        ("/", "main", "home"),
        (f"/corpora/{corpus}/", "main", ""),
        (f"/documents/{document}/", "main", ""),
        (f"/corpora/{corpus}/team/", "main", ""),
        (f"/corpora/{corpus}/assign/", "#open-layers", "assign"),
        (f"/corpora/{corpus}/progress/", "svg.chart", "progress"),
        (f"/corpora/{corpus}/agreement/", "table.heatmap", "agreement"),
        (f"/corpora/{corpus}/evaluation/", "main", ""),
        (f"/corpora/{corpus}/models/", "main", ""),
        (f"/corpora/{corpus}/export/", "main", ""),
        (f"/corpora/{corpus}/reviews/", "main", ""),
        (f"/corpora/{corpus}/audit/", "main", ""),
        (f"/layers/{ann_layer}/masked/", "main", ""),
        ("/admin/", "#content", "admin"),
        ("/admin/auth/user/", "#result_list", ""),
        (f"/admin/auth/user/{scenario['ann'].pk}/change/", "#user_form", ""),
        ("/admin/axes/accessattempt/", "#content", ""),
        ("/api/docs/", ".swagger-ui .info", "api-docs"),
        (f"/corpora/{corpus}/releases/", "main", ""),
    ]:
        manager.visit(path, ready, shot)
    # A finished release of ann's confirmed layer: its page and a document side by side,
    # with a replacement's popover opened.
    release = start_release(scenario["corpus"], source="reviewed", strategy="rules", actor=scenario["manager"])
    run_batch(release.pk, list(release.documents.values_list("document_id", flat=True)))
    manager.visit(f"/releases/{release.pk}/", "main")
    manager.visit(f"/releases/{release.pk}/documents/{document}/", "main")
    manager.page.locator("[popovertarget]").first.click()
    manager.page.wait_for_selector("[popover]:popover-open")
    manager.check()

    annotator = as_role("bob_annotator", "annotator")
    annotator.visit("/work/", "main", "my-work")
    annotator.page.select_option("#order", "uncertain")  # the filters submit on change (no inline handler)
    annotator.page.wait_for_url("**/work/?*order=uncertain*")
    annotator.check()
    annotator.visit(f"/layers/{bob_layer}/", READY)
    annotator.page.locator("#doc-text mark[data-m]").first.click()
    annotator.page.keyboard.press("1")  # DIRECT
    annotator.page.wait_for_selector("#doc-text mark.d-DIRECT")
    annotator.page.wait_for_selector(READY)
    annotator.page.click("#btn-confirm")  # the confirm dialog, loaded by htmx
    annotator.page.wait_for_selector("#dialog :is(form, section, div)")
    annotator.page.screenshot(path=str(ARTIFACTS / "csp-workspace.png"), full_page=False)
    annotator.check()

    reviewer = as_role("rita_reviewer", "reviewer")
    reviewer.visit("/reviews/", "main")
    reviewer.visit(f"/layers/{ann_layer}/review/", "main", "masked-reading")
    reviewer.visit(f"/layers/{ann_layer}/masked/", "main")

    # Logged out: the login page, and the lock-out page after too many wrong passwords.
    settings.AXES_FAILURE_LIMIT = 2
    visitor = Walker(browser.new_context().new_page(), live_server.url, "visitor")
    for _ in range(2):
        visitor.visit("/login/", "#id_username")
        visitor.page.fill("#id_username", "ann_annotator")
        visitor.page.fill("#id_password", "wrong-guess")
        visitor.page.click("button[type=submit]")
        visitor.page.wait_for_load_state()
    visitor.page.wait_for_selector("#locked-out")
    visitor.page.screenshot(path=str(ARTIFACTS / "csp-locked-out.png"), full_page=False)
    visitor.check()
    visitor.page.context.close()

    problems = manager.problems + annotator.problems + reviewer.problems + visitor.problems
    # The lock-out page answers 429, which Chromium logs as a failed resource: expected.
    problems = [p for p in problems if not ("/login/" in p and "status of 429" in p)]
    assert problems == []
