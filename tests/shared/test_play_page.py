"""The bot server's play page in real headless Chromium (Debian's chromium and
chromium-driver, which .ci/run installs): load the page, play a few moves of each game
against the heuristic, check that the board and the event log changed as the rules say."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from serving import serving

from agents.serve import Service
from agents.serve.http import create_app
from tabletop import registry

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

webdriver = pytest.importorskip("selenium.webdriver")
if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
    pytest.skip(
        "Debian's chromium and chromium-driver are not installed (.ci/run installs them)",
        allow_module_level=True,
    )

from selenium.webdriver.chrome.service import Service as DriverService  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

#: CI runs as root: no sandbox; the machine's network is closed: no background networking
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    """The play page loaded in headless Chromium, served by a real uvicorn server."""
    with serving(create_app(Service())) as base:
        options = webdriver.ChromeOptions()
        for flag in FLAGS:
            options.add_argument(flag)
        options.binary_location = CHROMIUM
        driver = webdriver.Chrome(service=DriverService(CHROMEDRIVER), options=options)
        try:
            driver.get(f"{base}/")
            WebDriverWait(driver, 60).until(lambda d: body(d, "ready") == "1")
            yield driver
        finally:
            driver.quit()


def body(driver: Any, key: str) -> str:
    return str(driver.find_element(By.TAG_NAME, "body").get_attribute(f"data-{key}") or "")


def turns(driver: Any) -> int:
    return int(body(driver, "turns") or 0)


def log_lines(driver: Any) -> list[str]:
    """The log, each turn event (class "event") marked with a leading "* "."""
    return [
        ("* " if "event" in (li.get_attribute("class") or "") else "") + li.text
        for li in driver.find_elements(By.CSS_SELECTOR, "#log li")
    ]


@pytest.mark.parametrize("game", ["lunatix", "ryderz"])
def test_play_a_few_moves_against_the_heuristic(page: Any, game: str) -> None:
    d = page
    options = [o.get_attribute("value") for o in Select(d.find_element(By.ID, "game")).options]
    assert options == list(registry.names())
    Select(d.find_element(By.ID, "game")).select_by_value(game)
    Select(d.find_element(By.ID, "players")).select_by_value("2")
    Select(d.find_element(By.ID, "bot")).select_by_value("heuristic")
    start = turns(d)
    d.find_element(By.ID, "new-game").click()
    WebDriverWait(d, 120).until(lambda d: turns(d) > start)
    assert log_lines(d)[0].startswith(f"new game: {game}, 2 players")
    for _ in range(3):
        t, board, lines = turns(d), d.find_element(By.ID, "board"), len(log_lines(d))
        before = board.get_attribute("src")
        buttons = d.find_elements(By.CSS_SELECTOR, "#actions button.action")
        assert buttons, "the player decides: its legal actions are buttons"
        chosen = buttons[0].text
        buttons[0].click()
        WebDriverWait(d, 120).until(lambda d, t=t: turns(d) > t)
        new_lines = log_lines(d)[lines:]
        # the player's action is logged first, then the heuristic's moves, then chance
        assert new_lines[0] == f"seat 0 (you): {chosen}"
        assert any(x.startswith("seat 1 (heuristic): ") for x in log_lines(d))
        # then the turn events the engine recorded, as the rules say they happen
        assert any(x.startswith("* ") for x in new_lines), new_lines
        assert d.find_element(By.ID, "board").get_attribute("src") != before
        assert d.find_element(By.ID, "error").text == ""
    first_events = {"lunatix": "* seat 0 takes ", "ryderz": "* seat 0 picks gear "}[game]
    assert any(x.startswith(first_events) for x in log_lines(d)), log_lines(d)[:12]
    status = d.find_element(By.ID, "status").text
    assert "deciding:" in status or "game over" in status
    title = {"lunatix": "The Loop", "ryderz": "Lazer Ryderz"}[game]
    assert title in status  # the state's text, as the engine writes it
