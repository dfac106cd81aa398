"""The browser console in a real headless Chromium (Debian's chromium + chromium-driver, via Selenium),
against a real server holding the cookbook's notes.

Set RELATE_SCREENSHOTS=docs to refresh the README's screenshots."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.server.conftest import PASSWORD, ServerProcess

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and CHROMEDRIVER):
        # A missing browser fails (never skips): .ci/run installs it, and a developer must too.
        pytest.fail("chromium and chromium-driver are needed (apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1400,1000", "--disable-extensions", "--no-first-run"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("console")
    notes = base / "notes.rl"
    subprocess.run([sys.executable, "examples/hybrid-recall/recall.py", str(notes)], cwd=ROOT, check=True,
                   capture_output=True)
    process = ServerProcess(base, "--data", str(notes), "--http-listen", "127.0.0.1:0")
    yield process
    process.stop()


def shot(driver, name: str, tmp_path: Path) -> None:
    folder = Path(os.environ.get("RELATE_SCREENSHOTS") or tmp_path)
    if not folder.is_absolute():
        folder = ROOT / folder
    driver.save_screenshot(str(folder / f"console-{name}.png"))


def test_login_query_table_graph_and_search_playground(browser, server, tmp_path):
    wait = WebDriverWait(browser, 30)
    browser.get(f"http://{server.info['http']}/")
    browser.find_element(By.ID, "password").send_keys(PASSWORD + "-wrong")
    browser.find_element(By.ID, "login-button").click()
    wait.until(lambda d: "unauthorized" in d.find_element(By.ID, "login-error").text)

    browser.find_element(By.ID, "password").clear()
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    browser.find_element(By.ID, "login-button").click()
    wait.until(ec.visibility_of_element_located((By.ID, "app")))
    wait.until(lambda d: "note_e" in d.find_element(By.ID, "schema").text)
    schema = browser.find_element(By.ID, "schema").text
    assert "Note" in schema and "Topic" in schema and "DECIDED" in schema and "note_id" in schema

    # A query: the table shows its rows.
    editor = browser.find_element(By.ID, "editor")
    editor.send_keys("MATCH (n:Note)-[r:ABOUT]->(t:Topic {name: 'auth'}) RETURN n, r, t ORDER BY n.id LIMIT 6")
    assert browser.find_elements(By.CSS_SELECTOR, "#highlight .tok-kw")          # highlighted
    browser.find_element(By.ID, "run").click()
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#result-table tbody tr")) == 6)
    headers = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#result-table th")]
    assert headers == ["n", "r", "t"]
    first = browser.find_element(By.CSS_SELECTOR, "#result-table tbody tr").text
    assert "(:Note" in first and "[:ABOUT" in first and "auth" in first
    shot(browser, "table", tmp_path)

    # The graph view draws the nodes with their labels and the relationships.
    browser.find_element(By.ID, "view-graph").click()
    wait.until(ec.visibility_of_element_located((By.ID, "graph")))
    nodes = browser.find_elements(By.CSS_SELECTOR, "#graph g.node")
    labels = {n.get_attribute("data-labels") for n in nodes}
    assert labels == {"Note", "Topic"} and len(nodes) == 7
    assert {g.get_attribute("data-type") for g in browser.find_elements(By.CSS_SELECTOR, "#graph g.link")} == {"ABOUT"}
    # Double-click the topic: its neighbours (DECIDED too) are fetched and drawn.
    topic = next(n for n in nodes if n.get_attribute("data-labels") == "Topic")
    # The event goes to the circle itself: the force layout may still be moving it, and a pointer
    # double-click at its old place can miss (the handler, not hit-testing, is what is checked here).
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('dblclick', {bubbles: true}))",
                           topic.find_element(By.TAG_NAME, "circle"))
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#graph g.node")) > 7)
    assert "DECIDED" in {g.get_attribute("data-type") for g in browser.find_elements(By.CSS_SELECTOR, "#graph g.link")}
    browser.execute_script("document.querySelector('#history li') && window.scrollTo(0, 0)")
    shot(browser, "graph", tmp_path)
    history = browser.find_elements(By.CSS_SELECTOR, "#history li")
    assert history and "Topic {name: 'auth'}" in history[0].text

    # The search playground: three lists side by side, the fused one with both ranks.
    browser.find_element(By.ID, "tab-search").click()
    Select(browser.find_element(By.ID, "vector-index")).select_by_value("note_e")
    Select(browser.find_element(By.ID, "fulltext-index")).select_by_value("note_t")
    browser.find_element(By.ID, "question").send_keys("what did we decide about oauth tokens?")
    browser.find_element(By.ID, "search-run").click()
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#lane-fused .hit")) == 5)
    lanes = {}
    for lane in ("vector", "fulltext", "fused"):
        lanes[lane] = [(h.get_attribute("data-key"), float(h.find_element(By.CLASS_NAME, "score").text))
                       for h in browser.find_elements(By.CSS_SELECTOR, f"#lane-{lane} .hit")]
    assert len(lanes["vector"]) == 5 and 1 <= len(lanes["fulltext"]) <= 5
    rank = {lane: {key: i + 1 for i, (key, _) in enumerate(lanes[lane])} for lane in ("vector", "fulltext")}
    # Each fused score is the RRF of the ranks shown in the two lists, best first.
    for key, score in lanes["fused"]:
        expected = sum(1 / (60 + rank[lane][key]) for lane in ("vector", "fulltext") if key in rank[lane])
        assert score == pytest.approx(expected, abs=1e-4)
    scores = [s for _, s in lanes["fused"]]
    assert scores == sorted(scores, reverse=True)
    top = browser.find_element(By.CSS_SELECTOR, "#lane-fused .hit")
    assert top.get_attribute("data-rank") == "1" and top.text.split("\n")[1].startswith("n02")  # the cookbook note on tokens
    assert "vector #1 · full-text #3" in top.text
    steps = [row.text for row in browser.find_elements(By.CSS_SELECTOR, "#diagnostics tbody tr")]
    assert len(steps) == 4 and steps[0].startswith("embed") and steps[-1].startswith("fusion")
    shot(browser, "search", tmp_path)


def test_search_playground_graph_retrieval_shows_ranked_results_and_engine_steps(browser, server, tmp_path):
    wait = WebDriverWait(browser, 30)
    browser.get(f"http://{server.info['http']}/")
    wait.until(lambda d: d.find_element(By.ID, "app").is_displayed() or d.find_element(By.ID, "login").is_displayed())
    if browser.find_element(By.ID, "login").is_displayed():          # this test may run on its own
        browser.find_element(By.ID, "password").clear()
        browser.find_element(By.ID, "password").send_keys(PASSWORD)
        browser.find_element(By.ID, "login-button").click()
    wait.until(ec.visibility_of_element_located((By.ID, "app")))
    browser.find_element(By.ID, "tab-search").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#vector-index option[value='note_e']"))
    Select(browser.find_element(By.ID, "vector-index")).select_by_value("note_e")
    Select(browser.find_element(By.ID, "fulltext-index")).select_by_value("note_t")
    question = browser.find_element(By.ID, "question")
    question.clear()
    question.send_keys("what did we decide about oauth tokens?")

    # POST /db/neo4j/retrieve: db.retrieve over the chosen indexes' notes, its engine steps in a table.
    browser.find_element(By.ID, "retrieve-run").click()
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#retrieval-diagnostics tbody tr")) >= 3)
    assert browser.find_element(By.ID, "retrieval").is_displayed()
    assert not browser.find_element(By.ID, "search-results").is_displayed()
    rows = browser.find_elements(By.CSS_SELECTOR, "#retrieval-diagnostics tbody tr")
    cells = [[td.text for td in row.find_elements(By.TAG_NAME, "td")] for row in rows]
    steps = [c[0] for c in cells]
    assert steps[0] == "direct" and {"entities", "fusion"} <= set(steps)
    assert all(float(c[1]) >= 0 for c in cells)                       # the engine's milliseconds
    assert "hits:" in cells[0][2] and "kind: rrf" in cells[steps.index("fusion")][2]
    hits = browser.find_elements(By.CSS_SELECTOR, "#retrieval-results .hit")
    assert len(hits) == 5 and [h.get_attribute("data-rank") for h in hits] == ["1", "2", "3", "4", "5"]
    assert hits[0].text.split("\n")[1].startswith("n02") and "direct" in hits[0].text   # the note on tokens
    scores = [float(h.find_element(By.CLASS_NAME, "score").text) for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert "No answer" in browser.find_element(By.ID, "retrieval-answer").text   # no AI provider here
    assert "db.retrieve: 5 results" in browser.find_element(By.ID, "search-status").text
    shot(browser, "retrieval", tmp_path)

    # The vector / full-text / fused playground still works and takes the view back.
    browser.find_element(By.ID, "search-run").click()
    wait.until(lambda d: d.find_element(By.ID, "search-status").text.startswith("question:"))
    assert browser.find_element(By.ID, "search-results").is_displayed()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#lane-fused .hit")) == 5
    assert len(browser.find_elements(By.CSS_SELECTOR, "#diagnostics tbody tr")) == 4
    assert not browser.find_element(By.ID, "retrieval").is_displayed()
