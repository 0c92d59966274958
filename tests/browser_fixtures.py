"""Headless Chromium (Debian package) driven by Playwright against Django's live server."""

import os
import shutil

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="session")
def browser():
    from tests.conftest import require  # here: tests.conftest imports this module

    require(
        shutil.which(CHROMIUM) or os.path.exists(CHROMIUM),
        f"Chromium not found at {CHROMIUM} (apt-get install chromium chromium-driver)",
    )
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    # The tests instrument pages with page.evaluate / wait_for_function (string eval), which the
    # site's CSP forbids; tests/browser/test_csp_browser.py drives the pages under the CSP itself.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    yield page
    context.close()


def login(page, live_server, username, password="pw-for-tests-1"):
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")


#: the two widths every crowd page is tried at: desktop and phone
WIDTHS = {"desktop": (1366, 900), "phone": (390, 844)}


def contexts_maker(browser, width, language=None):
    """``(make, close)``: ``make()`` opens a new browser context (its own cookies) at ``width`` (a key of
    WIDTHS), in ``language``'s locale when given, and returns its page; ``close()`` closes them all."""
    contexts = []

    def make():
        w, h = WIDTHS[width]
        locale = {"locale": "fr-FR" if language == "fr" else "en-US"} if language else {}
        context = browser.new_context(viewport={"width": w, "height": h}, bypass_csp=True, **locale)
        contexts.append(context)
        return context.new_page()

    def close():
        for context in contexts:
            context.close()

    return make, close


def screenshot_taker(folder, prefix, check):
    """``take(page, name)``: a full-page screenshot to ``folder`` (created), named ``{prefix}_{name}_...``, then
    ``check(page)`` must return no violation (axe-core's serious or critical ones)."""
    folder.mkdir(parents=True, exist_ok=True)

    def take(page, name):
        page.screenshot(path=str(folder / f"{prefix(name)}.png"), full_page=True)
        assert check(page) == [], name

    return take
