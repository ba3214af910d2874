"""Small statistics shared by the arena, the evaluation and the training reports."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate ``successes / n`` (``successes`` may be a
    score with half points for draws); ``(0, 1)`` for ``n == 0``."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def write_report(out: Path, stem: str, data: Any, markdown: str) -> None:
    """Write ``out/<stem>.json`` and ``out/<stem>.md`` (the folder made if needed)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.json").write_text(json.dumps(data, indent=1))
    (out / f"{stem}.md").write_text(markdown)
