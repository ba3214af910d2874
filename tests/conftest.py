"""Test setup: the helper modules of this folder are importable, and with
``TABLETOP_NO_SKIPS=1`` (set by ``.ci/run``) a skipped test is a failure, so that no test
goes unrun in CI for want of an extra."""

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

NO_SKIPS = os.environ.get("TABLETOP_NO_SKIPS") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):  # noqa: ANN201
    """Under ``TABLETOP_NO_SKIPS=1``, report a skipped test as failed, with the skip reason."""
    outcome = yield
    report = outcome.get_result()
    if NO_SKIPS and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = (
            f"skipped under TABLETOP_NO_SKIPS=1 (CI installs every extra the tests need): {reason}"
        )


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """SB3's ``learn()`` without a TensorBoard folder still makes a logger folder
    (``$SB3_LOGDIR``, else ``/tmp/SB3-<time>``): keep them in pytest's temporary folder."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3")))
        yield
