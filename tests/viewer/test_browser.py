"""The trace viewer in headless Chromium (Debian ``chromium`` + ``chromium-driver``, driven by Selenium): the page
loads a real trace from the server on loopback, the highlighted spans read from the DOM match the claims, an XSS
payload in the model's text stays inert, and a screenshot is saved as a test artifact.

Skipped, with the reason, when the browser, its driver or selenium is missing (``apt-get install chromium
chromium-driver``; ``pip install selenium`` comes with the ``test`` extra) -- except under ``CI=true``, where a
missing browser fails the run: CI must not pass by silently not testing the viewer.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .conftest import XSS

CHROMIUM = os.environ.get("CONTROLPLANE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CONTROLPLANE_CHROMEDRIVER", "/usr/bin/chromedriver")
ARTIFACTS = Path(os.environ.get("CONTROLPLANE_ARTIFACTS", Path(__file__).resolve().parents[2] / "artifacts")) / "viewer"


def _missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing: apt-get install -y chromium chromium-driver"
    if not Path(CHROMEDRIVER).exists():
        return f"{CHROMEDRIVER} is missing: apt-get install -y chromium-driver"
    try:
        import selenium  # noqa: F401 -- only whether it is installed
    except ImportError:
        return "selenium is not installed: pip install -e '.[test]'"
    return None


def browser_required() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


pytestmark = pytest.mark.skipif(_missing() is not None and not browser_required(), reason=_missing() or "")


@pytest.fixture
def browser(tmp_path):
    problem = _missing()
    if problem:  # only reached under CI=true (otherwise the module is skipped)
        pytest.fail(f"CI=true requires the viewer's browser test, but {problem}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,1600", f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture
def served(traces):
    from controlplane.server import BackgroundServer

    plane, replies = traces
    server = BackgroundServer(plane.app()).start()
    yield server.url, replies
    server.stop()


def save_screenshot(driver, name: str) -> Path:
    """A full-page screenshot under artifacts/viewer/ (gitignored); the path is printed."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    driver.execute_script("window.scrollTo(0, 0)")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, min(int(height) + 40, 8000))
    assert driver.save_screenshot(str(path))
    print(f"\n[viewer screenshot] {path}")
    return path


def test_the_viewer_renders_a_real_trace_with_claims_highlighted(browser, served, traces):
    from selenium.webdriver.common.by import By

    url, replies = served
    plane = traces[0]
    browser.get(f"{url}/traces")
    rows = browser.find_elements(By.CSS_SELECTOR, "tr.trace-row")
    assert {r.get_attribute("data-trace-id") for r in rows} == {r.trace_id for r in replies.values()}
    save_screenshot(browser, "trace-list.png")

    reply = replies["degraded"]
    browser.find_element(By.CSS_SELECTOR, f"tr[data-trace-id='{reply.trace_id}'] a").click()
    assert browser.find_element(By.ID, "trace-id").text == reply.trace_id

    marks = browser.find_elements(By.CSS_SELECTOR, "#checked-text mark.claim")
    seen = [(m.get_attribute("data-claim-id"), m.get_attribute("data-verdict"), m.text) for m in marks]
    assert seen == [(c.claim_id, c.verdict, c.text) for c in reply.claims]
    # the colour a reader sees follows the verdict
    colours = {m.get_attribute("data-verdict"): m.value_of_css_property("background-color") for m in marks}
    assert colours["PASS"] != colours["FAIL"]
    # the timeline is in seq order and each attempt's gates carry their result
    seqs = [int(li.get_attribute("data-seq")) for li in browser.find_elements(By.CSS_SELECTOR, "#timeline li")]
    assert seqs == [e.seq for e in plane.trace(reply.trace_id).events] == list(range(len(seqs)))
    failed = browser.find_elements(By.CSS_SELECTOR, ".attempt .gate.fail")
    assert "evidence_binding" in {g.get_attribute("data-gate-id") for g in failed}
    # clicking a claim highlights the evidence it cites
    marks[0].click()
    evidence = browser.find_element(By.ID, "ev-E1")
    assert "active" in evidence.get_attribute("class").split()
    shot = save_screenshot(browser, "trace-degraded.png")
    assert shot.stat().st_size > 10_000


def test_an_xss_payload_in_the_answer_stays_text(browser, served):
    from selenium.webdriver.common.by import By

    url, replies = served
    reply = replies["hostile"]
    browser.get(f"{url}/traces/{reply.trace_id}")
    assert browser.execute_script("return typeof window.__xss") == "undefined"
    assert browser.find_elements(By.CSS_SELECTOR, "#checked-text img, #checked-text script") == []
    assert XSS in browser.find_element(By.ID, "checked-text").text
    # our own script did run (CSP allowed its nonce): clicking a claim still highlights evidence
    mark = browser.find_element(By.CSS_SELECTOR, "#checked-text mark.claim")
    mark.click()
    assert "active" in mark.get_attribute("class").split()
    save_screenshot(browser, "trace-xss.png")

