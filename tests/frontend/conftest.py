"""Browser fixtures: the system Chromium driven by Playwright (no browser download)."""

import os
import shutil

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

# JavaScript: the viewport rectangles of the n-th occurrence of a string in the text.
RECTS_OF = """([needle, nth]) => {
  let count = 0;
  for (const run of document.querySelectorAll('#doc-text [data-o]')) {
    const node = run.firstChild;
    if (!node) continue;
    let i = node.data.indexOf(needle);
    while (i >= 0) {
      if (count === nth) {
        run.scrollIntoView({block: 'center'});
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + needle.length);
        const rects = [...range.getClientRects()].filter(r => r.width > 0);
        const first = rects[0], last = rects[rects.length - 1];
        return {x1: first.left + 1, y1: first.top + first.height / 2,
                x2: last.right - 1, y2: last.top + last.height / 2};
      }
      count += 1;
      i = node.data.indexOf(needle, i + 1);
    }
  }
  return null;
}"""


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM):
        pytest.fail("Chromium is needed for the browser tests: install it (apt-get install chromium) or set CHROMIUM.")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls
    # are still synchronous.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
            )
            yield browser
            browser.close()
    finally:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


@pytest.fixture
def login(browser, live_server):
    """A new browser page logged in as ``username`` (password "pw-<username>")."""
    pages = []

    def open_as(username: str, viewport=(1440, 900)):
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.goto(f"{live_server.url}/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", f"pw-{username}")
        page.click("button[type=submit]")
        page.wait_for_load_state()
        pages.append(page)
        return page

    yield open_as
    for page in pages:
        assert page.errors == [], page.errors
        page.context.close()


def drag_select(page, needle: str, nth: int = 0) -> None:
    """Select text with the real mouse, from the first to the last character of the
    n-th occurrence of ``needle`` in the document text."""
    box = page.evaluate(RECTS_OF, [needle, nth])
    assert box, f"{needle!r} (occurrence {nth}) is not in the text"
    # The workspace scrolls smoothly to a selected mention: wait until the text stands
    # still, or the mouse would drag over whatever scrolls under it.
    for _ in range(40):
        page.wait_for_timeout(50)
        again = page.evaluate(RECTS_OF, [needle, nth])
        if again == box:
            break
        box = again
    page.mouse.move(box["x1"], box["y1"])
    page.mouse.down()
    page.mouse.move(box["x2"], box["y2"], steps=5)
    page.mouse.up()


def client_for(user):
    """A Django test client logged in as ``user``."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client
