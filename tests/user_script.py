"""Run a script as a user would: a fresh interpreter in the script's folder, with nothing
of the test run's environment but the project on ``PYTHONPATH``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_as_user(script: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``python script`` in ``script``'s folder, which is also its ``HOME`` and ``TMPDIR``
    (so that what it writes there, SB3's logger folder included, stays with the test)."""
    folder = str(script.parent)
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=folder,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": folder, "TMPDIR": folder},
    )
